import { Reply } from '../../../common/http/router.js';
import { oneOf, onlyFields, onlyQuery } from '../../../common/http/validate.js';
import type { Actor, TeamService } from '../../accounts/team.js';
import { ROLES } from '../../types.js';
import { CAN, requireRole, roleOf } from '../roles.js';
import type { KycRequest, KycRouter } from '../router.js';
import { email } from './auth.js';

/**
 * The organization's team (account JWT). Any member reads it; owners and admins change it:
 *
 *   GET    /v1/team                          {members[], invitations[]}
 *   POST   /v1/team/invitations              {email, role} → 201 the invitation; the link goes by mail
 *   DELETE /v1/team/invitations/<id>         {message}; the link stops working
 *   PATCH  /v1/team/members/<userId>         {role} → the member; counts from its next request
 *   DELETE /v1/team/members/<userId>         {message}; its JWTs stop working at once
 *
 * The invited accept at POST /v1/auth/accept-invitation (routes/auth.ts).
 */

const actor = (req: KycRequest<'jwt'>): Actor => ({ organizationId: req.tenantId!, userId: req.caller.userId!, role: roleOf(req.caller)! });

export function mountTeam(router: KycRouter, deps: { team: TeamService }): void {
  const { team } = deps;

  router.add('GET', '/v1/team', 'jwt', async (req) => {
    requireRole(req.caller, CAN.read);
    onlyQuery(req.query, []);
    return team.list(req.tenantId);
  });

  router.add('POST', '/v1/team/invitations', 'jwt', async (req) => {
    requireRole(req.caller, CAN.administer);
    const body = await req.body();
    onlyFields(body, ['email', 'role']);
    const address = email(body);
    const role = oneOf(body.role, 'role', ROLES);
    return new Reply(201, await team.invite(actor(req), address, role));
  });

  router.add('DELETE', /^\/v1\/team\/invitations\/([^/]+)$/, 'jwt', async (req) => {
    requireRole(req.caller, CAN.administer);
    const id = req.params[0]!;
    await team.revokeInvitation(req.tenantId, id);
    return { message: `invitation ${id} withdrawn; its link no longer works` };
  });

  router.add('PATCH', /^\/v1\/team\/members\/([^/]+)$/, 'jwt', async (req) => {
    requireRole(req.caller, CAN.administer);
    const body = await req.body();
    onlyFields(body, ['role']);
    return team.changeRole(actor(req), req.params[0]!, oneOf(body.role, 'role', ROLES));
  });

  router.add('DELETE', /^\/v1\/team\/members\/([^/]+)$/, 'jwt', async (req) => {
    requireRole(req.caller, CAN.administer);
    const id = req.params[0]!;
    await team.remove(actor(req), id);
    return { message: `member ${id} removed; its sessions no longer work` };
  });
}
