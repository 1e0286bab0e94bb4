import { STATUS_CODES } from 'node:http';
import { isLedgerError, type ErrorKind, type LedgerError } from '../errors.js';
import { stringifyJson } from '../protocol/json.js';

/**
 * The one place where errors become JSON-RPC error codes and HTTP statuses (docs/rpc.md,
 * "Transport and errors").
 */

export const RPC_PARSE_ERROR = -32700;
export const RPC_INVALID_REQUEST = -32600;
export const RPC_METHOD_NOT_FOUND = -32601;
export const RPC_INVALID_PARAMS = -32602;
export const RPC_INTERNAL_ERROR = -32603;
/** well-formed, but refused by the current state (nonce taken, DID exists, unknown referent) */
export const RPC_REJECTED = -32000;
/** the operator has not enabled the method on this node */
export const RPC_DISABLED = -32001;
/** a size or count limit of the node was exceeded (the number EIP-1474 uses) */
export const RPC_LIMIT_EXCEEDED = -32005;
/** the node cannot take this now (mempool full, too many requests, event loop lagging): retry after `data.retryAfterMs` */
export const RPC_BUSY = -32010;

/** The HTTP status of a request refused as busy; the response also carries `Retry-After`. */
export const BUSY_HTTP_STATUS = 503;
/** How long a busy answer asks the client to wait, unless the server is configured otherwise. */
export const DEFAULT_RETRY_AFTER_MS = 1000;

/**
 * Why the node answered busy (also the `reason` label of ledger_rpc_busy_total):
 * - mempool_full: the mempool is at maxTransactions or maxBytes and may not evict for this one;
 * - sender_limit: the sender already has maxPerSender pending transactions;
 * - overloaded: the RPC server already processes its maximum of requests;
 * - event_loop_lag: the event loop lags past the threshold, so writes are refused;
 * - verify_queue_full: the verification pool already holds its maximum of queued work;
 * - verification_backlog: this validator's committee has more presentation checks waiting than it
 *   takes new verification requests and presentations for;
 * - dependency_unavailable: a server a plugin depends on (Postgres, Redis) cannot be reached.
 */
export const BUSY_REASONS = ['mempool_full', 'sender_limit', 'overloaded', 'event_loop_lag', 'verify_queue_full', 'verification_backlog', 'dependency_unavailable'] as const;
export type BusyReason = (typeof BUSY_REASONS)[number];

export interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface BusyData {
  reason: BusyReason;
  retryAfterMs: number;
  [detail: string]: unknown;
}

/** A -32010 error object: `data` always holds `reason` and `retryAfterMs`, then any detail. */
export function busyError(reason: BusyReason, message: string, retryAfterMs: number, detail: Record<string, unknown> = {}): RpcErrorObject & { data: BusyData } {
  return { code: RPC_BUSY, message, data: { ...detail, reason, retryAfterMs } };
}

/** The Retry-After header value: whole seconds, rounded up, at least 1. */
export function retryAfterHeader(retryAfterMs: number): string {
  return String(Math.max(1, Math.ceil(retryAfterMs / 1000)));
}

/**
 * The busy reason of a thrown error, or undefined when it is not a "try later". MEMPOOL_FULL keeps
 * its LedgerError code (data.code), so callers that use the mempool directly are unaffected.
 */
export function busyReasonOf(err: unknown): BusyReason | undefined {
  if (!isLedgerError(err)) return undefined;
  if (err.code === 'VERIFY_QUEUE_FULL') return 'verify_queue_full';
  if (err.code === 'VERIFICATION_BACKLOG') return 'verification_backlog';
  if (err.code !== 'MEMPOOL_FULL') return undefined;
  return err.data.reason === 'per_sender' ? 'sender_limit' : 'mempool_full';
}

/** An error a method throws when it wants an exact JSON-RPC code, message and data. */
export class RpcMethodError extends Error {
  override readonly name = 'RpcMethodError';
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

const KIND_TO_RPC: Record<ErrorKind, number> = {
  invalid: RPC_INVALID_PARAMS,
  not_found: RPC_REJECTED,
  conflict: RPC_REJECTED,
  disabled: RPC_DISABLED,
  limit: RPC_LIMIT_EXCEEDED,
  unavailable: RPC_BUSY, // answered by toRpcError as busy, with `reason` and `retryAfterMs`
  internal: RPC_INTERNAL_ERROR,
};

const KIND_TO_HTTP: Record<ErrorKind, number> = {
  invalid: 400,
  not_found: 404,
  conflict: 409,
  disabled: 403,
  limit: 413,
  unavailable: 503,
  internal: 500,
};

export const INTERNAL_MESSAGE = 'internal error';

/** the wait an `unavailable` error asks for (its `retryAfterSeconds`), in ms */
export function retryAfterMsOf(err: LedgerError): number {
  const s = Number(err.data['retryAfterSeconds']);
  return Number.isFinite(s) && s > 0 ? s * 1000 : DEFAULT_RETRY_AFTER_MS;
}

/** Data that cannot be encoded (bytes, cycles) is dropped, so an error response always goes out. */
function encodable(data: unknown): boolean {
  try {
    stringifyJson(data);
    return true;
  } catch {
    return false;
  }
}

/**
 * Maps anything a method threw to a JSON-RPC error object. `internal: true` means the caller must
 * log the original error: the response carries only "internal error", never a message or stack.
 * A full mempool or verification queue is -32010 busy: `data` is `{code, reason, retryAfterMs}`
 * plus the error's detail; the mempool's own `reason` (count, bytes, per_sender) moves to `bound`.
 */
export function toRpcError(err: unknown, opts: { retryAfterMs?: number } = {}): RpcErrorObject & { internal: boolean } {
  const busy = busyReasonOf(err);
  if (busy !== undefined) {
    const { code, message, data } = err as LedgerError;
    const { reason: bound, ...detail } = data;
    const e = busyError(busy, message, opts.retryAfterMs ?? DEFAULT_RETRY_AFTER_MS, { code, ...detail, ...(bound === undefined ? {} : { bound }) });
    return { ...e, data: encodable(e.data) ? e.data : { code, reason: busy, retryAfterMs: e.data.retryAfterMs }, internal: false };
  }
  if (isLedgerError(err) && err.kind === 'unavailable') {
    return { ...busyError('dependency_unavailable', err.message, retryAfterMsOf(err), { code: err.code }), internal: false };
  }
  if (err instanceof RpcMethodError) {
    const out: RpcErrorObject & { internal: boolean } = { code: err.code, message: err.message, internal: err.code === RPC_INTERNAL_ERROR };
    if (err.data !== undefined && encodable(err.data)) out.data = err.data;
    return out;
  }
  if (isLedgerError(err) && err.kind !== 'internal') {
    const data = { code: err.code, ...err.data };
    return { code: KIND_TO_RPC[err.kind], message: err.message, data: encodable(data) ? data : { code: err.code }, internal: false };
  }
  return { code: RPC_INTERNAL_ERROR, message: INTERNAL_MESSAGE, internal: true };
}

/** RFC 7807 Problem Details, the error body of the REST routes. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance?: string;
  /** the stable LedgerError code, when there is one */
  code?: string;
}

/** `type` is `<errorsBase>/<status>`, as the explorer's contract has it. */
export const DEFAULT_ERRORS_BASE = '/errors';

export function httpProblem(status: number, detail: string, opts: { instance?: string; errorsBase?: string; code?: string } = {}): Problem {
  const problem: Problem = {
    type: `${opts.errorsBase ?? DEFAULT_ERRORS_BASE}/${status}`,
    title: STATUS_CODES[status] ?? 'Error',
    status,
    detail,
  };
  if (opts.instance !== undefined) problem.instance = opts.instance;
  if (opts.code !== undefined) problem.code = opts.code;
  return problem;
}

/**
 * Maps a thrown error to a Problem, and the headers to send with it. `internal: true` means the
 * caller must log it: the detail then says only "internal error".
 */
export function problemFromError(err: unknown, opts: { instance?: string; errorsBase?: string } = {}): { problem: Problem; internal: boolean; headers?: Record<string, string> } {
  // "try later" (a full mempool or verification queue) is a 503 with Retry-After, not the 413 of a limit
  if (busyReasonOf(err) !== undefined) {
    const e = err as LedgerError;
    return { problem: httpProblem(BUSY_HTTP_STATUS, e.message, { ...opts, code: e.code }), internal: false, headers: { 'retry-after': retryAfterHeader(DEFAULT_RETRY_AFTER_MS) } };
  }
  if (isLedgerError(err) && err.kind === 'unavailable') {
    return { problem: httpProblem(503, err.message, { ...opts, code: err.code }), internal: false, headers: { 'retry-after': retryAfterHeader(retryAfterMsOf(err)) } };
  }
  if (isLedgerError(err) && err.kind !== 'internal') {
    return { problem: httpProblem(KIND_TO_HTTP[err.kind], err.message, { ...opts, code: err.code }), internal: false };
  }
  return { problem: httpProblem(500, INTERNAL_MESSAGE, opts), internal: true };
}
