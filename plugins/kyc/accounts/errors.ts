import { HttpProblem, type Slug } from '../../common/http/problems.js';

/**
 * The accounts part's failures, each a Problem with a stable `code`. Credentials that are wrong
 * are 401s with one detail for "no such account" and "wrong password", so a login cannot tell
 * which emails are registered.
 */
export const ACCOUNT_ERRORS = {
  EMAIL_TAKEN: 'EMAIL_TAKEN',
  INVALID_CREDENTIALS: 'INVALID_CREDENTIALS',
  LOGIN_THROTTLED: 'LOGIN_THROTTLED',
  TOTP_INVALID: 'TOTP_INVALID',
  TOTP_REPLAYED: 'TOTP_REPLAYED',
  TOTP_ALREADY_ENABLED: 'TOTP_ALREADY_ENABLED',
  TOTP_NOT_SET_UP: 'TOTP_NOT_SET_UP',
  TOTP_SECRET_MISMATCH: 'TOTP_SECRET_MISMATCH',
  RESET_TOKEN_INVALID: 'RESET_TOKEN_INVALID',
  RESET_TOKEN_EXPIRED: 'RESET_TOKEN_EXPIRED',
  ACCOUNT_GONE: 'ACCOUNT_GONE',
  SESSION_REVOKED: 'SESSION_REVOKED',
  API_KEY_LIMIT: 'API_KEY_LIMIT',
  API_KEY_NOT_FOUND: 'API_KEY_NOT_FOUND',
  API_KEY_MALFORMED: 'API_KEY_MALFORMED',
  API_KEY_UNKNOWN: 'API_KEY_UNKNOWN',
  PROVIDER_UNKNOWN: 'PROVIDER_UNKNOWN',
  PROVIDER_UNAVAILABLE: 'PROVIDER_UNAVAILABLE',
  PROVIDER_LOGIN_FAILED: 'PROVIDER_LOGIN_FAILED',
  LOGIN_STATE_INVALID: 'LOGIN_STATE_INVALID',
  REDIRECT_NOT_ALLOWED: 'REDIRECT_NOT_ALLOWED',
  ROLE_FORBIDDEN: 'ROLE_FORBIDDEN',
  LAST_OWNER: 'LAST_OWNER',
  MEMBER_NOT_FOUND: 'MEMBER_NOT_FOUND',
  INVITATION_LIMIT: 'INVITATION_LIMIT',
  INVITATION_NOT_FOUND: 'INVITATION_NOT_FOUND',
  INVITATION_INVALID: 'INVITATION_INVALID',
  INVITATION_EXPIRED: 'INVITATION_EXPIRED',
  INVITATION_MAIL_FAILED: 'INVITATION_MAIL_FAILED',
} as const;

export type AccountErrorCode = (typeof ACCOUNT_ERRORS)[keyof typeof ACCOUNT_ERRORS];

export function accountProblem(slug: Slug, code: AccountErrorCode, detail: string, extra: { field?: string; headers?: Record<string, string> } = {}): HttpProblem {
  return new HttpProblem(slug, detail, { code, ...extra });
}

/** A 401 of the `kyc` realm with a stable code. */
export function accountUnauthorized(code: AccountErrorCode, detail: string): HttpProblem {
  return accountProblem('unauthorized', code, detail, { headers: { 'www-authenticate': 'Bearer realm="kyc", error="invalid_token"' } });
}
