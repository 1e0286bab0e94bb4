import t from 'tap';
import { harness, isProblem, joinTeam, OPERATOR_TOKEN } from '../accounts/harness.js';

t.test('the member level: x-api-key as on apiKey routes, else the operator token or an account JWT with its role', async (t) => {
  const h = await harness(t, { probe: true });
  const a = await h.register();
  const key = (await h.req('POST', '/v1/api-keys', { token: a.token, body: { name: 'k', mode: 'live' } })).body.key as string;
  const reviewer = await joinTeam(h, a, 'reviewer');

  t.same((await h.req('GET', '/v1/probe/member', { token: a.token })).body, { organizationId: a.user.organizationId, via: 'jwt', userId: a.user.id, role: 'owner' });
  t.same((await h.req('GET', '/v1/probe/member', { token: reviewer.token })).body, { organizationId: a.user.organizationId, via: 'jwt', userId: reviewer.user.id, role: 'reviewer' }, "the member's role from the account");
  t.match((await h.req('GET', '/v1/probe/member', { apiKey: key })).body, { organizationId: a.user.organizationId, via: 'api-key', apiKey: { mode: 'live' } });
  t.match((await h.req('GET', '/v1/probe/member', { apiKey: key, token: a.token })).body, { via: 'api-key' }, 'x-api-key wins, as on apiKey routes');
  t.same((await h.req('GET', '/v1/probe/member', { token: OPERATOR_TOKEN })).body, { organizationId: '', via: 'operator' });

  const none = await h.req('GET', '/v1/probe/member');
  isProblem(t, none, 401, 'unauthorized');
  t.match(none.body.detail, /x-api-key: <API key>, or Authorization: Bearer <account JWT>/);
  const inAuth = await h.req('GET', '/v1/probe/member', { token: key });
  isProblem(t, inAuth, 401, 'unauthorized');
  t.match(inAuth.body.detail, /x-api-key header, not in Authorization/);
  isProblem(t, await h.req('GET', '/v1/probe/member', { apiKey: `sk_live_${'A'.repeat(43)}` }), 401, 'unauthorized', 'API_KEY_UNKNOWN');
  isProblem(t, await h.req('GET', '/v1/probe/member', { token: `${OPERATOR_TOKEN}x` }), 401, 'unauthorized', 'SESSION_INVALID');
  isProblem(t, await h.req('GET', '/v1/probe/member', { headers: { authorization: 'Basic abc' } }), 401, 'unauthorized', 'AUTHORIZATION_MALFORMED');
});

t.test('the member level without an operator token still takes accounts', async (t) => {
  const h = await harness(t, { probe: true, operatorToken: false });
  const a = await h.register();
  t.match((await h.req('GET', '/v1/probe/member', { token: a.token })).body, { via: 'jwt', role: 'owner' });
  isProblem(t, await h.req('GET', '/v1/probe/member', { token: OPERATOR_TOKEN }), 401, 'unauthorized', 'SESSION_INVALID');
});
