import t from 'tap';
import { MAX_KEYS } from '../../../../../plugins/kyc/accounts/index.js';
import { harness, isProblem } from '../../accounts/harness.js';

t.test('API keys: create once, list, authenticate, lastUsedAt, delete', async (t) => {
  const h = await harness(t, { probe: true });
  const a = await h.register();
  const b = await h.register();

  const live = await h.req('POST', '/v1/api-keys', { token: a.token, body: { name: 'server', mode: 'live' } });
  t.equal(live.status, 201);
  t.match(live.body, { key: /^sk_live_[A-Za-z0-9_-]{43}$/, id: /^key_[0-9a-f]{24}$/, name: 'server', mode: 'live', lastUsedAt: null });
  t.equal(live.body.prefix, `${live.body.key.slice(0, 14)}…`);
  h.clock.now += 1000;
  const sandbox = await h.req('POST', '/v1/api-keys', { token: a.token, body: { name: 'tests', mode: 'sandbox' } });
  t.match(sandbox.body.key, /^sk_sandbox_[A-Za-z0-9_-]{43}$/);

  const list = await h.req('GET', '/v1/api-keys', { token: a.token });
  t.equal(list.status, 200);
  t.same(Object.keys(list.body), ['keys']);
  t.same(list.body.keys.map((k: any) => k.id), [live.body.id, sandbox.body.id]);
  for (const k of list.body.keys) {
    t.same(Object.keys(k).sort(), ['createdAt', 'id', 'lastUsedAt', 'mode', 'name', 'prefix'], 'no key, no hash');
    t.notOk(JSON.stringify(k).includes(live.body.key.slice(14)), 'the key is never shown again');
  }
  t.same((await h.req('GET', '/v1/api-keys', { token: b.token })).body, { keys: [] }, 'organizations are isolated');

  const used = await h.req('GET', '/v1/probe/apiKey', { apiKey: sandbox.body.key });
  t.same(used.body, { organizationId: a.user.organizationId, via: 'api-key', apiKey: { id: sandbox.body.id, mode: 'sandbox' } });
  const lastUsed = async () => (await h.req('GET', '/v1/api-keys', { token: a.token })).body.keys.find((k: any) => k.id === sandbox.body.id).lastUsedAt;
  const firstUse = await lastUsed();
  t.equal(firstUse, new Date(h.clock.now).toISOString());
  h.clock.now += 30_000;
  await h.req('GET', '/v1/probe/apiKey', { apiKey: sandbox.body.key });
  t.equal(await lastUsed(), firstUse, 'written at most once a minute');
  h.clock.now += 31_000;
  await h.req('GET', '/v1/probe/apiKey', { apiKey: sandbox.body.key });
  t.equal(await lastUsed(), new Date(h.clock.now).toISOString());

  isProblem(t, await h.req('DELETE', `/v1/api-keys/${sandbox.body.id}`, { token: b.token }), 404, 'not-found', 'API_KEY_NOT_FOUND');
  const del = await h.req('DELETE', `/v1/api-keys/${sandbox.body.id}`, { token: a.token });
  t.equal(del.status, 200);
  t.type(del.body.message, 'string');
  isProblem(t, await h.req('GET', '/v1/probe/apiKey', { apiKey: sandbox.body.key }), 401, 'unauthorized', 'API_KEY_UNKNOWN');
  t.same((await h.req('GET', '/v1/api-keys', { token: a.token })).body.keys.map((k: any) => k.id), [live.body.id]);
  isProblem(t, await h.req('DELETE', `/v1/api-keys/${sandbox.body.id}`, { token: a.token }), 404, 'not-found');
  t.equal((await h.req('GET', '/v1/probe/apiKey', { apiKey: live.body.key })).status, 200, 'the other key still works');
});

t.test('API keys: bad input and the wrong credential', async (t) => {
  const h = await harness(t);
  const a = await h.register();
  const bad = async (body: unknown, field: string) => {
    const res = await h.req('POST', '/v1/api-keys', { token: a.token, body });
    isProblem(t, res, 400, 'validation');
    t.equal(res.body.field, field);
  };
  await bad({ mode: 'live' }, 'name');
  await bad({ name: 'x', mode: 'test' }, 'mode');
  await bad({ name: 'x' }, 'mode');
  await bad({ name: 'x', mode: 'live', scope: 'all' }, 'scope');
  isProblem(t, await h.req('POST', '/v1/api-keys', { body: { name: 'x', mode: 'live' } }), 401, 'unauthorized');
  const key = (await h.req('POST', '/v1/api-keys', { token: a.token, body: { name: 'x', mode: 'live' } })).body.key;
  const res = await h.req('GET', '/v1/api-keys', { token: key });
  isProblem(t, res, 401, 'unauthorized', 'JWT_REQUIRED');
});

t.test('API keys: at most MAX_KEYS per organization', async (t) => {
  const h = await harness(t);
  const a = await h.register();
  for (let i = 0; i < MAX_KEYS; i++) await h.accounts.apiKeys.create(a.user.organizationId, `k${i}`, 'sandbox');
  isProblem(t, await h.req('POST', '/v1/api-keys', { token: a.token, body: { name: 'one more', mode: 'live' } }), 409, 'conflict', 'API_KEY_LIMIT');
});

t.test('API keys: owners, admins and developers; a reviewer gets 403 ROLE_FORBIDDEN, decided on each request', async (t) => {
  const h = await harness(t);
  const a = await h.register();
  const key = (await h.req('POST', '/v1/api-keys', { token: a.token, body: { name: 'k', mode: 'live' } })).body.id;
  const setRole = async (role: 'reviewer' | 'developer') => h.accounts.store.users.put(a.user.id, { ...(await h.accounts.store.users.get(a.user.id))!, role });
  await setRole('reviewer');
  isProblem(t, await h.req('POST', '/v1/api-keys', { token: a.token, body: { name: 'x', mode: 'live' } }), 403, 'forbidden', 'ROLE_FORBIDDEN');
  isProblem(t, await h.req('GET', '/v1/api-keys', { token: a.token }), 403, 'forbidden', 'ROLE_FORBIDDEN');
  isProblem(t, await h.req('DELETE', `/v1/api-keys/${key}`, { token: a.token }), 403, 'forbidden', 'ROLE_FORBIDDEN');
  await setRole('developer');
  t.equal((await h.req('GET', '/v1/api-keys', { token: a.token })).body.keys.length, 1, 'the same JWT, now a developer');
  t.equal((await h.req('DELETE', `/v1/api-keys/${key}`, { token: a.token })).status, 200);
});
