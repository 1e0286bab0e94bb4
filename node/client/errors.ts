/** A JSON-RPC error answered by the node: `code` is the JSON-RPC code (-32602, -32001, ...). */
export class RpcError extends Error {
  override readonly name = 'RpcError';
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
    /** the method that failed */
    readonly method?: string,
  ) {
    super(message);
  }
}

/** The request never got a JSON-RPC answer: connection refused, timeout, HTTP error, bad body. */
export class RpcTransportError extends Error {
  override readonly name = 'RpcTransportError';
  constructor(
    message: string,
    readonly url: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
