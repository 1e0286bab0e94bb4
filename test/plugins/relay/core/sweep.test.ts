import t from 'tap';
import { harness, TENANT_A } from '../operator/harness.js';

/**
 * The retention sweeper deletes the records of final messages 7 days after their retention
 * window ended; until then the operator's message list shows them.
 */

const DAY = 86_400_000;

t.test('sweep deletes acknowledged and expired records 7 days after their window, and nothing else', async (t) => {
  const start = Date.now();
  let now = start;
  const h = await harness(t, { now: () => now });
  const token = async () => h.session(TENANT_A); // a fresh session each time: the clock jumps by days
  t.equal((await h.req('PUT', '/v1/policies/retention', { token: await token(), body: { retentionSeconds: 60 } })).status, 200);
  const { mediation, keys } = await h.mediation(TENANT_A, { keys: 1 });
  const { delivery, store } = h.services;
  const listed = async () => {
    const res = await h.req('GET', '/v1/messages?limit=100', { token: await token() });
    t.equal(res.status, 200);
    return { ids: (res.body.items as { id: string }[]).map((m) => m.id).sort(), total: res.body.total as number };
  };

  const acked = await delivery.accept(mediation, keys[0]!, null, Buffer.from('{"ciphertext":"a"}'));
  const expiring = await delivery.accept(mediation, keys[0]!, null, Buffer.from('{"ciphertext":"b"}'));
  t.same(await delivery.acknowledge(mediation, [acked.id], keys), [acked.id]);

  now = start + 61_000;
  t.equal(await delivery.sweep(), 1, 'the pending one expires at the end of its window');
  t.match(await store.messages.get(acked.id), { state: 'acknowledged' });
  t.match(await store.messages.get(expiring.id), { state: 'expired' });

  now = start + 60_000 + 7 * DAY - 1_000;
  t.equal(await delivery.sweep(), 0);
  t.same(await listed(), { ids: [acked.id, expiring.id].sort(), total: 2 }, 'listed until 7 days past their window');
  const fresh = await delivery.accept(mediation, keys[0]!, null, Buffer.from('{"ciphertext":"c"}'));
  const freshAcked = await delivery.accept(mediation, keys[0]!, null, Buffer.from('{"ciphertext":"d"}'));
  t.same(await delivery.acknowledge(mediation, [freshAcked.id], keys), [freshAcked.id]);

  now = start + 60_000 + 7 * DAY + 1;
  t.equal(await delivery.sweep(), 0, 'nothing expires');
  t.equal(await store.messages.get(acked.id), undefined, 'the acknowledged record is gone');
  t.equal(await store.messages.get(expiring.id), undefined, 'the expired record is gone');
  t.match(await store.messages.get(fresh.id), { state: 'queued' }, 'a pending message stays');
  t.same(await store.messages.body(fresh.id), Buffer.from('{"ciphertext":"c"}'));
  t.match(await store.messages.get(freshAcked.id), { state: 'acknowledged' }, 'a final message within its 7 days stays');
  t.same(await listed(), { ids: [fresh.id, freshAcked.id].sort(), total: 2 });
  t.same(await store.messages.stateCounts(TENANT_A), { queued: 1, 'live-delivered': 0, delivered: 0, acknowledged: 1, expired: 0, failed: 0 });
  t.same((await delivery.collect(keys, 10)).map((p) => p.record.id), [fresh.id], 'pickup still finds the pending one');
  t.equal(await delivery.sweep(), 0, 'a sweep with nothing to do');
  t.same(await listed(), { ids: [fresh.id, freshAcked.id].sort(), total: 2 });
});

t.test('sweep prunes more than one chunk in one pass', async (t) => {
  let now = 1_000_000;
  const h = await harness(t, { now: () => now });
  const { delivery, store } = h.services;
  const enqueue = (recipient: string, expiresAt: number) =>
    store.messages.enqueue({ tenantId: TENANT_A, mediationId: 'med-1', recipient, sender: null, size: 1, expiresAt }, new Uint8Array(1), now);
  const n = 2_345;
  for (let i = 0; i < n; i += 100) await Promise.all(Array.from({ length: Math.min(100, n - i) }, () => enqueue('did:key:z6MkGone', now + 1_000)));
  t.equal((await store.messages.fail(['did:key:z6MkGone'], 'revoked', now)).length, n);
  const late = await enqueue('did:key:z6MkLate', now + 500);
  const kept = await enqueue('did:key:z6MkKept', now + 30 * DAY);
  now += 1_000 + 7 * DAY + 1;
  t.equal(await delivery.sweep(), 1, 'the pending one past its window expires');
  t.equal(await store.messages.get(late.id), undefined, 'and, its window having ended 7 days ago (the sweeper was not running), is pruned in the same pass');
  t.same(await store.messages.stateCounts(TENANT_A), { queued: 1, 'live-delivered': 0, delivered: 0, acknowledged: 0, expired: 0, failed: 0 }, 'every failed record is gone');
  t.match(await store.messages.get(kept.id), { state: 'queued' });
  t.equal((await store.messages.list({ tenantId: TENANT_A, limit: 10, offset: 0 })).total, 1);
});
