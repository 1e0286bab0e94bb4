/**
 * Typed errors with a stable code and the data a caller needs to act on them.
 * Mapping to JSON-RPC codes and HTTP statuses happens in one place: rpc/errors.ts.
 */
export type ErrorKind =
  /** the input is malformed or violates a rule; the caller must change it */
  | 'invalid'
  /** the thing asked for does not exist */
  | 'not_found'
  /** the input is well formed but conflicts with current state (nonce taken, DID exists) */
  | 'conflict'
  /** the operator turned the feature off */
  | 'disabled'
  /** a limit was exceeded (size, count) */
  | 'limit'
  /** a service this depends on (a database server) cannot be reached now; the caller may retry */
  | 'unavailable'
  /** a bug or a failing dependency */
  | 'internal';

export class LedgerError<D extends object = Record<string, unknown>> extends Error {
  override readonly name: string = 'LedgerError';
  constructor(
    readonly code: string,
    message: string,
    readonly kind: ErrorKind = 'invalid',
    readonly data: D = {} as D,
  ) {
    super(message);
  }
}

export function isLedgerError(err: unknown): err is LedgerError {
  return err instanceof LedgerError;
}

/** A dependency is down: a 503 with Retry-After on every surface, never a 500. */
export function unavailable(code: string, message: string, data: { retryAfterSeconds: number } & Record<string, unknown>): LedgerError {
  return new LedgerError(code, message, 'unavailable', data);
}

/** Shorthand for the common case: the input is invalid. */
export function invalid(code: string, message: string, data: Record<string, unknown> = {}): LedgerError {
  return new LedgerError(code, message, 'invalid', data);
}
