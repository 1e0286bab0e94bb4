import { validation } from '../../../common/http/problems.js';
import { readObject } from '../../../common/http/router.js';
import { onlyFields, onlyQuery, optionalString } from '../../../common/http/validate.js';
import { MAX_LOGO_BYTES, parseBranding } from '../../accounts/branding.js';
import type { AccountService } from '../../accounts/service.js';
import type { Organization } from '../../types.js';
import { CAN, requireRole } from '../roles.js';
import type { KycRouter } from '../router.js';

/**
 * The caller's organization (account JWT): `GET /v1/organization` for any member, `PATCH` for
 * owners and admins, `{name?, branding?: {color?, logo?}}` (null clears a branding field).
 */

/** a logo of MAX_LOGO_BYTES is about 4/3 of it in base64, plus the rest of the body */
export const ORGANIZATION_BODY_MAX = Math.ceil((MAX_LOGO_BYTES * 4) / 3) + 32 * 1024;

export const publicOrganization = (o: Organization) => ({
  id: o.id,
  name: o.name,
  email: o.email,
  plan: o.plan,
  branding: { color: o.branding?.color ?? null, logo: o.branding?.logo ?? null },
  createdAt: o.createdAt,
});

export function mountOrganization(router: KycRouter, deps: { accounts: Pick<AccountService, 'me' | 'updateOrganization'> }): void {
  router.add('GET', '/v1/organization', 'jwt', async (req) => {
    onlyQuery(req.query, []);
    return publicOrganization((await deps.accounts.me(req.caller.userId!)).organization);
  });

  router.add('PATCH', '/v1/organization', 'jwt', async (req) => {
    requireRole(req.caller, CAN.administer);
    const body = await readObject(req.ctx, ORGANIZATION_BODY_MAX);
    onlyFields(body, ['name', 'branding']);
    const name = optionalString(body, 'name', { max: 100 })?.trim();
    if (body.name === null) throw validation('name cannot be cleared; give a new one or leave it out', 'name');
    const patch = { ...(name === undefined ? {} : { name }), ...(body.branding === undefined ? {} : { branding: parseBranding(body.branding) }) };
    if (Object.keys(patch).length === 0) throw validation('nothing to change: give name or branding');
    return publicOrganization(await deps.accounts.updateOrganization(req.tenantId, patch));
  });
}
