import t from 'tap';
import { INVITATION_TTL_MS, MAX_PENDING_INVITATIONS } from '../../../../../plugins/kyc/accounts/index.js';
import { harness, invitationToken, isProblem, joinTeam, MEMBER_PASSWORD, OPERATOR_TOKEN, uniqueEmail } from '../../accounts/harness.js';

t.test('invite, mail, accept: the new member signs in with its role', async (t) => {
  const h = await harness(t);
  const owner = await h.register(undefined, undefined, 'Olive Owner');
  const email = uniqueEmail('rev');
  const invited = await h.req('POST', '/v1/team/invitations', { token: owner.token, body: { email: `  ${email.toUpperCase()} `, role: 'reviewer' } });
  t.equal(invited.status, 201);
  t.same(Object.keys(invited.body).sort(), ['createdAt', 'email', 'expiresAt', 'id', 'invitedBy', 'role']);
  t.match(invited.body, { id: /^ivt_[0-9a-f]{24}$/, email, role: 'reviewer', invitedBy: owner.user.id });
  t.equal(Date.parse(invited.body.expiresAt) - Date.parse(invited.body.createdAt), INVITATION_TTL_MS);

  const box = (await h.req('GET', '/v1/operator/mail', { token: OPERATOR_TOKEN })).body.mails;
  t.equal(box.length, 1);
  t.equal(box[0].to, email);
  t.match(box[0].subject, "Olive Owner's organization");
  t.match(box[0].text, /Olive Owner invited you/);
  t.match(box[0].text, /as reviewer/);
  const token = await invitationToken(h, email);
  t.match(token, /^inv_[A-Za-z0-9_-]{43}$/);
  t.match(box[0].text, `${h.url}/dashboard/#/accept?token=${token}`);
  t.notOk(JSON.stringify(invited.body).includes(token), 'the token goes only into the mail');

  const team = await h.req('GET', '/v1/team', { token: owner.token });
  t.equal(team.status, 200);
  t.same(team.body.invitations, [invited.body], 'the invitation is pending');
  t.same(team.body.members, [{ id: owner.user.id, email: owner.user.email, name: 'Olive Owner', role: 'owner', totpEnabled: false, createdAt: owner.user.createdAt }]);

  h.clock.now += 1000;
  const accepted = await h.req('POST', '/v1/auth/accept-invitation', { body: { token, name: ' Rita ', password: MEMBER_PASSWORD } });
  t.equal(accepted.status, 201);
  t.same(Object.keys(accepted.body).sort(), ['token', 'user']);
  t.match(accepted.body.user, { id: /^usr_/, email, name: 'Rita', organizationId: owner.user.organizationId, role: 'reviewer' });
  isProblem(t, await h.req('POST', '/v1/auth/accept-invitation', { body: { token, name: 'Again', password: MEMBER_PASSWORD } }), 400, 'validation', 'INVITATION_INVALID');

  const login = await h.req('POST', '/v1/auth/login', { body: { email, password: MEMBER_PASSWORD } });
  t.equal(login.status, 200);
  t.same(login.body.user, accepted.body.user);
  const me = await h.req('GET', '/v1/auth/me', { token: login.body.token });
  t.equal(me.body.user.role, 'reviewer');
  t.equal(me.body.organization.id, owner.user.organizationId, 'in the inviting organization');

  const after = (await h.req('GET', '/v1/team', { token: login.body.token })).body;
  t.same(after.invitations, [], 'spent');
  t.same(after.members.map((m: any) => [m.email, m.role]), [[owner.user.email, 'owner'], [email, 'reviewer']], 'any member reads the team');
});

t.test('the invitation mail over SMTP; a mail that cannot be sent makes no invitation', async (t) => {
  const h = await harness(t, { smtp: true });
  const owner = await h.register();
  const email = uniqueEmail('dev');
  t.equal((await h.req('POST', '/v1/team/invitations', { token: owner.token, body: { email, role: 'developer' } })).status, 201);
  const mail = await h.smtp!.next(0);
  t.same(mail.to, [email]);
  const token = /#\/accept\?token=(inv_[\w-]+)/.exec(mail.text)![1]!;
  t.equal((await h.req('POST', '/v1/auth/accept-invitation', { body: { token, name: 'Dev', password: MEMBER_PASSWORD } })).body.user.role, 'developer');

  h.smtp!.refuse = true;
  isProblem(t, await h.req('POST', '/v1/team/invitations', { token: owner.token, body: { email: uniqueEmail(), role: 'admin' } }), 502, 'bad-gateway', 'INVITATION_MAIL_FAILED');
  t.same((await h.req('GET', '/v1/team', { token: owner.token })).body.invitations, []);
});

t.test('roles: a reviewer reads but changes nothing; a role change counts on the next request', async (t) => {
  const h = await harness(t);
  const owner = await h.register();
  const rev = await joinTeam(h, owner, 'reviewer');
  const dev = await joinTeam(h, owner, 'developer');
  const pending = (await h.req('POST', '/v1/team/invitations', { token: owner.token, body: { email: uniqueEmail(), role: 'admin' } })).body.id;

  for (const [method, path, body] of [
    ['POST', '/v1/api-keys', { name: 'k', mode: 'live' }],
    ['GET', '/v1/api-keys'],
    ['POST', '/v1/team/invitations', { email: uniqueEmail(), role: 'reviewer' }],
    ['DELETE', `/v1/team/invitations/${pending}`],
    ['PATCH', `/v1/team/members/${dev.user.id}`, { role: 'admin' }],
    ['DELETE', `/v1/team/members/${dev.user.id}`],
    ['PATCH', '/v1/organization', { name: 'x' }],
  ] as const) {
    isProblem(t, await h.req(method, path, { token: rev.token, ...(body ? { body } : {}) }), 403, 'forbidden', 'ROLE_FORBIDDEN');
  }
  for (const path of ['/v1/team', '/v1/organization', '/v1/auth/me']) t.equal((await h.req('GET', path, { token: rev.token })).status, 200, `a reviewer reads ${path}`);
  t.equal((await h.req('POST', '/v1/auth/totp/setup', { token: rev.token })).status, 200, 'and sets up TOTP');
  isProblem(t, await h.req('POST', '/v1/team/invitations', { token: dev.token, body: { email: uniqueEmail(), role: 'reviewer' } }), 403, 'forbidden', 'ROLE_FORBIDDEN');

  t.equal((await h.req('POST', '/v1/api-keys', { token: dev.token, body: { name: 'k', mode: 'sandbox' } })).status, 201, 'a developer makes API keys');
  const changed = await h.req('PATCH', `/v1/team/members/${dev.user.id}`, { token: owner.token, body: { role: 'reviewer' } });
  t.equal(changed.status, 200);
  t.match(changed.body, { id: dev.user.id, role: 'reviewer' });
  isProblem(t, await h.req('GET', '/v1/api-keys', { token: dev.token }), 403, 'forbidden', 'ROLE_FORBIDDEN');
  t.equal((await h.req('GET', '/v1/auth/me', { token: dev.token })).body.user.role, 'reviewer', 'the same JWT, the new role');
  await h.req('PATCH', `/v1/team/members/${rev.user.id}`, { token: owner.token, body: { role: 'admin' } });
  t.equal((await h.req('DELETE', `/v1/team/invitations/${pending}`, { token: rev.token })).status, 200, 'promoted: now it may');
});

t.test('owners: only an owner makes, changes or removes one; the last owner stays', async (t) => {
  const h = await harness(t);
  const owner = await h.register();
  const admin = await joinTeam(h, owner, 'admin');
  const dev = await joinTeam(h, owner, 'developer');

  isProblem(t, await h.req('PATCH', `/v1/team/members/${owner.user.id}`, { token: owner.token, body: { role: 'admin' } }), 409, 'conflict', 'LAST_OWNER');
  isProblem(t, await h.req('DELETE', `/v1/team/members/${owner.user.id}`, { token: owner.token }), 409, 'conflict', 'LAST_OWNER');
  isProblem(t, await h.req('PATCH', `/v1/team/members/${owner.user.id}`, { token: admin.token, body: { role: 'reviewer' } }), 403, 'forbidden', 'ROLE_FORBIDDEN');
  isProblem(t, await h.req('DELETE', `/v1/team/members/${owner.user.id}`, { token: admin.token }), 403, 'forbidden', 'ROLE_FORBIDDEN');
  isProblem(t, await h.req('PATCH', `/v1/team/members/${dev.user.id}`, { token: admin.token, body: { role: 'owner' } }), 403, 'forbidden', 'ROLE_FORBIDDEN');
  isProblem(t, await h.req('POST', '/v1/team/invitations', { token: admin.token, body: { email: uniqueEmail(), role: 'owner' } }), 403, 'forbidden', 'ROLE_FORBIDDEN');
  t.equal((await h.req('PATCH', `/v1/team/members/${dev.user.id}`, { token: admin.token, body: { role: 'reviewer' } })).status, 200, 'an admin changes a non-owner');

  const second = await joinTeam(h, owner, 'owner');
  t.equal(second.user.role, 'owner', 'an owner invites an owner');
  t.equal((await h.req('PATCH', `/v1/team/members/${owner.user.id}`, { token: owner.token, body: { role: 'admin' } })).status, 200, 'with two owners, one may step down');
  isProblem(t, await h.req('DELETE', `/v1/team/members/${second.user.id}`, { token: second.token }), 409, 'conflict', 'LAST_OWNER');
  t.same((await h.req('GET', '/v1/team', { token: owner.token })).body.members.filter((m: any) => m.role === 'owner').map((m: any) => m.id), [second.user.id]);

  isProblem(t, await h.req('PATCH', `/v1/team/members/${dev.user.id}`, { token: second.token, body: { role: 'boss' } }), 400, 'validation');
  isProblem(t, await h.req('PATCH', `/v1/team/members/${dev.user.id}`, { token: second.token, body: { role: 'admin', name: 'x' } }), 400, 'validation');
  const other = await h.register();
  isProblem(t, await h.req('PATCH', `/v1/team/members/${dev.user.id}`, { token: other.token, body: { role: 'admin' } }), 404, 'not-found', 'MEMBER_NOT_FOUND');
  isProblem(t, await h.req('DELETE', `/v1/team/members/${dev.user.id}`, { token: other.token }), 404, 'not-found', 'MEMBER_NOT_FOUND');
});

t.test('a removed member: its JWT is refused at once, its address is free again', async (t) => {
  const h = await harness(t);
  const owner = await h.register();
  const email = uniqueEmail('gone');
  const dev = await joinTeam(h, owner, 'developer', email);
  t.equal((await h.req('GET', '/v1/auth/me', { token: dev.token })).status, 200);
  const removed = await h.req('DELETE', `/v1/team/members/${dev.user.id}`, { token: owner.token });
  t.equal(removed.status, 200);
  t.type(removed.body.message, 'string');
  isProblem(t, await h.req('GET', '/v1/auth/me', { token: dev.token }), 401, 'unauthorized', 'ACCOUNT_GONE');
  isProblem(t, await h.req('GET', '/v1/team', { token: dev.token }), 401, 'unauthorized', 'ACCOUNT_GONE');
  isProblem(t, await h.req('POST', '/v1/auth/login', { body: { email, password: MEMBER_PASSWORD } }), 401, 'unauthorized', 'INVALID_CREDENTIALS');
  t.same((await h.req('GET', '/v1/team', { token: owner.token })).body.members.map((m: any) => m.id), [owner.user.id]);
  isProblem(t, await h.req('DELETE', `/v1/team/members/${dev.user.id}`, { token: owner.token }), 404, 'not-found', 'MEMBER_NOT_FOUND');
  t.equal((await joinTeam(h, owner, 'reviewer', email)).user.role, 'reviewer', 'invited again');
});

t.test('invitation tokens: single use, withdrawn, expired after 7 days, a taken address', async (t) => {
  const h = await harness(t);
  const owner = await h.register();
  const invite = async (email: string, role = 'developer') => h.req('POST', '/v1/team/invitations', { token: owner.token, body: { email, role } });
  const accept = async (token: string, name = 'N') => h.req('POST', '/v1/auth/accept-invitation', { body: { token, name, password: MEMBER_PASSWORD } });

  const a = uniqueEmail();
  const id = (await invite(a)).body.id;
  const token = await invitationToken(h, a);
  t.equal((await h.req('DELETE', `/v1/team/invitations/${id}`, { token: owner.token })).status, 200);
  isProblem(t, await accept(token), 400, 'validation', 'INVITATION_INVALID');
  isProblem(t, await h.req('DELETE', `/v1/team/invitations/${id}`, { token: owner.token }), 404, 'not-found', 'INVITATION_NOT_FOUND');

  const b = uniqueEmail();
  await invite(b, 'reviewer');
  const first = await invitationToken(h, b);
  h.clock.now += 1000;
  await invite(b, 'admin');
  const second = await invitationToken(h, b);
  t.not(first, second);
  t.same((await h.req('GET', '/v1/team', { token: owner.token })).body.invitations.map((i: any) => [i.email, i.role]), [[b, 'admin']], 'inviting again replaces');
  isProblem(t, await accept(first), 400, 'validation', 'INVITATION_INVALID');
  h.clock.now += INVITATION_TTL_MS - 1;
  t.equal((await h.req('GET', '/v1/team', { token: owner.token })).body.invitations.length, 1, 'pending until the last millisecond');
  h.clock.now += 1;
  t.same((await h.req('GET', '/v1/team', { token: owner.token })).body.invitations, [], 'expired: no longer pending');
  isProblem(t, await accept(second), 400, 'validation', 'INVITATION_EXPIRED');
  isProblem(t, await accept(second), 400, 'validation', 'INVITATION_INVALID');

  const c = uniqueEmail();
  await invite(c);
  const cToken = await invitationToken(h, c);
  await h.register(c);
  isProblem(t, await accept(cToken), 409, 'conflict', 'EMAIL_TAKEN');
  isProblem(t, await invite(c), 409, 'conflict', 'EMAIL_TAKEN');
  isProblem(t, await invite(owner.user.email), 409, 'conflict', 'EMAIL_TAKEN');

  isProblem(t, await accept('inv_short'), 400, 'validation', 'INVITATION_INVALID');
  const d = uniqueEmail();
  await invite(d);
  const dToken = await invitationToken(h, d);
  const bad = async (body: unknown, field: string) => {
    const res = await h.req('POST', '/v1/auth/accept-invitation', { body });
    isProblem(t, res, 400, 'validation');
    t.equal(res.body.field, field);
  };
  await bad({ token: dToken, password: MEMBER_PASSWORD }, 'name');
  await bad({ token: dToken, name: 'N', password: 'short' }, 'password');
  await bad({ name: 'N', password: MEMBER_PASSWORD }, 'token');
  await bad({ token: dToken, name: 'N', password: MEMBER_PASSWORD, role: 'owner' }, 'role');
  t.equal((await accept(dToken)).status, 201, 'bad requests did not spend it');
  const bad2 = async (body: unknown, field: string) => {
    const res = await h.req('POST', '/v1/team/invitations', { token: owner.token, body });
    isProblem(t, res, 400, 'validation');
    t.equal(res.body.field, field);
  };
  await bad2({ email: 'not an address', role: 'admin' }, 'email');
  await bad2({ email: uniqueEmail(), role: 'superuser' }, 'role');
  await bad2({ email: uniqueEmail() }, 'role');
});

t.test(`at most ${MAX_PENDING_INVITATIONS} pending invitations per organization`, async (t) => {
  const h = await harness(t);
  const owner = await h.register();
  const other = await h.register();
  const actor = { organizationId: owner.user.organizationId, userId: owner.user.id, role: 'owner' as const };
  for (let i = 0; i < MAX_PENDING_INVITATIONS; i++) await h.accounts.team.invite(actor, uniqueEmail(`p${i}`), 'reviewer');
  const full = { token: owner.token, body: { email: uniqueEmail(), role: 'reviewer' } };
  isProblem(t, await h.req('POST', '/v1/team/invitations', full), 409, 'conflict', 'INVITATION_LIMIT');
  t.equal((await h.req('POST', '/v1/team/invitations', { token: other.token, body: full.body })).status, 201, 'per organization');
  h.clock.now += INVITATION_TTL_MS;
  t.equal((await h.req('POST', '/v1/team/invitations', full)).status, 201, 'expired ones do not count');
});

t.test('at once: one token accepted twice makes one account; two owners demoting each other leave one owner', async (t) => {
  const h = await harness(t);
  const owner = await h.register();
  const email = uniqueEmail('race');
  await h.req('POST', '/v1/team/invitations', { token: owner.token, body: { email, role: 'developer' } });
  const token = await invitationToken(h, email);
  const body = { token, name: 'Twice', password: MEMBER_PASSWORD };
  const both = await Promise.all([h.req('POST', '/v1/auth/accept-invitation', { body }), h.req('POST', '/v1/auth/accept-invitation', { body })]);
  t.same(both.map((r) => r.status).sort(), [201, 400]);
  t.equal(both.find((r) => r.status === 400)!.body.code, 'INVITATION_INVALID');
  t.equal((await h.req('GET', '/v1/team', { token: owner.token })).body.members.length, 2);

  const second = await joinTeam(h, owner, 'owner');
  const demote = (by: { token: string }, who: string) => h.req('PATCH', `/v1/team/members/${who}`, { token: by.token, body: { role: 'admin' } });
  const swap = await Promise.all([demote(owner, second.user.id), demote(second, owner.user.id)]);
  t.same(swap.map((r) => r.status).sort(), [200, 403], 'the second runs as the admin the first made of it');
  t.equal(swap.find((r) => r.status === 403)!.body.code, 'ROLE_FORBIDDEN');
  t.equal((await h.req('GET', '/v1/team', { token: owner.token })).body.members.filter((m: any) => m.role === 'owner').length, 1);
});
