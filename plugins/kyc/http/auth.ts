import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestContext } from '../../../node/http/server.js';
import { bearerToken } from '../../common/auth/bearer.js';
import type { SessionTokens } from '../../common/auth/session-token.js';
import { HttpProblem, noCredential, unauthorized } from '../../common/http/problems.js';
import type { Authenticator } from '../../common/http/router.js';
import type { ApiKeyService } from '../accounts/api-keys.js';
import type { AccountService } from '../accounts/service.js';
import type { KycCaller, KycLevel } from './auth-levels.js';

/**
 * The credentials of the KYC surface (seed "Authentication"), by route level:
 *
 *   jwt       Authorization: Bearer <account JWT>
 *   apiKey    x-api-key: <sk_live_… or sk_sandbox_…>
 *   bearer    Authorization: Bearer <account JWT or API key> (webhook management, which the seed
 *             shows with either); an x-api-key header is taken there too when no Authorization is sent
 *   operator  Authorization: Bearer <plugins.kyc.operatorToken>; 503 while it is unset
 *
 * A missing credential and a wrong one are both 401, with a detail that says which credential
 * the route takes and what was wrong with the one sent.
 */

const REALM = 'kyc';

export interface KycAuthDeps {
  tokens: Pick<SessionTokens, 'verify'>;
  accounts: Pick<AccountService, 'checkSession'>;
  apiKeys: Pick<ApiKeyService, 'authenticate'>;
  operatorToken: string | undefined;
}

const isApiKey = (token: string): boolean => token.startsWith('sk_');

export class KycAuthenticator implements Authenticator<KycLevel, KycCaller> {
  private readonly operatorDigest: Buffer | undefined;

  constructor(private readonly deps: KycAuthDeps) {
    this.operatorDigest = deps.operatorToken === undefined ? undefined : digest(deps.operatorToken);
  }

  async require(ctx: RequestContext, level: Exclude<KycLevel, 'none'>): Promise<KycCaller> {
    switch (level) {
      case 'jwt':
        return this.jwt(ctx);
      case 'apiKey':
        return this.apiKey(ctx);
      case 'bearer':
        return this.bearer(ctx);
      case 'operator':
        return this.operator(ctx);
      case 'member':
        return this.member(ctx);
    }
  }

  private async jwt(ctx: RequestContext): Promise<KycCaller> {
    const token = this.bearerOf(ctx, 'this route needs Authorization: Bearer <account JWT> (from register, login or a provider login)');
    if (isApiKey(token)) throw unauthorized(REALM, 'this route needs an account JWT, not an API key; API keys are for /v1/verifications (x-api-key) and /v1/webhooks', 'JWT_REQUIRED');
    return this.fromJwt(token);
  }

  private async apiKey(ctx: RequestContext): Promise<KycCaller> {
    const header = ctx.req.headers['x-api-key'];
    if (header === undefined) {
      const detail = ctx.req.headers.authorization !== undefined
        ? 'this route takes the API key in the x-api-key header, not in Authorization'
        : 'this route needs x-api-key: <sk_live_… or sk_sandbox_… API key>';
      throw noCredential(REALM, detail);
    }
    if (typeof header !== 'string') throw unauthorized(REALM, 'send one x-api-key header', 'API_KEY_MALFORMED');
    return this.fromApiKey(header.trim());
  }

  private async bearer(ctx: RequestContext): Promise<KycCaller> {
    if (ctx.req.headers.authorization === undefined && typeof ctx.req.headers['x-api-key'] === 'string') return this.fromApiKey(ctx.req.headers['x-api-key'].trim());
    const token = this.bearerOf(ctx, 'this route needs Authorization: Bearer <account JWT or sk_ API key>');
    return isApiKey(token) ? this.fromApiKey(token) : this.fromJwt(token);
  }

  private operator(ctx: RequestContext): KycCaller {
    if (this.operatorDigest === undefined) {
      throw new HttpProblem('not-configured', 'the operator routes are off: set plugins.kyc.operatorToken to turn them on', { code: 'OPERATOR_NOT_CONFIGURED' });
    }
    const token = this.bearerOf(ctx, 'this route needs Authorization: Bearer <operator token> (plugins.kyc.operatorToken)');
    // digests of equal length, so the comparison takes the same time whatever was sent
    if (!timingSafeEqual(digest(token), this.operatorDigest)) throw unauthorized(REALM, 'the operator token is wrong', 'OPERATOR_TOKEN_INVALID');
    return { organizationId: '', via: 'operator' };
  }

  /** x-api-key exactly as on apiKey routes; otherwise the Bearer operator token or an account JWT. */
  private async member(ctx: RequestContext): Promise<KycCaller> {
    if (ctx.req.headers['x-api-key'] !== undefined) return this.apiKey(ctx);
    const token = this.bearerOf(ctx, 'this route needs x-api-key: <API key>, or Authorization: Bearer <account JWT>');
    if (this.operatorDigest !== undefined && timingSafeEqual(digest(token), this.operatorDigest)) return { organizationId: '', via: 'operator' };
    if (isApiKey(token)) throw noCredential(REALM, 'this route takes the API key in the x-api-key header, not in Authorization');
    return this.fromJwt(token);
  }

  private bearerOf(ctx: RequestContext, missing: string): string {
    const token = bearerToken(ctx.req);
    if (token !== undefined) return token;
    if (ctx.req.headers.authorization === undefined) throw noCredential(REALM, missing);
    throw unauthorized(REALM, 'the Authorization header is not "Bearer <token>"', 'AUTHORIZATION_MALFORMED');
  }

  private async fromJwt(token: string): Promise<KycCaller> {
    const claims = await this.deps.tokens.verify(token);
    const user = await this.deps.accounts.checkSession(claims);
    // read from the account on every request, so a role change or a removal counts at once
    return { organizationId: user.organizationId, via: 'jwt', userId: user.id, role: user.role ?? 'owner' };
  }

  private async fromApiKey(key: string): Promise<KycCaller> {
    const k = await this.deps.apiKeys.authenticate(key);
    return { organizationId: k.organizationId, via: 'api-key', apiKey: { id: k.keyId, mode: k.mode } };
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
