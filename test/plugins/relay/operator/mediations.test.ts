import t from 'tap';
import { DID } from '../../../rpc/ledger/harness.js';
import { TENANT_A, harness, isProblem, newDidKey } from './harness.js';

t.test('mediations: the seed shape, grant/deny/revoke through the state machine, 404 and 409', async (t) => {
  const h = await harness(t);
  const token = await h.session(TENANT_A);
  // a mediate-request over the wire path (manual approval makes it wait as `requested`)
  await h.services.settings.update(TENANT_A, { manualApproval: true });
  const agent = newDidKey();
  const { mediation: requested } = await h.services.mediations.request(agent, undefined);
  t.equal(requested.state, 'requested');
  const { mediation: granted, keys } = await h.mediation(TENANT_A, { keys: 2 });

  const list = await h.req('GET', '/v1/mediations', { token });
  t.equal(list.status, 200);
  t.equal(list.body.length, 2);
  const one = list.body.find((m: { id: string }) => m.id === granted.id);
  t.match(one, { id: granted.id, recipientDid: granted.recipientDid, state: 'granted', gate: { policy: 'none', state: 'pass' }, keylistSize: 2, queued: 0, delivered24h: 0, grantedAgo: 'just now', protocols: ['forward', 'pickup'] });
  for (const field of ['id', 'recipientDid', 'state', 'gate', 'keylistSize', 'queued', 'delivered24h', 'grantedAgo', 'protocols']) t.ok(field in one, `field ${field}`);
  t.equal(list.body.find((m: { id: string }) => m.id === requested.id).grantedAgo, 'not granted', 'never granted');

  // messages queued for a key count in `queued`; delivered ones in delivered24h
  const rec = await h.services.delivery.accept(granted, keys[0]!, null, new Uint8Array([1, 2, 3]));
  await h.services.delivery.accept(granted, keys[1]!, null, new Uint8Array([4]));
  await h.services.delivery.delivered([rec], 'delivered');
  await h.services.delivery.acknowledge(granted, [rec.id], keys);
  const after = (await h.req('GET', '/v1/mediations', { token })).body.find((m: { id: string }) => m.id === granted.id);
  t.equal(after.queued, 1, 'one still held');
  t.equal(after.delivered24h, 1, 'one delivered in the last day (per-mediation counter)');

  // deny needs a reason
  const noReason = await h.req('POST', `/v1/mediations/${requested.id}/deny`, { token, body: {} });
  isProblem(t, noReason, 400, 'validation', 'deny without reason');
  t.equal(noReason.body.field, 'reason');
  isProblem(t, await h.req('POST', `/v1/mediations/${requested.id}/deny`, { token }), 400, 'validation', 'deny with no body');
  const denied = await h.req('POST', `/v1/mediations/${requested.id}/deny`, { token, body: { reason: 'unknown agent' } });
  t.equal(denied.status, 200);
  t.match(denied.body, { state: 'denied', reason: 'unknown agent' });
  const illegal = await h.req('POST', `/v1/mediations/${requested.id}/revoke`, { token });
  isProblem(t, illegal, 409, 'conflict', 'revoke a denied mediation');
  t.match(illegal.body.detail, /cannot revoke a mediation that is denied/);
  const regrant = await h.req('POST', `/v1/mediations/${requested.id}/grant`, { token });
  t.match(regrant.body, { state: 'granted', reason: null, grantedAgo: 'just now' });
  const revoked = await h.req('POST', `/v1/mediations/${granted.id}/revoke`, { token, body: { reason: 'offboarded' } });
  t.match(revoked.body, { state: 'revoked', reason: 'offboarded' });
  t.equal(revoked.body.queued, 0, 'what was queued failed on revoke');
  isProblem(t, await h.req('POST', `/v1/mediations/${granted.id}/revoke`, { token }), 409, 'conflict', 'revoke twice');
  isProblem(t, await h.req('POST', '/v1/mediations/med_nope/grant', { token }), 404, 'not-found', 'unknown id');
});

t.test('keylist: paginated, one key removed by its URL-encoded value', async (t) => {
  const h = await harness(t);
  const token = await h.session(TENANT_A);
  const { mediation, keys } = await h.mediation(TENANT_A, { keys: 5 });
  const page = await h.req('GET', `/v1/mediations/${mediation.id}/keylist?limit=2&offset=1`, { token });
  t.equal(page.status, 200);
  t.match(page.body, { mediationId: mediation.id, total: 5, limit: 2, offset: 1 });
  t.equal(page.body.items.length, 2);
  t.type(page.body.items[0].addedAt, 'string');
  const all = (await h.req('GET', `/v1/mediations/${mediation.id}/keylist`, { token })).body;
  t.same(all.items.map((k: { key: string }) => k.key).sort(), [...keys].sort());
  isProblem(t, await h.req('GET', `/v1/mediations/${mediation.id}/keylist?limit=0`, { token }), 400, 'validation', 'limit 0');
  isProblem(t, await h.req('GET', `/v1/mediations/${mediation.id}/keylist?offset=-1`, { token }), 400, 'validation', 'negative offset');

  const key = `${keys[0]!}#key-1`;
  await h.services.store.mediations.updateKeys(mediation.id, [key], [], Date.now());
  const removed = await h.req('DELETE', `/v1/mediations/${mediation.id}/keylist/${encodeURIComponent(key)}`, { token });
  t.equal(removed.status, 200, JSON.stringify(removed.body));
  t.match(removed.body, { removed: key, keylistSize: 5 });
  isProblem(t, await h.req('DELETE', `/v1/mediations/${mediation.id}/keylist/${encodeURIComponent(key)}`, { token }), 404, 'not-found', 'removed already');
  isProblem(t, await h.req('GET', '/v1/mediations/med_nope/keylist', { token }), 404, 'not-found', 'unknown mediation');
});

t.test('agents: one per mediation, offline, the limiter count and the tenant limit', async (t) => {
  const h = await harness(t);
  const token = await h.session(TENANT_A);
  await h.services.settings.update(TENANT_A, { rateLimitPerDidPerMin: 42 });
  const { mediation, keys } = await h.mediation(TENANT_A, { keys: 1 });
  await h.services.coordination.limiter.hit(mediation.recipientDid, 42);
  await h.services.coordination.limiter.hit(mediation.recipientDid, 42);
  await h.services.delivery.accept(mediation, keys[0]!, null, new Uint8Array(4));
  const res = await h.req('GET', '/v1/agents', { token });
  t.equal(res.status, 200);
  t.same(res.body, [{ did: mediation.recipientDid, presence: 'offline', mediationState: 'granted', queued: 1, ratePerMin: 2, rateLimit: 42, lastSeenAgo: 'just now', mediationId: mediation.id }]);
});

t.test('messages: filters validated, records without bodies, paging; queue status', async (t) => {
  const h = await harness(t);
  const token = await h.session(TENANT_A);
  const { mediation, keys } = await h.mediation(TENANT_A, { keys: 2 });
  const recs = [];
  for (let i = 0; i < 5; i++) recs.push(await h.services.delivery.accept(mediation, keys[i % 2]!, null, new Uint8Array([i])));
  await h.services.delivery.delivered([recs[0]!], 'delivered');

  const all = await h.req('GET', '/v1/messages', { token });
  t.equal(all.status, 200);
  t.match(all.body, { total: 5, limit: 50, offset: 0 });
  t.equal(all.body.items.length, 5);
  t.notOk('body' in all.body.items[0], 'never a body');
  t.match(all.body.items[0], { mediationId: mediation.id, protocol: 'forward', size: 1 });
  t.type(all.body.items[0].receivedAt, 'string');
  t.equal((await h.req('GET', '/v1/messages?state=queued', { token })).body.total, 4);
  t.equal((await h.req('GET', '/v1/messages?state=delivered', { token })).body.total, 1);
  t.equal((await h.req('GET', `/v1/messages?recipient=${encodeURIComponent(keys[0]!)}`, { token })).body.total, 3);
  t.equal((await h.req('GET', '/v1/messages?protocol=pickup', { token })).body.total, 1);
  const page = await h.req('GET', '/v1/messages?limit=2&offset=2', { token });
  t.match(page.body, { total: 5, limit: 2, offset: 2 });
  t.equal(page.body.items.length, 2);

  for (const [q, field] of [
    ['state=lost', 'state'],
    ['protocol=email', 'protocol'],
    ['limit=501', 'limit'],
    ['limit=0', 'limit'],
    ['limit=abc', 'limit'],
    ['offset=-1', 'offset'],
    ['recipient=alice', 'recipient'],
    ['colour=red', 'colour'],
    ['state=queued&state=failed', 'state'],
  ] as const) {
    const res = await h.req('GET', `/v1/messages?${q}`, { token });
    isProblem(t, res, 400, 'validation', q);
    t.equal(res.body.field, field, `${q}: field`);
  }
  t.match((await h.req('GET', '/v1/messages?state=lost', { token })).body.detail, /state must be one of queued, live-delivered, delivered, acknowledged, expired, failed/);

  const status = await h.req('GET', '/v1/queue/status', { token });
  t.equal(status.status, 200);
  t.match(status.body, { counts: { queued: 4, delivered: 1, 'live-delivered': 0, acknowledged: 0, expired: 0, failed: 0 }, pending: 5, liveConnections: 0 });
  t.type(status.body.oldestPendingAgeSeconds, 'number');
  t.equal(status.body.oldestPendingAt, new Date(recs[0]!.receivedAt).toISOString(), 'the oldest pending is the first accepted');
});

t.test('queue status with nothing pending; live connections from the wire', async (t) => {
  const h = await harness(t, { operator: { live: { connections: 3 } } });
  const res = await h.req('GET', '/v1/queue/status', { token: await h.session() });
  t.match(res.body, { pending: 0, oldestPendingAgeSeconds: null, oldestPendingAt: null, liveConnections: 3 });
});

t.test('resolutions: one DID, every granted mediation, re-resolve; failures answered and emitted', async (t) => {
  const h = await harness(t);
  const token = await h.session(TENANT_A);
  const did = h.services.identity.did;
  const one = await h.req('GET', `/v1/resolutions/${encodeURIComponent(did)}`, { token });
  t.equal(one.status, 200);
  t.match(one.body, { did, method: 'key', active: true, source: 'did', error: null });
  const { mediation } = await h.mediation(TENANT_A);
  await h.mediation(TENANT_A, { state: 'revoked' });
  const list = await h.req('GET', '/v1/resolutions', { token });
  t.same(list.body.map((r: { did: string }) => r.did), [mediation.recipientDid], 'granted mediations only');
  const fresh = await h.req('POST', `/v1/resolutions/${encodeURIComponent(did)}/re-resolve`, { token });
  t.match(fresh.body, { did, active: true });
  const onChain = await h.req('GET', `/v1/resolutions/${encodeURIComponent(DID)}`, { token });
  t.match(onChain.body, { did: DID, method: 'ledger', active: true, source: 'chain', serviceEndpoints: [], keyAgreement: [`${DID}#key-x25519-1`], error: null }, 'a did:ledger DID committed on chain (its SolidPod service is no DIDComm service)');
  const missing = await h.req('GET', `/v1/resolutions/${encodeURIComponent('did:ledger:testnet:1111111111111111111111')}`, { token });
  t.equal(missing.status, 200);
  t.match(missing.body, { active: false });
  t.type(missing.body.error, 'string');
  isProblem(t, await h.req('GET', '/v1/resolutions/not-a-did', { token }), 400, 'validation', 'not a DID');
});

t.test('delivery log: newest first, recipient filter, ISO times, limit validated', async (t) => {
  const h = await harness(t);
  const token = await h.session(TENANT_A);
  const { mediation, keys } = await h.mediation(TENANT_A, { keys: 2 });
  await h.services.delivery.accept(mediation, keys[0]!, null, new Uint8Array(1));
  await h.services.delivery.accept(mediation, keys[1]!, null, new Uint8Array(2));
  const all = await h.req('GET', '/v1/delivery-log', { token });
  t.equal(all.status, 200);
  t.equal(all.body.length, 2);
  t.match(all.body[0], { level: 'info', message: /queued .* for / });
  t.ok(!Number.isNaN(Date.parse(all.body[0].at)) && all.body[0].at.endsWith('Z'), 'ISO 8601');
  for (const e of all.body) t.type(e.id, 'string');
  t.match(all.body[0].message, keys[1]!, 'newest first');
  const mine = await h.req('GET', `/v1/delivery-log?recipient=${encodeURIComponent(keys[0]!)}&limit=10`, { token });
  t.equal(mine.body.length, 1);
  t.equal(mine.body[0].recipient, keys[0]);
  t.equal((await h.req('GET', '/v1/delivery-log?limit=1', { token })).body.length, 1);
  isProblem(t, await h.req('GET', '/v1/delivery-log?limit=9999', { token }), 400, 'validation', 'limit too big');
  isProblem(t, await h.req('GET', '/v1/delivery-log?recipient=bob', { token }), 400, 'validation', 'recipient not a DID');
});
