import type { IncomingMessage } from 'node:http';

/**
 * The token of an `Authorization: Bearer <token>` header (RFC 6750 §2.1), or undefined when the
 * header is missing, uses another scheme, or is not a plausible token. The scheme is
 * case-insensitive; the token must be b64token characters and at most MAX_BEARER_LENGTH long,
 * so a huge header is dropped here rather than parsed as a JWT.
 */

/** Enough for an 8 KB id_token; session tokens and API keys are far shorter. */
export const MAX_BEARER_LENGTH = 8192;

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

export function bearerToken(req: Pick<IncomingMessage, 'headers'>): string | undefined {
  const header = req.headers.authorization;
  if (typeof header !== 'string' || header.length > MAX_BEARER_LENGTH + 64) return undefined;
  const m = BEARER.exec(header.trim());
  const token = m?.[1];
  if (token === undefined || token.length > MAX_BEARER_LENGTH) return undefined;
  return token;
}
