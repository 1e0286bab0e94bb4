import t from 'tap';
import { OPERATOR_TOKEN, startKycNode } from './kyc/setup.js';

/**
 * A KYC organization's team on a real node process: the owner invites a reviewer, the invitation
 * mail lands in the operator's outbox, the reviewer accepts and signs in with its role; the owner
 * brands the organization. After a restart the team, the roles and the branding are all there,
 * and removing the member ends its session at once.
 */

const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

t.test('invite, accept, roles and branding survive a restart; a removed member is refused', async (t) => {
  const n = await startKycNode(t);
  const call = async (method: string, path: string, o: { token?: string; body?: unknown } = {}) => {
    const headers: Record<string, string> = {};
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    if (o.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(n.kyc + path, { method, headers, ...(o.body !== undefined ? { body: JSON.stringify(o.body) } : {}) });
    return { status: res.status, body: (await res.json()) as any };
  };

  const owner = (await call('POST', '/v1/auth/register', { body: { email: 'owner@team.test', password: 'owner password 1', name: 'Owner', organizationName: 'Team Ltd' } })).body;
  t.equal(owner.user.role, 'owner');
  const invited = await call('POST', '/v1/team/invitations', { token: owner.token, body: { email: 'rev@team.test', role: 'reviewer' } });
  t.equal(invited.status, 201);
  const mail = (await call('GET', '/v1/operator/mail', { token: OPERATOR_TOKEN })).body.mails.find((m: any) => m.to === 'rev@team.test');
  const link = /(\S+\/dashboard\/#\/accept\?token=(inv_[\w-]+))/.exec(mail.text);
  t.ok(link, 'the mail carries the dashboard link');
  t.ok(link![1]!.startsWith(n.kyc), 'on the service\'s public URL');
  const accepted = await call('POST', '/v1/auth/accept-invitation', { body: { token: link![2], name: 'Rev', password: 'reviewer password' } });
  t.equal(accepted.status, 201);
  t.equal(accepted.body.user.role, 'reviewer');
  t.equal((await call('POST', '/v1/api-keys', { token: accepted.body.token, body: { name: 'k', mode: 'sandbox' } })).body.code, 'ROLE_FORBIDDEN');
  t.equal((await call('GET', '/v1/webhooks', { token: accepted.body.token })).body.code, 'ROLE_FORBIDDEN');
  t.equal((await call('POST', '/v1/team/invitations', { token: accepted.body.token, body: { email: 'x@team.test', role: 'reviewer' } })).body.code, 'ROLE_FORBIDDEN');
  const key = (await call('POST', '/v1/api-keys', { token: owner.token, body: { name: 'k', mode: 'sandbox' } })).body.key;
  t.equal((await call('GET', '/v1/webhooks', { token: key })).status, 200, 'an API key still manages webhooks');

  const branded = await call('PATCH', '/v1/organization', { token: owner.token, body: { branding: { color: '#336699', logo: `data:image/png;base64,${PNG_1X1}` } } });
  t.equal(branded.status, 200);

  await n.restart();
  const login = await call('POST', '/v1/auth/login', { body: { email: 'rev@team.test', password: 'reviewer password' } });
  t.equal(login.status, 200);
  t.equal(login.body.user.role, 'reviewer', 'the role is stored');
  const team = (await call('GET', '/v1/team', { token: login.body.token })).body;
  t.same(team.members.map((m: any) => [m.email, m.role]).sort(), [['owner@team.test', 'owner'], ['rev@team.test', 'reviewer']]);
  t.same((await call('GET', '/v1/organization', { token: login.body.token })).body.branding, { color: '#336699', logo: `data:image/png;base64,${PNG_1X1}` });

  t.equal((await call('DELETE', `/v1/team/members/${accepted.body.user.id}`, { token: owner.token })).status, 200);
  const refused = await call('GET', '/v1/auth/me', { token: login.body.token });
  t.equal(refused.status, 401);
  t.equal(refused.body.code, 'ACCOUNT_GONE');
});
