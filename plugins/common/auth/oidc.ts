import {
  createRemoteJWKSet,
  decodeProtectedHeader,
  errors as jose,
  jwtVerify,
  type JWSHeaderParameters,
  type JWTPayload,
  type FlattenedJWSInput,
} from 'jose';
import { isLedgerError } from '../../../node/errors.js';
import { AUTH_ERRORS, authError } from './errors.js';

/**
 * Verifies OpenID Connect id_tokens from one provider (OIDC Core 1.0 §3.1.3.7), for operator
 * logins. The provider is found by discovery; its keys come from its `jwks_uri`. Only the
 * provider's asymmetric signatures are accepted: `none` would let anyone mint a token, and an
 * HS* token is signed with the client secret, which this node may not even hold.
 */

/** An id_token longer than this is refused before it is parsed (real ones are 1 to 2 KB). */
export const MAX_ID_TOKEN_LENGTH = 8192;

/** The asymmetric JWS algorithms jose verifies. */
export const ASYMMETRIC_ALGS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'] as const;

const DEFAULT_DISCOVERY_TTL_MS = 60 * 60 * 1000;
const DEFAULT_FETCH_TIMEOUT_MS = 5000;
const MAX_DISCOVERY_BYTES = 256 * 1024;

export interface OidcVerifierOptions {
  /** the provider's issuer identifier, exactly as its discovery document and tokens spell it */
  issuer: string;
  /** this service's client id(s) at the provider: the token's `aud` must include one of them */
  audience: string | string[];
  /** seconds of clock skew allowed on exp, nbf and iat; default 30 */
  clockToleranceSeconds?: number;
  /** how long a discovery document is reused before it is fetched again; default one hour */
  discoveryTtlMs?: number;
  /** timeout of each discovery and JWKS request; default 5000 ms */
  fetchTimeoutMs?: number;
  /** the claim that names the operator's tenant; default `tenant` */
  tenantClaim?: string;
  /** the clock of the discovery cache, in ms; default Date.now (a test passes its own, so that a slow machine cannot age the cache) */
  cacheClock?: () => number;
}

export interface IdTokenClaims {
  /** the provider's stable id for the user: key accounts by (iss, sub), never by email */
  sub: string;
  email?: string;
  /** the provider's `email_verified`, when it says */
  emailVerified?: boolean;
  name?: string;
  tenant?: string;
  iss: string;
  /** the token's `aud`, always as a list */
  aud: string[];
  /** every claim of the verified token */
  raw: JWTPayload;
}

export interface VerifyOptions {
  /** the nonce the login request sent; when given, the token's `nonce` must equal it */
  nonce?: string;
}

interface Discovered {
  at: number;
  jwksUri: string;
  algorithms: string[];
  jwks: ReturnType<typeof createRemoteJWKSet>;
}

export class OidcVerifier {
  readonly issuer: string;
  private readonly audiences: string[];
  private readonly tolerance: number;
  private readonly discoveryTtlMs: number;
  private readonly fetchTimeoutMs: number;
  private readonly tenantClaim: string;
  private readonly cacheClock: () => number;
  private readonly discoveryUrl: string;
  private discovered: Discovered | undefined;
  private pending: Promise<Discovered> | undefined;

  constructor(opts: OidcVerifierOptions) {
    const config = (message: string) => authError(AUTH_ERRORS.OIDC_CONFIG_INVALID, message, 'invalid');
    if (!fetchableUrl(opts.issuer)) throw config(`issuer must be an https URL (http only on a loopback host): ${String(opts.issuer).slice(0, 200)}`);
    const audiences = typeof opts.audience === 'string' ? [opts.audience] : opts.audience;
    if (!Array.isArray(audiences) || audiences.length === 0 || audiences.some((a) => typeof a !== 'string' || a === '')) throw config('audience must be a client id or a non-empty list of them');
    const tolerance = opts.clockToleranceSeconds ?? 30;
    if (!Number.isFinite(tolerance) || tolerance < 0 || tolerance > 600) throw config('clockToleranceSeconds must be between 0 and 600');
    this.issuer = opts.issuer;
    this.audiences = [...audiences];
    this.tolerance = tolerance;
    this.discoveryTtlMs = opts.discoveryTtlMs ?? DEFAULT_DISCOVERY_TTL_MS;
    this.fetchTimeoutMs = opts.fetchTimeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS;
    this.tenantClaim = opts.tenantClaim ?? 'tenant';
    this.cacheClock = opts.cacheClock ?? Date.now;
    // OpenID Connect Discovery §4: the well-known path goes after the issuer's own path
    this.discoveryUrl = `${opts.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  }

  async verify(idToken: string, opts: VerifyOptions = {}): Promise<IdTokenClaims> {
    if (typeof idToken !== 'string' || idToken === '') throw invalidToken('format', 'the id_token is empty');
    if (idToken.length > MAX_ID_TOKEN_LENGTH) {
      throw authError(AUTH_ERRORS.ID_TOKEN_TOO_LARGE, `the id_token is ${idToken.length} characters; the limit is ${MAX_ID_TOKEN_LENGTH}`, 'invalid', { reason: 'size', limit: MAX_ID_TOKEN_LENGTH });
    }
    // refuse what cannot be a provider-signed JWS before any network request
    const alg = headerAlg(idToken);
    const discovered = await this.provider();
    if (!discovered.algorithms.includes(alg)) {
      throw invalidToken('alg', `the id_token is signed with ${alg}; this provider's tokens are accepted with ${discovered.algorithms.join(', ')}`);
    }

    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(idToken, this.keys(discovered), {
        algorithms: discovered.algorithms,
        issuer: this.issuer,
        audience: this.audiences,
        clockTolerance: this.tolerance,
        requiredClaims: ['sub', 'iat', 'exp'],
      }));
    } catch (err) {
      throw this.explain(err, idToken);
    }
    return this.claims(payload, opts);
  }

  /** The checks jose does not do: azp, iat not in the future, the nonce, the claims' types. */
  private claims(payload: JWTPayload, opts: VerifyOptions): IdTokenClaims {
    const aud = typeof payload.aud === 'string' ? [payload.aud] : (payload.aud ?? []);
    const azp = payload['azp'];
    if (azp !== undefined && (typeof azp !== 'string' || !this.audiences.includes(azp))) {
      throw invalidToken('azp', `the id_token's azp (${String(azp).slice(0, 100)}) is not this service's client id`);
    }
    if (aud.length > 1 && azp === undefined) throw invalidToken('azp', 'the id_token has several audiences but no azp');
    const now = Math.floor(Date.now() / 1000);
    if ((payload.iat as number) > now + this.tolerance) throw invalidToken('iat', `the id_token's iat is ${(payload.iat as number) - now} s in the future`);
    if (typeof payload.sub !== 'string' || payload.sub === '' || payload.sub.length > 255) throw invalidToken('sub', 'the id_token\'s sub is not a string of 1 to 255 characters');
    if (opts.nonce !== undefined && payload['nonce'] !== opts.nonce) throw invalidToken('nonce', 'the id_token\'s nonce does not match the login request');

    const out: IdTokenClaims = { sub: payload.sub, iss: payload.iss as string, aud, raw: payload };
    const email = payload['email'];
    const verified = payload['email_verified'];
    const name = payload['name'];
    const tenant = payload[this.tenantClaim];
    if (typeof email === 'string') out.email = email;
    if (typeof verified === 'boolean') out.emailVerified = verified;
    if (typeof name === 'string') out.name = name;
    if (typeof tenant === 'string') out.tenant = tenant;
    return out;
  }

  /**
   * The provider's discovery, cached for discoveryTtlMs; concurrent callers share one request.
   * When a refresh fails, the last good document keeps serving: an outage of the provider
   * should not log every operator out while its keys are still cached.
   */
  private async provider(): Promise<Discovered> {
    const cached = this.discovered;
    if (cached && this.cacheClock() - cached.at < this.discoveryTtlMs) return cached;
    this.pending ??= this.discover().finally(() => {
      this.pending = undefined;
    });
    try {
      return await this.pending;
    } catch (err) {
      if (cached) return cached;
      throw err;
    }
  }

  private async discover(): Promise<Discovered> {
    const doc = await this.fetchDiscovery();
    const bad = (message: string) => authError(AUTH_ERRORS.OIDC_DISCOVERY_INVALID, `the OpenID provider ${this.issuer}: ${message}`, 'conflict');
    if (doc['issuer'] !== this.issuer) {
      throw bad(`its discovery document names the issuer ${JSON.stringify(String(doc['issuer']).slice(0, 200))}, not the configured one`);
    }
    const jwksUri = doc['jwks_uri'];
    if (typeof jwksUri !== 'string' || !fetchableUrl(jwksUri)) throw bad('its discovery document has no https jwks_uri');
    const advertised = doc['id_token_signing_alg_values_supported'];
    const algorithms = Array.isArray(advertised)
      ? ASYMMETRIC_ALGS.filter((a) => advertised.includes(a))
      : [...ASYMMETRIC_ALGS];
    if (algorithms.length === 0) throw bad(`it signs id_tokens only with ${JSON.stringify(advertised).slice(0, 200)}; an asymmetric algorithm is required`);
    // keep the same key set while jwks_uri is unchanged, so its key cache survives a refresh
    const jwks =
      this.discovered?.jwksUri === jwksUri
        ? this.discovered.jwks
        : createRemoteJWKSet(new URL(jwksUri), { timeoutDuration: this.fetchTimeoutMs });
    this.discovered = { at: this.cacheClock(), jwksUri, algorithms, jwks };
    return this.discovered;
  }

  private async fetchDiscovery(): Promise<Record<string, unknown>> {
    const down = (why: string, cause?: unknown) =>
      authError(AUTH_ERRORS.OIDC_PROVIDER_UNAVAILABLE, `the OpenID provider ${this.issuer} is unavailable: discovery ${why}`, 'conflict', {}, cause);
    let res: Response;
    try {
      res = await fetch(this.discoveryUrl, { redirect: 'error', signal: AbortSignal.timeout(this.fetchTimeoutMs), headers: { accept: 'application/json' } });
    } catch (err) {
      throw down(err instanceof Error && err.name === 'TimeoutError' ? `timed out after ${this.fetchTimeoutMs} ms` : `failed (${networkReason(err)})`, err);
    }
    if (res.status !== 200) {
      await res.body?.cancel();
      throw down(`answered HTTP ${res.status}`);
    }
    let text: string;
    try {
      text = await res.text();
    } catch (err) {
      throw down(`response could not be read (${networkReason(err)})`, err);
    }
    if (text.length > MAX_DISCOVERY_BYTES) throw down(`document is over ${MAX_DISCOVERY_BYTES} bytes`);
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (err) {
      throw down('document is not JSON', err);
    }
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw down('document is not a JSON object');
    return doc as Record<string, unknown>;
  }

  /** The key lookup jose calls: a provider that cannot be reached is the provider's problem, not the token's. */
  private keys(discovered: Discovered) {
    return async (header: JWSHeaderParameters, token: FlattenedJWSInput) => {
      try {
        return await discovered.jwks(header, token);
      } catch (err) {
        // no key for the kid (after one refetch), or several candidates (jose tries each): the token's problem
        if (err instanceof jose.JWKSNoMatchingKey || err instanceof jose.JWKSMultipleMatchingKeys || err instanceof jose.JOSENotSupported) throw err;
        const why = err instanceof jose.JWKSTimeout ? `timed out after ${this.fetchTimeoutMs} ms` : err instanceof jose.JWKSInvalid ? 'is not a JWK Set' : `failed (${networkReason(err)})`;
        throw authError(AUTH_ERRORS.OIDC_PROVIDER_UNAVAILABLE, `the OpenID provider ${this.issuer} is unavailable: its JWKS ${why}`, 'conflict', {}, err);
      }
    };
  }

  /** Turns what jose threw into a precise, typed error: which check failed, and on what value. */
  private explain(err: unknown, idToken: string): unknown {
    if (isLedgerError(err)) return err;
    if (err instanceof jose.JWTExpired) {
      return authError(AUTH_ERRORS.ID_TOKEN_EXPIRED, `the id_token expired at ${isoTime(err.payload.exp)}`, 'invalid', { reason: 'exp' }, err);
    }
    if (err instanceof jose.JWTClaimValidationFailed) {
      const p = err.payload;
      const show = (v: unknown) => JSON.stringify(v)?.slice(0, 200) ?? 'nothing';
      if (err.reason === 'missing') return invalidToken(err.claim, `the id_token has no ${err.claim} claim`, err);
      switch (err.claim) {
        case 'iss':
          return invalidToken('iss', `the id_token's iss ${show(p.iss)} is not the configured issuer ${show(this.issuer)}`, err);
        case 'aud':
          return invalidToken('aud', `the id_token's aud ${show(p.aud)} does not include ${show(this.audiences.length === 1 ? this.audiences[0] : this.audiences)}`, err);
        case 'nbf':
          return invalidToken('nbf', `the id_token is not valid before ${isoTime(p.nbf)}`, err);
        default:
          return invalidToken(err.claim, `the id_token's ${err.claim} claim is invalid: ${err.message}`, err);
      }
    }
    if (err instanceof jose.JWSSignatureVerificationFailed) return invalidToken('signature', 'the id_token\'s signature does not verify with the provider\'s key', err);
    if (err instanceof jose.JWKSNoMatchingKey) {
      return invalidToken('kid', `no key of the provider matches the id_token's header (kid ${JSON.stringify(safeHeader(idToken).kid ?? null)})`, err);
    }
    if (err instanceof jose.JWKSMultipleMatchingKeys) return invalidToken('signature', 'the id_token\'s signature does not verify with any of the provider\'s matching keys', err);
    if (err instanceof jose.JOSEAlgNotAllowed) return invalidToken('alg', 'the id_token\'s alg is not accepted', err);
    if (err instanceof jose.JOSENotSupported) return invalidToken('alg', `the id_token uses something not supported: ${err.message}`, err);
    if (err instanceof jose.JWSInvalid || err instanceof jose.JWTInvalid) return invalidToken('format', `the id_token is malformed: ${err.message}`, err);
    return err;
  }
}

function invalidToken(reason: string, message: string, cause?: unknown) {
  return authError(AUTH_ERRORS.ID_TOKEN_INVALID, message, 'invalid', { reason }, cause);
}

/** The protected header's alg, refusing anything that is not a three-part JWS with an asymmetric alg. */
function headerAlg(idToken: string): string {
  if (idToken.split('.').length !== 3) throw invalidToken('format', 'the id_token is not a signed JWT (three dot-separated parts)');
  let header: JWSHeaderParameters;
  try {
    header = decodeProtectedHeader(idToken) as JWSHeaderParameters;
  } catch {
    throw invalidToken('format', 'the id_token\'s header is not base64url JSON');
  }
  const alg = header.alg;
  if (typeof alg !== 'string') throw invalidToken('alg', 'the id_token\'s header has no alg');
  if (!(ASYMMETRIC_ALGS as readonly string[]).includes(alg)) {
    throw invalidToken('alg', `the id_token's alg ${JSON.stringify(alg.slice(0, 20))} is refused: only asymmetric signatures (${ASYMMETRIC_ALGS.join(', ')}) are accepted`);
  }
  return alg;
}

function safeHeader(idToken: string): JWSHeaderParameters {
  try {
    return decodeProtectedHeader(idToken) as JWSHeaderParameters;
  } catch {
    return {};
  }
}

/** https anywhere; plain http only to this machine, where nobody sits on the wire. */
function fetchableUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol === 'https:') return true;
  return url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
}

/** A short reason for a network failure: fetch says only "fetch failed" and puts the real one in `cause`. */
function networkReason(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (cause && typeof cause.message === 'string' && cause.message !== '') return cause.message.slice(0, 200);
  if (cause && typeof cause.code === 'string') return cause.code;
  if (err instanceof Error) return err.message.slice(0, 200);
  return 'unknown error';
}

function isoTime(seconds: unknown): string {
  return typeof seconds === 'number' && Number.isFinite(seconds) ? new Date(seconds * 1000).toISOString() : String(seconds);
}
