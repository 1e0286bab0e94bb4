import { isLedgerError, LedgerError, type ErrorKind } from '../../../node/errors.js';

/**
 * The stable codes of the auth helpers, and the HTTP status each one asks for.
 *
 * No LedgerError kind maps to 401 or 502 (node/rpc/errors.ts KIND_TO_HTTP), so every auth
 * error carries the status it wants in `data.status`. A route reads it with `authFailure()` and
 * answers with that status; an auth error that escapes to the HTTP server unhandled still gets a
 * status from its kind (400 for a bad token, 409 for an unusable provider), never a silent 200.
 */
export const AUTH_ERRORS = {
  /** the id_token failed a check; `data.reason` says which (format, alg, kid, signature, iss, aud, azp, nbf, iat, sub, nonce) */
  ID_TOKEN_INVALID: 'ID_TOKEN_INVALID',
  /** the id_token's `exp` has passed (beyond the clock tolerance) */
  ID_TOKEN_EXPIRED: 'ID_TOKEN_EXPIRED',
  /** the id_token is longer than the cap; it was not parsed */
  ID_TOKEN_TOO_LARGE: 'ID_TOKEN_TOO_LARGE',
  /** discovery or the JWKS could not be fetched (network, timeout, non-200, not JSON) */
  OIDC_PROVIDER_UNAVAILABLE: 'OIDC_PROVIDER_UNAVAILABLE',
  /** the provider answered, but its discovery document is unusable (issuer mismatch, no jwks_uri, no asymmetric alg) */
  OIDC_DISCOVERY_INVALID: 'OIDC_DISCOVERY_INVALID',
  /** the verifier's own configuration is wrong (a bug in the plugin's config checks, caught at construction) */
  OIDC_CONFIG_INVALID: 'OIDC_CONFIG_INVALID',
  /** a session token failed a check (format, signature, issuer, audience, claims) */
  SESSION_INVALID: 'SESSION_INVALID',
  /** a session token's `exp` has passed */
  SESSION_EXPIRED: 'SESSION_EXPIRED',
  /** the session signer's configuration is wrong (secret too short, bad ttl) */
  SESSION_CONFIG_INVALID: 'SESSION_CONFIG_INVALID',
  /** the stored session secret is not 32 bytes: the namespace was written by something else */
  SESSION_SECRET_CORRUPT: 'SESSION_SECRET_CORRUPT',
  /** the claims handed to issue() are not usable (missing sub or tenant) */
  SESSION_CLAIMS_INVALID: 'SESSION_CLAIMS_INVALID',
  /** newApiKey() was given a prefix outside the allowed shape */
  API_KEY_PREFIX_INVALID: 'API_KEY_PREFIX_INVALID',
} as const;

export type AuthErrorCode = (typeof AUTH_ERRORS)[keyof typeof AUTH_ERRORS];

/** What the caller should answer: 401 for credentials, 503 when the provider is down, 502 when it answers nonsense. */
const STATUS: Partial<Record<AuthErrorCode, number>> = {
  ID_TOKEN_INVALID: 401,
  ID_TOKEN_EXPIRED: 401,
  ID_TOKEN_TOO_LARGE: 401,
  SESSION_INVALID: 401,
  SESSION_EXPIRED: 401,
  OIDC_PROVIDER_UNAVAILABLE: 503,
  OIDC_DISCOVERY_INVALID: 502,
};

export interface AuthErrorData extends Record<string, unknown> {
  /** the HTTP status the route should answer with */
  status?: number;
  /** which check failed, for the token errors */
  reason?: string;
}

export function authError(code: AuthErrorCode, message: string, kind: ErrorKind, data: AuthErrorData = {}, cause?: unknown): LedgerError<AuthErrorData> {
  const status = STATUS[code];
  const err = new LedgerError<AuthErrorData>(code, message, kind, status === undefined ? data : { status, ...data });
  // the low-level cause (ECONNREFUSED, a jose error) is for the log, not for the caller
  if (cause !== undefined) err.cause = cause;
  return err;
}

/**
 * The status, message and code a route should answer with when an auth helper threw, or
 * undefined when `err` is not an auth error with a status (rethrow it then).
 */
export function authFailure(err: unknown): { status: number; detail: string; code: string } | undefined {
  if (!isLedgerError(err) || !Object.hasOwn(STATUS, err.code)) return undefined;
  const status = err.data['status'];
  if (typeof status !== 'number') return undefined;
  return { status, detail: err.message, code: err.code };
}
