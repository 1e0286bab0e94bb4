import { Reply } from '../../../common/http/router.js';
import { type RouteDeps } from '../router.js';
import { onlyQuery } from '../../../common/http/validate.js';

/**
 * The tenant's operators: everyone who has logged in to it through the OIDC handoff (recorded at
 * their first POST /v1/auth/session). Inviting is not in v0: POST /v1/team always answers 501
 * with `{error}`, a plain body, not Problem Details, as the contract states.
 */

export const TEAM_INVITE_UNAVAILABLE = 'operator invite is unavailable in v0';

export function mountTeam({ router, operators }: RouteDeps): void {
  router.add('GET', '/v1/team', 'read', async (req) => {
    onlyQuery(req.query, []);
    const list = await operators.list(req.tenantId);
    return list
      .sort((a, b) => a.firstLoginAt.localeCompare(b.firstLoginAt) || a.id.localeCompare(b.id))
      .map((o) => ({ id: o.id, did: o.did, email: o.email, name: o.name, role: o.role, firstLoginAt: o.firstLoginAt, lastLoginAt: o.lastLoginAt }));
  });

  router.add('POST', '/v1/team', 'none', () => new Reply(501, { error: TEAM_INVITE_UNAVAILABLE }));
}
