import { JSONRPCServer, type JSONRPCErrorResponse, type JSONRPCID, type JSONRPCRequest, type JSONRPCResponse } from 'json-rpc-2.0';
import { LedgerError } from '../errors.js';
import { decodeUtf8, isBodyTooLarge } from '../http/body.js';
import type { HttpLog, HttpServer, RequestContext, RouteHandler } from '../http/server.js';
import { parseJson, stringifyJson } from '../protocol/json.js';
import {
  INTERNAL_MESSAGE,
  RPC_INTERNAL_ERROR,
  RPC_INVALID_PARAMS,
  RPC_INVALID_REQUEST,
  RPC_METHOD_NOT_FOUND,
  RPC_PARSE_ERROR,
  RpcMethodError,
  toRpcError,
} from './errors.js';
import { checkParams, type ParamSpec } from './params.js';

/**
 * JSON-RPC 2.0 over HTTP POST (docs/rpc.md, "Transport and errors"). The envelope, batches,
 * limits and error codes are handled here; the `json-rpc-2.0` package dispatches single requests
 * to methods. Bodies are parsed and written with the lossless JSON codec, so integers beyond
 * 2^53 travel as bare integer literals in both directions.
 */

export interface RpcMethod {
  readonly name: string;
  readonly params: readonly ParamSpec[];
  readonly handler: (...args: never[]) => unknown;
}

type ArgsOf<S extends readonly ParamSpec<unknown>[]> = { -readonly [K in keyof S]: S[K] extends ParamSpec<infer T> ? T : never };

/**
 * Defines a method: its positional params (see params.ts) and a handler that receives them
 * checked and typed. A handler returns the result (undefined is sent as null) or throws: a
 * LedgerError or RpcMethodError becomes its mapped code (errors.ts), anything else -32603.
 */
export function defineMethod<const S extends readonly ParamSpec<unknown>[], R>(def: {
  name: string;
  params: S;
  handler: (...args: ArgsOf<S>) => R | Promise<R>;
}): RpcMethod {
  return def as unknown as RpcMethod;
}

export interface RpcServerOptions {
  methods: readonly RpcMethod[];
  /** most requests in one batch; default 100 */
  maxBatch?: number;
  /** largest request body; default 1 MiB */
  maxBodyBytes?: number;
  log?: HttpLog;
}

export interface RpcServer {
  /** One parsed payload (a request or a batch) in, the response payload out; undefined when none is owed. */
  handle(payload: unknown): Promise<JSONRPCResponse | JSONRPCResponse[] | undefined>;
  /** The HTTP handler: body limits, content type, parse errors, then handle(). */
  readonly route: RouteHandler;
  /** Mounts the route as `POST <path>` (default `/`). */
  mount(http: HttpServer, path?: string): void;
}

export const DEFAULT_MAX_BATCH = 100;
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

function errorResponse(id: JSONRPCID | bigint, code: number, message: string, data?: unknown): JSONRPCErrorResponse {
  const error: JSONRPCErrorResponse['error'] = { code, message };
  if (data !== undefined) error.data = data;
  return { jsonrpc: '2.0', id: id as JSONRPCID, error };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A parsed integer id beyond 2^53 arrives as bigint and is echoed exactly. */
function isId(v: unknown): v is JSONRPCID | bigint {
  return v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'bigint';
}

/** Returns why `item` is not a valid request object, or undefined when it is. */
function envelopeProblem(item: unknown): string | undefined {
  if (!isObject(item)) return 'a request must be a JSON object';
  if (item.jsonrpc !== '2.0') return 'jsonrpc must be "2.0"';
  if (typeof item.method !== 'string') return 'method must be a string';
  if ('id' in item && !isId(item.id)) return 'id must be a string, a number or null';
  if ('params' in item && typeof item.params !== 'object') return 'params must be an array';
  if ('params' in item && item.params === null) return 'params must be an array';
  return undefined;
}

export function createRpcServer(opts: RpcServerOptions): RpcServer {
  const maxBatch = opts.maxBatch ?? DEFAULT_MAX_BATCH;
  const maxBodyBytes = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const log = opts.log;
  // The package logs every thrown error with console.warn by default; we log internal ones only.
  const lib = new JSONRPCServer({ errorListener: () => undefined });
  lib.mapErrorToJSONRPCErrorResponse = (id, err) => {
    const e = toRpcError(err);
    return errorResponse(id, e.code, e.message, e.data);
  };
  lib.handleMethodNotFound = (async (request: JSONRPCRequest) =>
    request.id === undefined ? null : errorResponse(request.id, RPC_METHOD_NOT_FOUND, `method not found: ${String(request.method).slice(0, 100)}`)) as typeof lib.handleMethodNotFound;

  for (const method of opts.methods) {
    if (lib.hasMethod(method.name)) throw new LedgerError('RPC_DUPLICATE_METHOD', `method ${method.name} is defined twice`, 'internal');
    const handler = method.handler as (...args: unknown[]) => unknown;
    lib.addMethodAdvanced(method.name, async (request) => {
      const params = request.params ?? [];
      if (!Array.isArray(params)) {
        throw new RpcMethodError(RPC_INVALID_PARAMS, 'invalid params: params must be a positional array; named params (an object) are not supported');
      }
      try {
        const result = await handler(...checkParams(method.name, method.params, params));
        return request.id === undefined ? null : { jsonrpc: '2.0', id: request.id, result: result === undefined ? null : result };
      } catch (err) {
        if (toRpcError(err).internal) log?.error({ err, method: method.name }, 'rpc method failed');
        throw err;
      }
    });
  }

  const one = async (item: unknown): Promise<JSONRPCResponse | null> => {
    const problem = envelopeProblem(item);
    if (problem !== undefined) {
      const id = isObject(item) && isId(item.id) ? item.id : null;
      return errorResponse(id, RPC_INVALID_REQUEST, `invalid request: ${problem}`);
    }
    return lib.receive(item as unknown as JSONRPCRequest);
  };

  const handle: RpcServer['handle'] = async (payload) => {
    if (!Array.isArray(payload)) return (await one(payload)) ?? undefined;
    if (payload.length === 0) return errorResponse(null, RPC_INVALID_REQUEST, 'invalid request: empty batch');
    if (payload.length > maxBatch) {
      return errorResponse(null, RPC_INVALID_REQUEST, `invalid request: batch of ${payload.length} requests exceeds the limit of ${maxBatch}`);
    }
    const responses = (await Promise.all(payload.map(one))).filter((r): r is JSONRPCResponse => r !== null);
    return responses.length > 0 ? responses : undefined;
  };

  /** Encodes each response on its own, so one unencodable result fails only its own call. */
  const encodeOne = (r: JSONRPCResponse): string => {
    try {
      return stringifyJson(r);
    } catch (err) {
      log?.error({ err, id: r.id }, 'rpc result cannot be encoded as JSON');
      return stringifyJson(errorResponse(r.id, RPC_INTERNAL_ERROR, INTERNAL_MESSAGE));
    }
  };
  const encode = (answer: JSONRPCResponse | JSONRPCResponse[]): string => (Array.isArray(answer) ? `[${answer.map(encodeOne).join(',')}]` : encodeOne(answer));

  const reply = (ctx: RequestContext, status: number, body: JSONRPCResponse, headers?: Record<string, string>) =>
    ctx.send(status, stringifyJson(body), 'application/json', headers);

  const route: RouteHandler = async (ctx) => {
    const unsupported = contentTypeProblem(ctx.req.headers['content-type']);
    if (unsupported !== undefined) {
      reply(ctx, 415, errorResponse(null, RPC_INVALID_REQUEST, unsupported));
      return;
    }
    let bytes: Buffer;
    try {
      bytes = await ctx.readBody(maxBodyBytes);
    } catch (err) {
      if (!isBodyTooLarge(err)) throw err;
      reply(ctx, 413, errorResponse(null, RPC_INVALID_REQUEST, `request body exceeds ${maxBodyBytes} bytes`), { connection: 'close' });
      return;
    }
    let payload: unknown;
    try {
      payload = parseJson(decodeUtf8(bytes));
    } catch (err) {
      const e = err as LedgerError;
      reply(ctx, 200, errorResponse(null, RPC_PARSE_ERROR, `parse error: ${e.message}`, e.data.position !== undefined ? { position: e.data.position } : undefined));
      return;
    }
    const answer = await handle(payload);
    if (answer === undefined) ctx.send(204, '', undefined);
    else ctx.send(200, encode(answer), 'application/json');
  };

  return {
    handle,
    route,
    mount: (http, path = '/') => void http.route('POST', path, route),
  };
}

const JSON_TYPES = new Set(['application/json', 'application/json-rpc', 'application/jsonrequest']);

/**
 * A missing Content-Type is accepted, as some clients send none; any other type
 * than JSON, or a charset other than UTF-8, is refused with 415.
 */
function contentTypeProblem(header: string | undefined): string | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const [type = '', ...parameters] = header.split(';').map((p) => p.trim().toLowerCase());
  if (!JSON_TYPES.has(type) && !type.endsWith('+json')) return `unsupported content type ${JSON.stringify(header.slice(0, 100))}; send application/json`;
  const charset = parameters.find((p) => p.startsWith('charset='))?.slice('charset='.length).replace(/"/g, '');
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') return `unsupported charset ${JSON.stringify(charset.slice(0, 40))}; send UTF-8`;
  return undefined;
}
