import { JSONRPCServer, type JSONRPCErrorResponse, type JSONRPCID, type JSONRPCRequest, type JSONRPCResponse } from 'json-rpc-2.0';
import { LedgerError } from '../errors.js';
import { decodeUtf8 } from '../http/body.js';
import type { HttpLog, HttpServer, RequestContext, RouteHandler } from '../http/server.js';
import { parseJson, stringifyJson } from '../protocol/json.js';
import {
  BUSY_HTTP_STATUS,
  busyError,
  busyReasonOf,
  DEFAULT_RETRY_AFTER_MS,
  INTERNAL_MESSAGE,
  retryAfterHeader,
  RPC_BUSY,
  RPC_INTERNAL_ERROR,
  RPC_INVALID_PARAMS,
  RPC_INVALID_REQUEST,
  RPC_LIMIT_EXCEEDED,
  RPC_METHOD_NOT_FOUND,
  RPC_PARSE_ERROR,
  RpcMethodError,
  toRpcError,
  type BusyData,
  type BusyReason,
  type Problem,
} from './errors.js';
import { EventLoopLagSampler } from './overload.js';
import { checkParams, type ParamSpec } from './params.js';

/**
 * JSON-RPC 2.0 over HTTP POST (docs/rpc.md, "Transport and errors"). The envelope, batches,
 * limits and error codes are handled here; the `json-rpc-2.0` package dispatches single requests
 * to methods. Bodies are parsed and written with the lossless JSON codec, so integers beyond
 * 2^53 travel as bare integer literals in both directions.
 *
 * Overload (docs/rpc.md, "Busy"): past `maxInFlight` requests being processed, a request is refused
 * at once with -32010 busy (HTTP 503, Retry-After) rather than queued until it times out; while
 * the event loop lags past `maxEventLoopLagMs`, write methods are refused the same way and reads
 * are still served. Costed methods (expensive verification) share a per-request budget of work
 * units, `maxBatchCost`: a batch's requests past it get -32005 without running.
 */

export interface RpcMethod {
  readonly name: string;
  readonly params: readonly ParamSpec[];
  readonly handler: (...args: never[]) => unknown;
  /** submits something (a transaction): refused first when the node lags */
  readonly write?: boolean;
  /** expensive work (verification/cost.ts): its price in work units, from the checked params */
  readonly cost?: (...args: never[]) => number;
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
  write?: boolean;
  cost?: (...args: ArgsOf<S>) => number;
}): RpcMethod {
  return def as unknown as RpcMethod;
}

export interface RpcServerOptions {
  methods: readonly RpcMethod[];
  /** most requests in one batch; default 100 */
  maxBatch?: number;
  /** largest request body; default 1 MiB */
  maxBodyBytes?: number;
  /** most requests processed at once (a batch counts its length); beyond, busy; default 256 */
  maxInFlight?: number;
  /** event-loop lag past which write methods are busy; 0 turns the check off; default 500 ms */
  maxEventLoopLagMs?: number;
  /** most work units the costed requests of one batch (or one request) may spend; default 6000 */
  maxBatchCost?: number;
  /** what busy answers ask the client to wait (data.retryAfterMs, Retry-After in seconds); default 1000 ms */
  retryAfterMs?: number;
  /** the current event-loop lag in ms; default: a timer sampler the server starts (close() stops it) */
  eventLoopLagMs?: () => number;
  /** called once for each request refused as busy, notifications included (a batch refused as a whole counts once) */
  onBusy?: (reason: BusyReason) => void;
  log?: HttpLog;
}

export interface RpcServer {
  /** One parsed payload (a request or a batch) in, the response payload out; undefined when none is owed. */
  handle(payload: unknown): Promise<JSONRPCResponse | JSONRPCResponse[] | undefined>;
  /** The HTTP handler: body limits, content type, parse errors, then handle(). */
  readonly route: RouteHandler;
  /** Mounts the route as `POST <path>` (default `/`). */
  mount(http: HttpServer, path?: string): void;
  /** requests being processed now (a batch counts its length) */
  readonly inFlight: number;
  /** Stops the event-loop sampler the server started, if any. */
  close(): void;
}

export const DEFAULT_MAX_BATCH = 100;
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
export const DEFAULT_MAX_IN_FLIGHT = 256;
export const DEFAULT_MAX_EVENT_LOOP_LAG_MS = 500;
export const DEFAULT_MAX_BATCH_COST = 6000;

/** The work units one payload (a request or a batch) may still spend on costed methods. */
interface CostBudget {
  readonly max: number;
  spent: number;
}

/**
 * Charges `cost` to the payload's budget, or throws the -32005 refusal when it would go past it.
 * A method charges after its params check and before any await, so a batch is charged in its
 * order; params that fail their checks cost nothing.
 */
function charge(budget: CostBudget, name: string, cost: number): void {
  if (budget.spent + cost > budget.max) {
    throw new RpcMethodError(
      RPC_LIMIT_EXCEEDED,
      `this ${name} costs ${cost} work units and the request's budget has ${budget.max - budget.spent} of ${budget.max} left; send it in a batch of its own or a later one`,
      { code: 'BATCH_COST_EXCEEDED', cost, spent: budget.spent, maxBatchCost: budget.max },
    );
  }
  budget.spent += cost;
}

/** A response payload, and the busy data when the request as a whole was refused as busy. */
interface Processed {
  answer: JSONRPCResponse | JSONRPCResponse[] | undefined;
  busy?: BusyData;
}

function errorResponse(id: JSONRPCID | bigint, code: number, message: string, data?: unknown): JSONRPCErrorResponse {
  const error: JSONRPCErrorResponse['error'] = { code, message };
  if (data !== undefined) error.data = data;
  return { jsonrpc: '2.0', id: id as JSONRPCID, error };
}

/**
 * What the JSON-RPC route's 413 Problem also carries: the members of a JSON-RPC error response,
 * -32600 with the Problem's detail, so a JSON-RPC client reads it as one.
 */
function rpcTooLargeMembers(problem: Problem): Record<string, unknown> {
  return { ...errorResponse(null, RPC_INVALID_REQUEST, problem.detail) };
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
  const maxInFlight = opts.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
  const maxLag = opts.maxEventLoopLagMs ?? DEFAULT_MAX_EVENT_LOOP_LAG_MS;
  const maxBatchCost = opts.maxBatchCost ?? DEFAULT_MAX_BATCH_COST;
  const retryAfterMs = opts.retryAfterMs ?? DEFAULT_RETRY_AFTER_MS;
  const sampler = maxLag > 0 && opts.eventLoopLagMs === undefined ? new EventLoopLagSampler().start() : undefined;
  const lagMs = opts.eventLoopLagMs ?? (() => sampler?.lagMs() ?? 0);
  const log = opts.log;
  const busy = (reason: BusyReason) => {
    try {
      opts.onBusy?.(reason);
    } catch (err) {
      log?.error({ err }, 'rpc busy listener failed');
    }
  };
  const writes = new Set(opts.methods.filter((m) => m.write).map((m) => m.name));
  // The package logs every thrown error with console.warn by default; we log internal ones only.
  // each payload's cost budget travels to the methods as the library's server params
  const lib = new JSONRPCServer<CostBudget>({ errorListener: () => undefined });
  lib.mapErrorToJSONRPCErrorResponse = (id, err) => {
    const e = toRpcError(err, { retryAfterMs });
    return errorResponse(id, e.code, e.message, e.data);
  };
  lib.handleMethodNotFound = (async (request: JSONRPCRequest) =>
    request.id === undefined ? null : errorResponse(request.id, RPC_METHOD_NOT_FOUND, `method not found: ${String(request.method).slice(0, 100)}`)) as typeof lib.handleMethodNotFound;

  for (const method of opts.methods) {
    if (lib.hasMethod(method.name)) throw new LedgerError('RPC_DUPLICATE_METHOD', `method ${method.name} is defined twice`, 'internal');
    const handler = method.handler as (...args: unknown[]) => unknown;
    const cost = method.cost as ((...args: unknown[]) => number) | undefined;
    lib.addMethodAdvanced(method.name, async (request, budget) => {
      const params = request.params ?? [];
      if (!Array.isArray(params)) {
        throw new RpcMethodError(RPC_INVALID_PARAMS, 'invalid params: params must be a positional array; named params (an object) are not supported');
      }
      const args = checkParams(method.name, method.params, params);
      if (cost) charge(budget, method.name, cost(...args));
      try {
        const result = await handler(...args);
        return request.id === undefined ? null : { jsonrpc: '2.0', id: request.id, result: result === undefined ? null : result };
      } catch (err) {
        const reason = busyReasonOf(err);
        if (reason !== undefined) busy(reason);
        if (toRpcError(err).internal) log?.error({ err, method: method.name }, 'rpc method failed');
        throw err;
      }
    });
  }

  /** The busy refusal of a write while the event loop lags `lagging` ms past the threshold, or undefined. */
  const lagRefusal = (item: unknown, lagging: number | undefined) => {
    if (lagging === undefined || !isObject(item) || typeof item.method !== 'string' || !writes.has(item.method)) return undefined;
    busy('event_loop_lag');
    const message = `busy: the node lags (event loop ${Math.round(lagging)} ms behind); ${item.method} is refused until it catches up`;
    return busyError('event_loop_lag', message, retryAfterMs, { lagMs: Math.round(lagging), maxLagMs: maxLag });
  };

  const one = async (item: unknown, lagging: number | undefined, budget: CostBudget): Promise<JSONRPCResponse | null> => {
    const problem = envelopeProblem(item);
    if (problem !== undefined) {
      const id = isObject(item) && isId(item.id) ? item.id : null;
      return errorResponse(id, RPC_INVALID_REQUEST, `invalid request: ${problem}`);
    }
    const request = item as unknown as JSONRPCRequest;
    const refused = lagRefusal(request, lagging);
    if (refused) return request.id === undefined ? null : errorResponse(request.id, refused.code, refused.message, refused.data);
    return lib.receive(request, budget);
  };

  let inFlight = 0;
  const processPayload = async (payload: unknown): Promise<Processed> => {
    const batch = Array.isArray(payload);
    if (batch && payload.length === 0) return { answer: errorResponse(null, RPC_INVALID_REQUEST, 'invalid request: empty batch') };
    if (batch && payload.length > maxBatch) {
      return { answer: errorResponse(null, RPC_INVALID_REQUEST, `invalid request: batch of ${payload.length} requests exceeds the limit of ${maxBatch}`) };
    }
    const units = batch ? payload.length : 1;
    // A batch larger than the bound still runs on an idle server, so a valid batch is never refused for good.
    if (inFlight > 0 && inFlight + units > maxInFlight) {
      busy('overloaded');
      const e = busyError('overloaded', `busy: the node is processing ${inFlight} requests, its limit is ${maxInFlight}; retry after ${retryAfterMs} ms`, retryAfterMs, {
        inFlight,
        maxInFlight,
      });
      const id = !batch && isObject(payload) && isId(payload.id) ? payload.id : null;
      const silent = !batch && isObject(payload) && !('id' in payload);
      return { answer: silent ? undefined : errorResponse(id, e.code, e.message, e.data), busy: e.data };
    }
    const lag = maxLag > 0 ? lagMs() : 0;
    const lagging = maxLag > 0 && lag > maxLag ? lag : undefined;
    if (!batch && envelopeProblem(payload) === undefined) {
      const refused = lagRefusal(payload, lagging);
      // a refused notification gets no body, but the HTTP status still says busy
      if (refused) return { answer: 'id' in (payload as object) ? errorResponse((payload as { id: JSONRPCID }).id, refused.code, refused.message, refused.data) : undefined, busy: refused.data };
    }
    inFlight += units;
    const budget: CostBudget = { max: maxBatchCost, spent: 0 };
    try {
      if (!batch) return { answer: (await one(payload, undefined, budget)) ?? undefined };
      const responses = (await Promise.all(payload.map((item) => one(item, lagging, budget)))).filter((r): r is JSONRPCResponse => r !== null);
      return { answer: responses.length > 0 ? responses : undefined };
    } finally {
      inFlight -= units;
    }
  };

  const handle: RpcServer['handle'] = async (payload) => (await processPayload(payload)).answer;

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
    // a body over the limit is the server's 413, with the JSON-RPC error that mount() asks for
    const bytes = await ctx.readBody(maxBodyBytes);
    let payload: unknown;
    try {
      payload = parseJson(decodeUtf8(bytes));
    } catch (err) {
      const e = err as LedgerError;
      reply(ctx, 200, errorResponse(null, RPC_PARSE_ERROR, `parse error: ${e.message}`, e.data.position !== undefined ? { position: e.data.position } : undefined));
      return;
    }
    const { answer, busy: refused } = await processPayload(payload);
    // Busy as a whole (refused before running, or one request answered busy): 503 with Retry-After.
    const busyData = refused ?? (answer !== undefined && !Array.isArray(answer) && answer.error?.code === RPC_BUSY ? (answer.error.data as BusyData) : undefined);
    const headers = busyData ? { 'retry-after': retryAfterHeader(busyData.retryAfterMs) } : undefined;
    if (answer === undefined) ctx.send(busyData ? BUSY_HTTP_STATUS : 204, '', undefined, headers);
    else ctx.send(busyData ? BUSY_HTTP_STATUS : 200, encode(answer), 'application/json', headers);
  };

  return {
    handle,
    route,
    mount: (http, path = '/') => void http.route('POST', path, route, { tooLargeMembers: rpcTooLargeMembers }),
    get inFlight() {
      return inFlight;
    },
    close: () => sampler?.stop(),
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
