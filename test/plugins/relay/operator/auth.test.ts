import t from 'tap';
import { randomBytes } from 'node:crypto';
import { SessionTokens } from '../../../../plugins/common/auth/session-token.js';
import { operatorId } from '../../../../plugins/relay/operator/routes/session.js';
import { OPERATOR_KIND } from '../../../../plugins/relay/operator/auth.js';
import { TENANT_A, TENANT_B, harness, isProblem } from './harness.js';
import { ROUTES } from './routes-table.js';

t.test('the auth matrix: none, read, manage, full, session on every route; 403 comes before any lookup', async (t) => {
  const h = await harness(t);
  const creds = {
    read: (await h.apiKey(TENANT_A, 'read')).key,
    manage: (await h.apiKey(TENANT_A, 'manage')).key,
    full: (await h.apiKey(TENANT_A, 'full')).key,
    session: await h.session(TENANT_A),
  };
  const rank = { read: 0, manage: 1, full: 2 } as const;
  for (const r of ROUTES) {
    const label = `${r.method} ${r.path}`;
    const none = await h.req(r.method, r.path, { body: r.body });
    if (r.level === 'none') {
      t.not(none.status, 401, `${label} needs no credential`);
      continue;
    }
    isProblem(t, none, 401, 'unauthorized', `${label} without a credential`);
    t.match(none.headers.get('www-authenticate'), /^Bearer/, `${label}: WWW-Authenticate`);
    for (const [name, token] of Object.entries(creds)) {
      const res = await h.req(r.method, r.path, { token, body: r.body });
      const scope = name === 'session' ? 'full' : (name as keyof typeof rank);
      if (rank[scope] >= rank[r.level]) {
        t.not(res.status, 401, `${label} with ${name}: authenticated`);
        t.not(res.status, 403, `${label} with ${name}: allowed (${res.status})`);
      } else {
        // ids in the table do not exist: the 403 proves authorization ran before the lookup
        isProblem(t, res, 403, 'forbidden', `${label} with ${name}`);
      }
    }
  }
});

t.test('credentials: malformed, unknown, expired, forged and revoked are 401 with WWW-Authenticate', async (t) => {
  const h = await harness(t);
  const cases: Array<[string, Record<string, string>]> = [
    ['not bearer', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['malformed key', { authorization: 'Bearer slk_short' }],
    ['unknown key', { authorization: `Bearer slk_${randomBytes(32).toString('base64url')}` }],
    ['garbage jwt', { authorization: 'Bearer a.b.c' }],
  ];
  for (const [what, headers] of cases) {
    const res = await h.req('GET', '/v1/mediations', { headers });
    isProblem(t, res, 401, 'unauthorized', what);
    t.match(res.headers.get('www-authenticate'), /^Bearer/);
  }
  const other = new SessionTokens({ secret: randomBytes(32), issuer: 'ledger-relay', audience: 'relay-operator', ttl: '12h' });
  const forged = (await other.issue({ sub: 'op_x', tenantId: TENANT_A })).token;
  isProblem(t, await h.req('GET', '/v1/mediations', { token: forged }), 401, 'unauthorized', 'another secret');

  const short = new SessionTokens({ secret: h.sessionSecret, issuer: 'ledger-relay', audience: 'relay-operator', ttl: '1s' });
  const expiring = (await short.issue({ sub: 'op_x', tenantId: TENANT_A, did: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK' })).token;
  t.equal((await h.req('GET', '/v1/auth/me', { token: expiring })).status, 200, 'valid before expiry');
  await new Promise((r) => setTimeout(r, 2100));
  const expired = await h.req('GET', '/v1/auth/me', { token: expiring });
  isProblem(t, expired, 401, 'unauthorized', 'expired session');
  t.equal(expired.body.code, 'SESSION_EXPIRED');

  const { key, id } = await h.apiKey(TENANT_A, 'full');
  t.equal((await h.req('GET', '/v1/mediations', { token: key })).status, 200, 'the key works');
  const revoke = await h.req('DELETE', `/v1/api-keys/${id}`, { token: await h.session() });
  t.equal(revoke.status, 200);
  t.type(revoke.body.revokedAt, 'string');
  const after = await h.req('GET', '/v1/mediations', { token: key });
  isProblem(t, after, 401, 'unauthorized', 'revoked key at once');
  t.match(after.body.detail, /revoked/);
  t.equal((await h.req('DELETE', `/v1/api-keys/${id}`, { token: await h.session() })).body.revokedAt, revoke.body.revokedAt, 'revoking again changes nothing');
});

t.test('API keys: created once with slk_, listed without the key or hash, lastUsedAt at most once a minute', async (t) => {
  let clock = Date.parse('2025-03-01T10:00:00Z');
  const h = await harness(t, { now: () => clock });
  const token = await h.session();
  const created = await h.req('POST', '/v1/api-keys', { token, body: { name: 'ci', scope: 'manage' } });
  t.equal(created.status, 201);
  t.match(created.body, { name: 'ci', scope: 'manage', lastUsedAt: null, revokedAt: null, createdAt: '2025-03-01T10:00:00.000Z' });
  t.match(created.body.key, /^slk_[A-Za-z0-9_-]{43}$/);
  t.equal(created.body.prefix, `${created.body.key.slice(0, 12)}…`);
  const list = await h.req('GET', '/v1/api-keys', { token });
  t.equal(list.status, 200);
  t.same(Object.keys(list.body[0]).sort(), ['createdAt', 'id', 'lastUsedAt', 'name', 'prefix', 'revokedAt', 'scope']);
  t.notMatch(JSON.stringify(list.body), created.body.key, 'the key is never listed');

  await h.req('GET', '/v1/mediations', { token: created.body.key });
  const used = (await h.req('GET', '/v1/api-keys', { token })).body[0].lastUsedAt;
  t.equal(used, '2025-03-01T10:00:00.000Z');
  clock += 30_000;
  await h.req('GET', '/v1/mediations', { token: created.body.key });
  t.equal((await h.req('GET', '/v1/api-keys', { token })).body[0].lastUsedAt, used, 'not rewritten within the minute');
  clock += 31_000;
  await h.req('GET', '/v1/mediations', { token: created.body.key });
  t.equal((await h.req('GET', '/v1/api-keys', { token })).body[0].lastUsedAt, '2025-03-01T10:01:01.000Z', 'rewritten after a minute');

  isProblem(t, await h.req('DELETE', '/v1/api-keys/key_nope', { token }), 404, 'not-found', 'unknown id with a full credential');
  const bad = await h.req('POST', '/v1/api-keys', { token, body: { name: 'x', scope: 'admin' } });
  isProblem(t, bad, 400, 'validation', 'bad scope');
  t.match(bad.body.detail, /scope must be one of read, manage, full/);
  isProblem(t, await h.req('POST', '/v1/api-keys', { token, body: { scope: 'read' } }), 400, 'validation', 'missing name');
  isProblem(t, await h.req('POST', '/v1/api-keys', { token, body: { name: 'x', scope: 'read', extra: 1 } }), 400, 'validation', 'unknown field');
});

t.test('sessions from a real OpenID provider: tenant claim, stable operator id, /me, /team, logout', async (t) => {
  const h = await harness(t, { oidc: true });
  const idToken = await h.oidc!.idToken();
  const res = await h.req('POST', '/v1/auth/session', { body: { id_token: idToken } });
  t.equal(res.status, 200, JSON.stringify(res.body));
  const expectedId = operatorId(h.oidc!.issuer, 'operator-1');
  t.match(res.body.operator, { id: expectedId, did: /^did:key:z6Mk[1-9A-HJ-NP-Za-km-z]+$/, email: 'operator@example.org', role: 'owner' });
  const minted = res.body.operator.did;
  t.equal(res.body.expiresIn, '12h');
  const me = await h.req('GET', '/v1/auth/me', { token: res.body.token });
  t.match(me.body, { authenticated: true, tenantId: TENANT_B, via: 'session', operator: { id: expectedId, did: minted, email: 'operator@example.org', role: 'owner', plan: 'self-hosted' } });

  // the same person again: the same id; another with no tenant claim lands in `default`
  const again = await h.req('POST', '/v1/auth/session', { body: { id_token: await h.oidc!.idToken() } });
  t.equal(again.body.operator.id, expectedId, 'stable across logins');
  t.equal(again.body.operator.did, minted, 'the DID minted at first login is kept');
  const other = await h.req('POST', '/v1/auth/session', { body: { id_token: await h.oidc!.idToken({ sub: 'op-2', claims: { email: 'two@example.org' } }) } });
  t.equal(other.status, 200);
  t.not(other.body.operator.id, expectedId);
  t.not(other.body.operator.did, minted, 'each operator gets a DID of their own');
  t.equal((await h.req('GET', '/v1/auth/me', { token: other.body.token })).body.tenantId, 'default');

  const team = await h.req('GET', '/v1/team', { token: res.body.token });
  t.equal(team.body.length, 1, 'one operator in tenant-b, recorded once');
  t.match(team.body[0], { id: expectedId, did: minted, email: 'operator@example.org', role: 'owner', name: 'Test Operator' });
  t.equal((await h.req('GET', '/v1/team', { token: other.body.token })).body[0].email, 'two@example.org', 'the default tenant has its own team');

  const viaKey = await h.req('POST', '/v1/api-keys', { token: res.body.token, body: { name: 'ro', scope: 'read' } });
  const meKey = await h.req('GET', '/v1/auth/me', { token: viaKey.body.key });
  t.match(meKey.body, { authenticated: true, tenantId: TENANT_B, via: 'api-key', operator: { id: viaKey.body.id, did: minted, email: 'operator@example.org', role: 'api-key', plan: 'self-hosted', createdBy: expectedId }, apiKey: { scope: 'read' } });

  const logout = await h.req('POST', '/v1/auth/logout', { token: res.body.token });
  t.match(logout.body, { ok: true, revoked: false });
  t.type(logout.body.expiresAt, 'string');
  t.equal((await h.req('GET', '/v1/auth/me', { token: res.body.token })).status, 200, 'stateless: the token still works');
  t.match((await h.req('POST', '/v1/auth/logout')).body, { ok: true, revoked: false }, 'logout without a token is fine');

  isProblem(t, await h.req('POST', '/v1/auth/session', { body: { id_token: 'x.y.z' } }), 401, 'unauthorized', 'junk id token');
  const tampered = idToken.slice(0, -4) + (idToken.endsWith('AAAA') ? 'BBBB' : 'AAAA');
  isProblem(t, await h.req('POST', '/v1/auth/session', { body: { id_token: tampered } }), 401, 'unauthorized', 'bad signature');
  isProblem(t, await h.req('POST', '/v1/auth/session', { body: {} }), 400, 'validation', 'missing id_token');
  isProblem(t, await h.req('POST', '/v1/auth/session', { body: { id_token: 5 } }), 400, 'validation', 'id_token not a string');
  const badTenant = await h.req('POST', '/v1/auth/session', { body: { id_token: await h.oidc!.idToken({ sub: 'op-3', claims: { tenant: 'a/b\u0000' } }) } });
  isProblem(t, badTenant, 403, 'forbidden', 'unusable tenant claim');
});

t.test('operator login without plugins.relay.oidc: 503 not-configured', async (t) => {
  const h = await harness(t);
  const res = await h.req('POST', '/v1/auth/session', { body: { id_token: 'a.b.c' } });
  isProblem(t, res, 503, 'not-configured');
  t.match(res.body.detail, /operator login is not configured/);
});

t.test('the provider down is 503; a did claim becomes the operator DID', async (t) => {
  const down = await harness(t, { oidc: true });
  const idToken = await down.oidc!.idToken();
  await down.oidc!.close();
  const res = await down.req('POST', '/v1/auth/session', { body: { id_token: idToken } });
  isProblem(t, res, 503, 'unavailable', 'provider unreachable');
  t.equal(res.body.code, 'OIDC_PROVIDER_UNAVAILABLE');

  const did = 'did:ledger:testnet:3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy';
  const h = await harness(t, {
    verifier: { verify: async () => ({ sub: 'u1', iss: 'https://id.example', aud: ['relay'], email: 'd@example.org', raw: { did } }) },
  });
  const ok = await h.req('POST', '/v1/auth/session', { body: { id_token: 'opaque' } });
  t.equal(ok.status, 200);
  t.same(ok.body.operator, { id: operatorId('https://id.example', 'u1'), did, email: 'd@example.org', role: 'owner' });
  t.match((await h.req('GET', '/v1/auth/me', { token: ok.body.token })).body, { tenantId: 'default', operator: { did } });
});

t.test('an operator recorded before operators had DIDs gets one: /v1/team lists it, the next login keeps it', async (t) => {
  const h = await harness(t, { oidc: true });
  const id = operatorId(h.oidc!.issuer, 'operator-1');
  const at = '2025-01-01T00:00:00.000Z';
  await h.services.store.documents.put(TENANT_B, OPERATOR_KIND, id, { id, did: null, email: 'operator@example.org', name: 'Old', role: 'owner', issuer: h.oidc!.issuer, subject: 'operator-1', firstLoginAt: at, lastLoginAt: at });
  const other = await h.session(TENANT_B, 'op_other');
  const team = await h.req('GET', '/v1/team', { token: other });
  const old = team.body.find((o: { id: string }) => o.id === id);
  t.match(old.did, /^did:key:z6Mk/, 'the old record is listed with a DID');
  t.equal((await h.services.store.documents.get<{ did: string }>(TENANT_B, OPERATOR_KIND, id))!.did, old.did, 'and the DID is stored');
  const login = await h.req('POST', '/v1/auth/session', { body: { id_token: await h.oidc!.idToken() } });
  t.equal(login.body.operator.did, old.did, 'the next login answers the same DID');
  t.equal(login.body.operator.id, id);
  const me = await h.req('GET', '/v1/auth/me', { token: login.body.token });
  t.equal(me.body.operator.did, old.did);
});
