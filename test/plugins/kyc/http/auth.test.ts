import t from 'tap';
import { SessionTokens } from '../../../../plugins/common/auth/session-token.js';
import { harness, isProblem, OPERATOR_TOKEN } from '../accounts/harness.js';

t.test('each level takes its credential and says precisely what is wrong', async (t) => {
  const h = await harness(t, { probe: true });
  const a = await h.register();
  const key = (await h.req('POST', '/v1/api-keys', { token: a.token, body: { name: 'k', mode: 'live' } })).body.key as string;

  // jwt
  t.same((await h.req('GET', '/v1/probe/jwt', { token: a.token })).body, { organizationId: a.user.organizationId, via: 'jwt', userId: a.user.id, role: 'owner' });
  const none = await h.req('GET', '/v1/probe/jwt');
  isProblem(t, none, 401, 'unauthorized');
  t.match(none.body.detail, /Authorization: Bearer <account JWT>/);
  t.equal(none.headers.get('www-authenticate'), 'Bearer realm="kyc"');
  isProblem(t, await h.req('GET', '/v1/probe/jwt', { headers: { authorization: 'Basic abc' } }), 401, 'unauthorized', 'AUTHORIZATION_MALFORMED');
  isProblem(t, await h.req('GET', '/v1/probe/jwt', { token: key }), 401, 'unauthorized', 'JWT_REQUIRED');
  isProblem(t, await h.req('GET', '/v1/probe/jwt', { token: 'a.b.c' }), 401, 'unauthorized', 'SESSION_INVALID');
  const foreign = new SessionTokens({ secret: new Uint8Array(32).fill(7), issuer: 'ledger-kyc', audience: 'kyc', ttl: '1h' });
  const forged = (await foreign.issue({ sub: a.user.id, tenantId: a.user.organizationId })).token;
  const sig = await h.req('GET', '/v1/probe/jwt', { token: forged });
  isProblem(t, sig, 401, 'unauthorized', 'SESSION_INVALID');
  t.match(sig.body.detail, /signature/);
  const ghost = (await h.accounts.tokens.issue({ sub: 'usr_000000000000000000000000', tenantId: a.user.organizationId })).token;
  isProblem(t, await h.req('GET', '/v1/probe/jwt', { token: ghost }), 401, 'unauthorized', 'ACCOUNT_GONE');

  // apiKey
  t.same((await h.req('GET', '/v1/probe/apiKey', { apiKey: key })).body, { organizationId: a.user.organizationId, via: 'api-key', apiKey: { id: (await h.accounts.apiKeys.list(a.user.organizationId))[0]!.id, mode: 'live' } });
  const inAuth = await h.req('GET', '/v1/probe/apiKey', { token: key });
  isProblem(t, inAuth, 401, 'unauthorized');
  t.match(inAuth.body.detail, /x-api-key header, not in Authorization/);
  isProblem(t, await h.req('GET', '/v1/probe/apiKey'), 401, 'unauthorized');
  isProblem(t, await h.req('GET', '/v1/probe/apiKey', { apiKey: 'sk_live_short' }), 401, 'unauthorized', 'API_KEY_MALFORMED');
  isProblem(t, await h.req('GET', '/v1/probe/apiKey', { apiKey: `sk_live_${'A'.repeat(43)}` }), 401, 'unauthorized', 'API_KEY_UNKNOWN');
  isProblem(t, await h.req('GET', '/v1/probe/apiKey', { apiKey: a.token }), 401, 'unauthorized', 'API_KEY_MALFORMED');

  // bearer: either
  t.equal((await h.req('GET', '/v1/probe/bearer', { token: a.token })).body.via, 'jwt');
  t.equal((await h.req('GET', '/v1/probe/bearer', { token: key })).body.via, 'api-key');
  t.equal((await h.req('GET', '/v1/probe/bearer', { apiKey: key })).body.via, 'api-key');
  isProblem(t, await h.req('GET', '/v1/probe/bearer'), 401, 'unauthorized');
  isProblem(t, await h.req('GET', '/v1/probe/bearer', { token: `sk_sandbox_${'B'.repeat(43)}` }), 401, 'unauthorized', 'API_KEY_UNKNOWN');

  // operator
  t.same((await h.req('GET', '/v1/probe/operator', { token: OPERATOR_TOKEN })).body, { organizationId: '', via: 'operator' });
  isProblem(t, await h.req('GET', '/v1/probe/operator', { token: `${OPERATOR_TOKEN}x` }), 401, 'unauthorized', 'OPERATOR_TOKEN_INVALID');
  isProblem(t, await h.req('GET', '/v1/probe/operator', { token: a.token }), 401, 'unauthorized', 'OPERATOR_TOKEN_INVALID');
  isProblem(t, await h.req('GET', '/v1/probe/operator'), 401, 'unauthorized');
});

t.test('operator level without a configured token: 503', async (t) => {
  const h = await harness(t, { probe: true, operatorToken: false });
  const res = await h.req('GET', '/v1/probe/operator', { token: OPERATOR_TOKEN });
  isProblem(t, res, 503, 'not-configured', 'OPERATOR_NOT_CONFIGURED');
});

t.test('an expired JWT is refused as expired', async (t) => {
  const h = await harness(t, { probe: true, config: { jwtTtl: '1s' } });
  const a = await h.register();
  await new Promise((r) => setTimeout(r, 2100));
  isProblem(t, await h.req('GET', '/v1/probe/jwt', { token: a.token }), 401, 'unauthorized', 'SESSION_EXPIRED');
});
