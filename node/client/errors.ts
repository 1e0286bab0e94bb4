/** The JSON-RPC code of a busy answer: the node cannot take the request now; retry after `retryAfterMs`. */
export const RPC_BUSY = -32010;

/** What a busy answer without a usable `data.retryAfterMs` is taken to ask. */
const DEFAULT_RETRY_AFTER_MS = 1000;

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

  /** -32010: the node is busy (mempool full, overloaded); the same request may succeed later */
  get busy(): boolean {
    return this.code === RPC_BUSY;
  }

  /** How long a busy node asked to wait, in ms; undefined when the error is not busy. */
  get retryAfterMs(): number | undefined {
    if (!this.busy) return undefined;
    const ms = (this.data as { retryAfterMs?: unknown } | undefined)?.retryAfterMs;
    return typeof ms === 'number' && Number.isFinite(ms) && ms >= 0 ? ms : DEFAULT_RETRY_AFTER_MS;
  }
}

/** The request never got a JSON-RPC answer: connection refused, timeout, HTTP error, bad body. */
export class RpcTransportError extends Error {
  override readonly name = 'RpcTransportError';
  constructor(
    message: string,
    readonly url: string,
    readonly status?: number,
    options?: { cause?: unknown; retryAfterMs?: number },
  ) {
    super(message, options);
    this.retryAfterMs = options?.retryAfterMs;
  }

  /** from a `Retry-After` header of a 503 or 429 answer (a proxy's, say), in ms */
  readonly retryAfterMs: number | undefined;
}

/**
 * When `err` means "try again later", how long to wait in ms: a busy JSON-RPC answer (-32010), or
 * an HTTP 503/429 with Retry-After. Undefined for any other error, which retrying will not cure.
 */
export function busyRetryAfterMs(err: unknown): number | undefined {
  if (err instanceof RpcError) return err.retryAfterMs;
  if (err instanceof RpcTransportError) return err.retryAfterMs;
  return undefined;
}

/** True when `err` is a busy answer (see busyRetryAfterMs). */
export function isBusy(err: unknown): boolean {
  return busyRetryAfterMs(err) !== undefined;
}

/** A Retry-After header (seconds, or an HTTP date) in ms; undefined when absent or unreadable. */
export function parseRetryAfter(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
