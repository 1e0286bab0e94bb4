import { randomBytes } from 'node:crypto';
import { errors as jose, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import type { BinarySublevel } from '../../../node/state/db.js';
import { AUTH_ERRORS, authError } from './errors.js';

/**
 * A plugin's own session tokens: HS256 JWTs it issues after a login (an id_token, a password)
 * and checks on every request. HMAC, because the issuer and the verifier are the same process
 * and nobody else needs to verify them; the secret lives in the plugin's namespace, so tokens
 * survive a restart and no other plugin can mint them.
 */

/** The shortest secret accepted: HS256 is only as strong as a 256-bit key. */
export const MIN_SECRET_BYTES = 32;
/** A session token longer than this is refused unparsed (ours are well under 1 KB). */
export const MAX_SESSION_TOKEN_LENGTH = 4096;

export interface SessionTokensOptions {
  secret: Uint8Array;
  issuer: string;
  audience: string;
  /** lifetime: a number and a unit, `30s`, `15m`, `12h` or `7d` */
  ttl: string;
}

export interface SessionClaimsInput {
  sub: string;
  tenantId: string;
  email?: string;
  role?: string;
  did?: string;
}

export interface SessionClaims extends SessionClaimsInput {
  /** a random id per token, for a revocation list later */
  jti: string;
  iat: number;
  exp: number;
}

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/** `12h` -> 43200; a typo in the config fails at start, not on the first login. */
export function parseTtl(ttl: string): number {
  const m = typeof ttl === 'string' ? /^(\d{1,7})(s|m|h|d)$/.exec(ttl.trim()) : null;
  const seconds = m ? Number(m[1]) * UNITS[m[2]!]! : 0;
  if (seconds <= 0 || seconds > 366 * 86400) {
    throw authError(AUTH_ERRORS.SESSION_CONFIG_INVALID, `session ttl ${JSON.stringify(ttl)} is not a duration like 30m, 12h or 7d of at most 366 days`, 'invalid');
  }
  return seconds;
}

export class SessionTokens {
  readonly ttlSeconds: number;
  private readonly secret: Uint8Array;
  private readonly issuer: string;
  private readonly audience: string;

  constructor(opts: SessionTokensOptions) {
    if (!(opts.secret instanceof Uint8Array) || opts.secret.length < MIN_SECRET_BYTES) {
      throw authError(AUTH_ERRORS.SESSION_CONFIG_INVALID, `the session secret must be at least ${MIN_SECRET_BYTES} bytes`, 'invalid');
    }
    if (typeof opts.issuer !== 'string' || opts.issuer === '' || typeof opts.audience !== 'string' || opts.audience === '') {
      throw authError(AUTH_ERRORS.SESSION_CONFIG_INVALID, 'the session issuer and audience must be non-empty strings', 'invalid');
    }
    this.ttlSeconds = parseTtl(opts.ttl);
    // a copy, so a caller that reuses or zeroes its buffer cannot change our key
    this.secret = Uint8Array.from(opts.secret);
    this.issuer = opts.issuer;
    this.audience = opts.audience;
  }

  async issue(claims: SessionClaimsInput): Promise<{ token: string; expiresIn: number }> {
    const bad = (what: string) => authError(AUTH_ERRORS.SESSION_CLAIMS_INVALID, `a session needs ${what}`, 'invalid');
    if (typeof claims.sub !== 'string' || claims.sub === '') throw bad('a sub');
    if (typeof claims.tenantId !== 'string' || claims.tenantId === '') throw bad('a tenantId');
    const payload: JWTPayload = { tid: claims.tenantId };
    for (const key of ['email', 'role', 'did'] as const) {
      const value = claims[key];
      if (value === undefined) continue;
      if (typeof value !== 'string') throw bad(`${key} as a string`);
      payload[key] = value;
    }
    const now = Math.floor(Date.now() / 1000);
    const token = await new SignJWT(payload)
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(claims.sub)
      .setIssuer(this.issuer)
      .setAudience(this.audience)
      .setIssuedAt(now)
      .setExpirationTime(now + this.ttlSeconds)
      .setJti(randomBytes(16).toString('base64url'))
      .sign(this.secret);
    return { token, expiresIn: this.ttlSeconds };
  }

  async verify(token: string): Promise<SessionClaims> {
    const invalid = (reason: string, message: string, cause?: unknown) => authError(AUTH_ERRORS.SESSION_INVALID, message, 'invalid', { reason }, cause);
    if (typeof token !== 'string' || token === '') throw invalid('format', 'the session token is empty');
    if (token.length > MAX_SESSION_TOKEN_LENGTH) throw invalid('size', `the session token is over ${MAX_SESSION_TOKEN_LENGTH} characters`);
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.secret, {
        algorithms: ['HS256'],
        issuer: this.issuer,
        audience: this.audience,
        requiredClaims: ['sub', 'iat', 'exp', 'jti', 'tid'],
      }));
    } catch (err) {
      if (err instanceof jose.JWTExpired) {
        throw authError(AUTH_ERRORS.SESSION_EXPIRED, 'the session has expired; log in again', 'invalid', { reason: 'exp' }, err);
      }
      if (err instanceof jose.JWSSignatureVerificationFailed) throw invalid('signature', 'the session token\'s signature does not verify', err);
      if (err instanceof jose.JWTClaimValidationFailed) throw invalid(err.claim, `the session token's ${err.claim} claim is ${err.reason === 'missing' ? 'missing' : 'wrong'}`, err);
      if (err instanceof jose.JOSEAlgNotAllowed) throw invalid('alg', 'the session token is not HS256', err);
      if (err instanceof jose.JOSEError) throw invalid('format', `the session token is malformed: ${err.message}`, err);
      throw err;
    }
    const out: SessionClaims = {
      sub: str(payload.sub),
      tenantId: str(payload['tid']),
      jti: str(payload.jti),
      iat: payload.iat as number,
      exp: payload.exp as number,
    };
    if (out.sub === '' || out.tenantId === '' || out.jti === '') throw invalid('claims', 'the session token\'s sub, tid or jti is not a string');
    for (const key of ['email', 'role', 'did'] as const) {
      const value = payload[key];
      if (typeof value === 'string') out[key] = value;
    }
    return out;
  }
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

const creating = new WeakMap<BinarySublevel, Map<string, Promise<Uint8Array>>>();

/**
 * The plugin's session secret: read from its namespace, or made (32 random bytes) and stored
 * on first use. Two callers racing on one store get the same secret, so no token is signed
 * with a key that is then overwritten.
 */
export function loadOrCreateSecret(store: BinarySublevel, key = 'session-secret'): Promise<Uint8Array> {
  let perStore = creating.get(store);
  if (!perStore) creating.set(store, (perStore = new Map()));
  const pending = perStore.get(key);
  if (pending) return pending;
  const made = readOrCreate(store, key).finally(() => perStore.delete(key));
  perStore.set(key, made);
  return made;
}

async function readOrCreate(store: BinarySublevel, key: string): Promise<Uint8Array> {
  const k = new TextEncoder().encode(key);
  const existing = await store.get(k);
  if (existing !== undefined) {
    if (existing.length !== MIN_SECRET_BYTES) {
      throw authError(AUTH_ERRORS.SESSION_SECRET_CORRUPT, `the stored ${key} is ${existing.length} bytes, not ${MIN_SECRET_BYTES}`, 'internal');
    }
    return Uint8Array.from(existing);
  }
  const secret = new Uint8Array(randomBytes(MIN_SECRET_BYTES));
  await store.put(k, secret);
  return Uint8Array.from(secret);
}
