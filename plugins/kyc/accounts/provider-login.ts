import * as client from 'openid-client';
import type { Logger } from '../../../node/logging.js';
import type { OidcProviderConfig } from '../config.js';
import { ACCOUNT_ERRORS, accountProblem, accountUnauthorized } from './errors.js';
import type { AccountStore } from './store.js';

/**
 * Logins through an OpenID provider (`plugins.kyc.providers.<name>`): the authorization-code
 * flow with PKCE (S256), `state` and `nonce`, by the certified relying-party library
 * openid-client. `GET /v1/auth/<name>` stores a state row (the code verifier, the nonce and where
 * to land) and redirects to the provider; the provider sends the browser back to
 * `<publicUrl>/v1/auth/<name>/callback`, where the state row is spent and the code exchanged.
 *
 * Discovery runs on first use and is kept; a failed discovery is retried on the next login, so a
 * provider that is down at start does not keep the plugin from starting.
 *
 * `redirectUrl`: where the browser lands with its JWT. It must be on the origin of
 * plugins.kyc.loginRedirectUrl or of the service itself: an open redirect here would hand
 * the JWT to anyone who sends a victim a crafted login link.
 */

/** how long a login may take between the redirect to the provider and the callback */
export const LOGIN_STATE_TTL_MS = 10 * 60_000;
const FETCH_TIMEOUT_S = 10;
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

export interface ProviderIdentity {
  provider: string;
  issuer: string;
  sub: string;
  email?: string;
  emailVerified?: boolean;
  name?: string;
}

export interface ProviderLoginOptions {
  providers: Record<string, OidcProviderConfig>;
  store: AccountStore;
  /** the service's public base URL (callback URLs) */
  publicUrl: () => string;
  loginRedirectUrl: string | undefined;
  log: Logger;
  now: () => number;
}

export class ProviderLogins {
  private readonly configs = new Map<string, Promise<client.Configuration>>();

  constructor(private readonly opts: ProviderLoginOptions) {
    for (const [name, p] of Object.entries(opts.providers)) {
      const u = new URL(p.issuer);
      // plain http only to this machine, where nobody sits on the wire
      if (u.protocol !== 'https:' && !LOOPBACK.has(u.hostname)) {
        throw accountProblem('not-configured', ACCOUNT_ERRORS.PROVIDER_UNAVAILABLE, `plugins.kyc.providers.${name}.issuer must use https (plain http only on localhost)`);
      }
    }
  }

  names(): string[] {
    return Object.keys(this.opts.providers);
  }

  has(name: string): boolean {
    return Object.hasOwn(this.opts.providers, name);
  }

  callbackUrl(name: string): string {
    return `${this.opts.publicUrl()}/v1/auth/${name}/callback`;
  }

  /** Where the browser lands with its JWT, or null (answer JSON). Throws 400 for a URL off the allowed origins. */
  landing(redirectUrl: string | undefined): string | null {
    if (redirectUrl === undefined) return this.opts.loginRedirectUrl ?? null;
    let u: URL;
    try {
      u = new URL(redirectUrl);
    } catch {
      throw accountProblem('validation', ACCOUNT_ERRORS.REDIRECT_NOT_ALLOWED, 'redirectUrl is not an absolute URL', { field: 'redirectUrl' });
    }
    const allowed = [this.opts.loginRedirectUrl, this.opts.publicUrl()].filter((x): x is string => x !== undefined).map((x) => new URL(x).origin);
    if ((u.protocol !== 'https:' && u.protocol !== 'http:') || !allowed.includes(u.origin)) {
      throw accountProblem('validation', ACCOUNT_ERRORS.REDIRECT_NOT_ALLOWED, `redirectUrl must be on ${allowed.join(' or ')}`, { field: 'redirectUrl' });
    }
    u.hash = '';
    return u.href;
  }

  /** The provider's authorization URL for a new login; the state row is stored first. */
  async begin(name: string, redirectUrl: string | undefined): Promise<string> {
    const provider = this.provider(name);
    const landing = this.landing(redirectUrl);
    const config = await this.configuration(name);
    const now = this.opts.now();
    await this.opts.store.pruneStates(now - LOGIN_STATE_TTL_MS);
    const state = this.opts.store.newState(now);
    const codeVerifier = client.randomPKCECodeVerifier();
    const nonce = client.randomNonce();
    await this.opts.store.oidcState.put(state, { provider: name, codeVerifier, nonce, redirectUrl: landing, expiresAt: now + LOGIN_STATE_TTL_MS });
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: this.callbackUrl(name),
      scope: provider.scope,
      response_type: 'code',
      state,
      nonce,
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
    });
    return url.href;
  }

  /**
   * Completes the login the provider sent back to `currentUrl` (the callback URL with its
   * query): spends the state, exchanges the code, checks the id_token. Returns who logged in
   * and where to land.
   */
  async complete(name: string, currentUrl: URL): Promise<{ identity: ProviderIdentity; redirectUrl: string | null }> {
    this.provider(name);
    const state = currentUrl.searchParams.get('state');
    const row = state && /^[0-9]{13}\.[A-Za-z0-9_-]{32}$/.test(state) ? await this.opts.store.oidcState.get(state) : undefined;
    if (!state || !row || row.provider !== name) {
      throw accountProblem('validation', ACCOUNT_ERRORS.LOGIN_STATE_INVALID, 'this login is unknown, was already completed, or belongs to another provider; start again', { field: 'state' });
    }
    await this.opts.store.oidcState.del(state);
    if (row.expiresAt <= this.opts.now()) throw accountProblem('validation', ACCOUNT_ERRORS.LOGIN_STATE_INVALID, 'this login took longer than 10 minutes; start again', { field: 'state' });
    const providerError = currentUrl.searchParams.get('error');
    if (providerError !== null) {
      const description = currentUrl.searchParams.get('error_description');
      throw accountUnauthorized(ACCOUNT_ERRORS.PROVIDER_LOGIN_FAILED, `the provider ${name} refused the login: ${providerError.slice(0, 100)}${description ? ` (${description.slice(0, 200)})` : ''}`);
    }
    const config = await this.configuration(name);
    let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
    try {
      tokens = await client.authorizationCodeGrant(
        config,
        currentUrl,
        { pkceCodeVerifier: row.codeVerifier, expectedState: state, expectedNonce: row.nonce, idTokenExpected: true },
        { redirect_uri: this.callbackUrl(name) },
      );
    } catch (err) {
      throw this.explain(name, err);
    }
    const claims = tokens.claims();
    if (!claims) throw accountUnauthorized(ACCOUNT_ERRORS.PROVIDER_LOGIN_FAILED, `the provider ${name} returned no id_token`);
    const identity: ProviderIdentity = { provider: name, issuer: claims.iss, sub: claims.sub };
    if (typeof claims['email'] === 'string') identity.email = claims['email'];
    if (typeof claims['email_verified'] === 'boolean') identity.emailVerified = claims['email_verified'];
    if (typeof claims['name'] === 'string') identity.name = claims['name'];
    return { identity, redirectUrl: row.redirectUrl };
  }

  private provider(name: string): OidcProviderConfig {
    if (!this.has(name)) throw accountProblem('not-found', ACCOUNT_ERRORS.PROVIDER_UNKNOWN, `no login provider ${name.slice(0, 40)}; configured: ${this.names().join(', ') || 'none'}`);
    return this.opts.providers[name]!;
  }

  private configuration(name: string): Promise<client.Configuration> {
    const existing = this.configs.get(name);
    if (existing) return existing;
    const p = this.opts.providers[name]!;
    const loopback = new URL(p.issuer).protocol === 'http:';
    const made = client
      .discovery(new URL(p.issuer), p.clientId, undefined, p.clientSecret === undefined ? client.None() : client.ClientSecretBasic(p.clientSecret), {
        timeout: FETCH_TIMEOUT_S,
        ...(loopback ? { execute: [client.allowInsecureRequests] } : {}),
      })
      .catch((err: unknown) => {
        this.configs.delete(name);
        this.opts.log.warn({ err, provider: name, issuer: p.issuer }, 'login provider discovery failed');
        throw accountProblem('unavailable', ACCOUNT_ERRORS.PROVIDER_UNAVAILABLE, `the login provider ${name} cannot be reached (discovery at ${p.issuer} failed); try again later`);
      });
    this.configs.set(name, made);
    return made;
  }

  /** A provider that answered with an error, or a token that failed a check, is a failed login; a network failure is the provider being down. */
  private explain(name: string, err: unknown) {
    this.opts.log.warn({ err, provider: name }, 'provider login failed');
    if (err instanceof client.ResponseBodyError || err instanceof client.AuthorizationResponseError) {
      return accountUnauthorized(ACCOUNT_ERRORS.PROVIDER_LOGIN_FAILED, `the provider ${name} refused the code: ${err.error}${err.error_description ? ` (${err.error_description.slice(0, 200)})` : ''}`);
    }
    if (err instanceof client.ClientError) return accountUnauthorized(ACCOUNT_ERRORS.PROVIDER_LOGIN_FAILED, `the login through ${name} failed a check: ${err.message.slice(0, 200)}`);
    return accountProblem('unavailable', ACCOUNT_ERRORS.PROVIDER_UNAVAILABLE, `the login provider ${name} could not be reached; try again later`);
  }
}
