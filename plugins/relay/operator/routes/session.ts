import { createHash } from 'node:crypto';
import { bearerToken } from '../../../common/auth/bearer.js';
import { OPERATOR_KIND, PLAN, type OperatorRecord } from '../auth.js';
import { HttpProblem, conflict, unauthorized } from '../../../common/http/problems.js';
import { didClaim } from '../operators.js';
import type { RouteDeps } from '../router.js';
import { onlyFields, requiredString } from '../../../common/http/validate.js';

/**
 * Operator sessions (seed 000 "Operator session"). POST /v1/auth/session exchanges a verified
 * OIDC id_token for a session JWT: the operator is identified by the provider's (iss, sub),
 * never by email; the tenant comes from the token's `tenant` claim (else `default`), and the
 * operator is recorded in that tenant on first login so /v1/team can list them. Logout is
 * stateless: the client drops the token, which keeps working until it expires. Every operator
 * has a DID (operators.ts): the token's `did` claim, else one minted at first login; the session
 * carries it. An API key answers /v1/auth/me with the DID and email of the operator who made it.
 */

export const DEFAULT_TENANT = 'default';
/** a tenant id goes into store keys and webhook records: printable, short, no separators */
export const TENANT_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;
const ROLE = 'owner';

/** A stable operator id from the provider and its subject: `op_` and 24 hex of SHA-256(iss LF sub). */
export function operatorId(iss: string, sub: string): string {
  return `op_${createHash('sha256').update(`${iss}\n${sub}`, 'utf8').digest('hex').slice(0, 24)}`;
}

/** `43200` -> `12h`, `90` -> `90s`: the lifetime as the contract spells it. */
export function ttlText(seconds: number): string {
  if (seconds % 86_400 === 0 && seconds >= 86_400 * 2) return `${seconds / 86_400}d`;
  if (seconds % 3600 === 0) return `${seconds / 3600}h`;
  if (seconds % 60 === 0) return `${seconds / 60}m`;
  return `${seconds}s`;
}

export function mountSession({ router, auth, authenticator, operators, services, now }: RouteDeps): void {

  router.add('POST', '/v1/auth/session', 'none', async (req) => {
    if (!auth.oidc) {
      throw new HttpProblem('not-configured', 'operator login is not configured: set plugins.relay.oidc = {issuer, audience} to accept id tokens from your OpenID provider');
    }
    const body = await req.body();
    onlyFields(body, ['id_token']);
    const idToken = requiredString(body, 'id_token', { max: 8192 });
    const claims = await auth.oidc.verify(idToken);
    const tenantId = claims.tenant ?? DEFAULT_TENANT;
    if (!TENANT_PATTERN.test(tenantId)) {
      throw new HttpProblem('forbidden', `the id_token's tenant claim ${JSON.stringify(tenantId.slice(0, 80))} is not a usable tenant id (1 to 64 of A-Z, a-z, 0-9, . _ : -, starting with a letter or digit)`);
    }
    const id = operatorId(claims.iss, claims.sub);
    const did = didClaim(claims.raw['did']);
    const email = claims.email ?? null;
    const at = new Date(now()).toISOString();
    const { record, first } = await operators.upsert(tenantId, id, (known) => ({
      id,
      did,
      email,
      name: claims.name ?? null,
      role: known?.role ?? ROLE,
      issuer: claims.iss,
      subject: claims.sub,
      firstLoginAt: known?.firstLoginAt ?? at,
      lastLoginAt: at,
    }));
    const { token } = await auth.sessions.issue({ sub: id, tenantId, role: record.role, did: record.did!, ...(email !== null ? { email } : {}) });
    services.log.info({ operator: id, tenant: tenantId, first }, 'operator logged in');
    return { token, expiresIn: ttlText(auth.sessions.ttlSeconds), operator: { id, did: record.did, email, role: record.role } };
  });

  router.add('GET', '/v1/auth/me', 'read', async (req) => {
    const c = req.caller;
    if (c.via === 'session') {
      // a session issued before operators had DIDs carries none: the record has it (or gets it now)
      const did = c.session!.did ?? (await operators.get(c.tenantId, c.id))?.did;
      if (did === undefined) throw unauthorized('relay', 'this session names an operator the tenant has no record of; log in again');
      return {
        authenticated: true,
        tenantId: c.tenantId,
        operator: { id: c.id, did, email: c.session!.email, role: c.session!.role, plan: PLAN },
        via: 'session',
        expiresAt: new Date(c.session!.exp * 1000).toISOString(),
      };
    }
    const creator = await operators.creatorOf(c.tenantId, c.id);
    if (!creator) throw conflict(`no operator of this tenant is recorded as the creator of API key ${c.id}`, 'API_KEY_CREATOR_UNKNOWN');
    return {
      authenticated: true,
      tenantId: c.tenantId,
      operator: { id: c.id, did: creator.did, email: creator.email, role: 'api-key', plan: PLAN, createdBy: creator.id },
      via: 'api-key',
      apiKey: c.apiKey,
    };
  });

  router.add('POST', '/v1/auth/logout', 'none', async (req) => {
    // A valid session gets its expiry echoed; anything else (none, expired, a key) still gets 200.
    let expiresAt: string | null = null;
    const token = bearerToken(req.ctx.req);
    if (token !== undefined && !token.startsWith('slk_')) {
      try {
        expiresAt = new Date((await authenticator.authenticate(req.ctx)).session!.exp * 1000).toISOString();
      } catch {
        expiresAt = null;
      }
    }
    return {
      ok: true,
      revoked: false,
      note: 'sessions are stateless: discard the token on the client; it stays valid until it expires. Revoke API keys with DELETE /v1/api-keys/<id>.',
      ...(expiresAt !== null ? { expiresAt } : {}),
    };
  });
}
