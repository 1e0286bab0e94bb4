import t, { type Test } from 'tap';
import { openDatabase } from '../../../../node/state/db.js';
import { PluginDb } from '../../../../plugins/common/store/tables.js';
import { MAX_ENDPOINTS_PER_ORG, WebhookEndpoints, publicEndpoint } from '../../../../plugins/kyc/webhooks/endpoints.js';

async function repo(t: Test, allowHttpHosts: string[] = []) {
  const database = await openDatabase('memory');
  t.teardown(() => database.close());
  let now = Date.parse('2026-01-01T00:00:00Z');
  const endpoints = new WebhookEndpoints(new PluginDb(database.pluginStore('kyc')), { now: () => now, allowHttpHosts });
  return { endpoints, tick: (ms: number) => (now += ms) };
}

t.test('create: defaults, a whsec_ secret, the normalized URL', async (t) => {
  const { endpoints, tick } = await repo(t);
  const r = await endpoints.create('org_a', { url: 'HTTPS://Hooks.Example.com' });
  t.match(r, { id: /^wh_[0-9a-f]{24}$/, organizationId: 'org_a', url: 'https://hooks.example.com/', events: ['verification.completed', 'credential.issued'], description: '', enabled: true, createdAt: '2026-01-01T00:00:00.000Z', secret: /^whsec_[A-Za-z0-9_-]{43}$/ });
  t.notOk('secret' in publicEndpoint(r));
  t.equal(publicEndpoint(r).status, 'active');
  tick(1);
  const s = await endpoints.create('org_a', { url: 'https://b.example/', events: ['credential.revoked', 'verification.failed', 'credential.revoked'] });
  t.same(s.events, ['verification.failed', 'credential.revoked'], 'deduplicated, in the seed\'s order');
  t.not(s.secret, r.secret);
  t.same((await endpoints.list('org_a')).map((e) => e.id), [r.id, s.id], 'oldest first');
  t.same(await endpoints.list('org_b'), []);
  t.equal(await endpoints.get('org_b', r.id), undefined, 'another organization reads nothing');
  t.equal(await endpoints.get('org_a', 'wh_../x'), undefined);
});

t.test('http only to loopback, or to a configured development host', async (t) => {
  const { endpoints } = await repo(t, ['hooks.dev']);
  await t.rejects(endpoints.create('org_a', { url: 'http://hooks.example.com/' }), { code: 'WEBHOOK_URL_INVALID', data: { field: 'url', reason: 'not_https' } });
  t.ok(await endpoints.create('org_a', { url: 'http://hooks.dev/h' }));
  t.ok(await endpoints.create('org_a', { url: 'http://127.0.0.1:3000/h' }));
});

t.test('update changes only the given fields; rotation changes only the secret; remove', async (t) => {
  const { endpoints, tick } = await repo(t);
  const r = await endpoints.create('org_a', { url: 'https://a.example/', description: 'd' });
  tick(1000);
  const u = (await endpoints.update('org_a', r.id, { enabled: false }))!;
  t.same({ ...u, updatedAt: r.updatedAt }, { ...r, enabled: false });
  t.equal(u.updatedAt, '2026-01-01T00:00:01.000Z');
  t.equal(await endpoints.update('org_b', r.id, { enabled: true }), undefined);
  const k = (await endpoints.rotateSecret('org_a', r.id))!;
  t.not(k.secret, r.secret);
  t.same({ ...k, secret: r.secret, updatedAt: u.updatedAt }, u);
  t.equal((await endpoints.get('org_a', r.id))!.secret, k.secret, 'stored');
  t.equal(await endpoints.rotateSecret('org_b', r.id), undefined);
  t.equal(await endpoints.remove('org_b', r.id), false);
  t.equal(await endpoints.remove('org_a', r.id), true);
  t.equal(await endpoints.get('org_a', r.id), undefined);
  t.same(await endpoints.list('org_a'), []);
});

t.test(`at most ${MAX_ENDPOINTS_PER_ORG} endpoints per organization, even when created at once`, async (t) => {
  const { endpoints } = await repo(t);
  const results = await Promise.allSettled(Array.from({ length: MAX_ENDPOINTS_PER_ORG + 3 }, (_, i) => endpoints.create('org_a', { url: `https://a.example/${i}` })));
  t.equal(results.filter((r) => r.status === 'fulfilled').length, MAX_ENDPOINTS_PER_ORG);
  t.match(results.find((r) => r.status === 'rejected'), { reason: { code: 'WEBHOOK_ENDPOINT_LIMIT', kind: 'conflict' } });
  t.ok(await endpoints.create('org_b', { url: 'https://b.example/' }), 'another organization has its own count');
});

t.test('subscribers: enabled endpoints of that organization listing the type', async (t) => {
  const { endpoints } = await repo(t);
  const a = await endpoints.create('org_a', { url: 'https://a.example/' });
  const off = await endpoints.create('org_a', { url: 'https://b.example/' });
  await endpoints.update('org_a', off.id, { enabled: false });
  await endpoints.create('org_a', { url: 'https://c.example/', events: ['verification.failed'] });
  await endpoints.create('org_b', { url: 'https://d.example/' });
  t.same((await endpoints.subscribers('org_a', 'credential.issued')).map((e) => e.id), [a.id]);
});
