import t from 'tap';
import { LedgerError } from '../../../../node/errors.js';
import type { MessageRecord } from '../../../../plugins/relay/store/types.js';
import { body, inconsistencies, memoryStore, newMessage } from './helpers.js';

const ALICE = 'did:key:z6MkAlice';
const BOB = 'did:key:z6MkBob';
const ids = (rs: readonly MessageRecord[]) => rs.map((r) => r.id);

t.test('enqueue stores the record and body; get, body, pending oldest first, countPending', async (t) => {
  let clock = 1_000;
  const { ns, store } = await memoryStore(t, { now: () => clock++ });
  const q = store.messages;
  const a = await q.enqueue(newMessage({ recipient: ALICE, sender: 'did:key:z6MkSender', size: 5 }), body(1, 5), 500);
  const b = await q.enqueue(newMessage({ recipient: BOB }), body(2), 501);
  const c = await q.enqueue(newMessage({ recipient: ALICE }), body(3), 502);
  t.match(a.id, /^msg_[0-9a-f]{22}$/);
  t.ok(a.id < b.id && b.id < c.id, 'ids sort by arrival');
  t.same(a, {
    id: a.id,
    tenantId: 'tenant-a',
    mediationId: 'med-1',
    recipient: ALICE,
    sender: 'did:key:z6MkSender',
    protocol: 'forward',
    state: 'queued',
    size: 5,
    receivedAt: 500,
    deliveredAt: null,
    acknowledgedAt: null,
    expiresAt: 100_000,
    reason: null,
  });
  t.same(await q.get(a.id), a);
  t.same(await q.body(a.id), body(1, 5));
  t.equal((await q.body(a.id))!.constructor, Uint8Array, 'a plain Uint8Array');
  t.equal(await q.get('msg_nope'), undefined);
  t.equal(await q.body('msg_nope'), undefined);
  t.same(ids(await q.pending([ALICE], 10)), [a.id, c.id]);
  t.same(ids(await q.pending([BOB, ALICE], 10)), [a.id, b.id, c.id], 'merged across recipients, oldest first');
  t.same(ids(await q.pending([ALICE, BOB, ALICE], 2)), [a.id, b.id], 'limit');
  t.same(await q.pending([], 10), []);
  t.same(await q.pending([ALICE], 0), []);
  t.equal(await q.countPending([ALICE]), 2);
  t.equal(await q.countPending([ALICE, BOB]), 3);
  t.equal(await q.countPending([ALICE, ALICE]), 2, 'a recipient named twice counts once');
  t.equal(await q.countPending(['did:key:none']), 0);
  t.same(await inconsistencies(ns), []);
});

t.test('ids keep arrival order when the clock stands still or steps back', async (t) => {
  const times = [5_000, 5_000, 5_000, 4_000, 6_000];
  const { store } = await memoryStore(t, { now: () => times.shift() ?? 7_000 });
  const made: string[] = [];
  for (let i = 0; i < 6; i++) made.push((await store.messages.enqueue(newMessage(), body(i), 1)).id);
  t.same([...made].sort(), made);
  t.equal(new Set(made).size, 6);
  t.same(ids(await store.messages.pending([newMessage().recipient], 10)), made);
});

t.test('queued -> delivered -> acknowledged keeps the body until expiry', async (t) => {
  const { ns, store } = await memoryStore(t);
  const q = store.messages;
  const m = await q.enqueue(newMessage({ recipient: ALICE }), body(1), 10);
  await q.markDelivered([m.id], 'delivered', 20);
  t.match(await q.get(m.id), { state: 'delivered', protocol: 'pickup', deliveredAt: 20, acknowledgedAt: null });
  t.same(ids(await q.pending([ALICE], 10)), [m.id], 'a delivered message stays pending until acknowledged');
  t.equal(await q.countPending([ALICE]), 1);
  await q.markDelivered([m.id], 'delivered', 25);
  t.match(await q.get(m.id), { state: 'delivered', deliveredAt: 25 }, 'delivered again');
  t.same(await q.acknowledge([m.id], [ALICE], 30, false), [m.id]);
  t.match(await q.get(m.id), { state: 'acknowledged', protocol: 'pickup', deliveredAt: 25, acknowledgedAt: 30 });
  t.same(await q.pending([ALICE], 10), []);
  t.equal(await q.countPending([ALICE]), 0);
  t.same(await q.body(m.id), body(1), 'kept without purge');
  t.same(await q.stateCounts('tenant-a'), { queued: 0, 'live-delivered': 0, delivered: 0, acknowledged: 1, expired: 0, failed: 0 });
  t.same(await inconsistencies(ns), []);
  t.same(await q.expire(100_000, 10), [], 'an acknowledged message does not expire');
  t.equal(await q.body(m.id), undefined, 'but its body is dropped at its expiry');
  t.match(await q.get(m.id), { state: 'acknowledged' });
  t.same(await inconsistencies(ns), []);
});

t.test('queued -> live-delivered -> acknowledged with purge drops the body at once', async (t) => {
  const { ns, store } = await memoryStore(t);
  const q = store.messages;
  const m = await q.enqueue(newMessage({ recipient: ALICE }), body(1), 10);
  await q.markDelivered([m.id], 'live-delivered', 11);
  t.match(await q.get(m.id), { state: 'live-delivered', protocol: 'pickup', deliveredAt: 11 });
  t.equal(await q.countPending([ALICE]), 1);
  t.same(await q.acknowledge([m.id], [ALICE], 12, true), [m.id]);
  t.match(await q.get(m.id), { state: 'acknowledged', acknowledgedAt: 12 });
  t.equal(await q.body(m.id), undefined);
  t.same(await inconsistencies(ns), []);
});

t.test('a queued message can be acknowledged directly; a double ack returns nothing the second time', async (t) => {
  const { store } = await memoryStore(t);
  const q = store.messages;
  const m = await q.enqueue(newMessage({ recipient: ALICE }), body(1), 10);
  const n = await q.enqueue(newMessage({ recipient: ALICE }), body(2), 10);
  t.same(await q.acknowledge([m.id, m.id, 'msg_missing'], [ALICE], 20, false), [m.id], 'duplicates and unknown ids are skipped');
  t.match(await q.get(m.id), { state: 'acknowledged', deliveredAt: null });
  t.same(await q.acknowledge([m.id], [ALICE], 21, false), []);
  t.match(await q.get(m.id), { acknowledgedAt: 20 }, 'the first ack stands');
  t.same(await q.acknowledge([n.id, m.id], [ALICE], 22, false), [n.id]);
  t.same(await q.stateCounts('tenant-a'), { queued: 0, 'live-delivered': 0, delivered: 0, acknowledged: 2, expired: 0, failed: 0 });
});

t.test("acknowledging another recipient's message is refused", async (t) => {
  const { ns, store } = await memoryStore(t);
  const q = store.messages;
  const mine = await q.enqueue(newMessage({ recipient: ALICE }), body(1), 10);
  const theirs = await q.enqueue(newMessage({ recipient: BOB }), body(2), 10);
  t.same(await q.acknowledge([mine.id, theirs.id], [ALICE], 20, true), [mine.id]);
  t.match(await q.get(theirs.id), { state: 'queued', acknowledgedAt: null });
  t.same(await q.body(theirs.id), body(2));
  t.equal(await q.countPending([BOB]), 1);
  t.same(await q.acknowledge([theirs.id], [], 20, true), [], 'no recipients, nothing acknowledged');
  t.same(await inconsistencies(ns), []);
});

t.test('pending -> expired: the sweeper uses the expiry index, returns the expired and drops bodies', async (t) => {
  const { ns, store } = await memoryStore(t);
  const q = store.messages;
  const early = await q.enqueue(newMessage({ recipient: ALICE, expiresAt: 1_000 }), body(1), 1);
  const delivered = await q.enqueue(newMessage({ recipient: ALICE, expiresAt: 2_000 }), body(2), 1);
  const acked = await q.enqueue(newMessage({ recipient: BOB, expiresAt: 1_500 }), body(3), 1);
  const late = await q.enqueue(newMessage({ recipient: ALICE, expiresAt: 9_000 }), body(4), 1);
  await q.markDelivered([delivered.id], 'delivered', 2);
  await q.acknowledge([acked.id], [BOB], 3, false);
  t.same(await q.expire(999, 10), [], 'nothing has expired yet');
  const first = await q.expire(2_000, 1);
  t.same(ids(first), [early.id], 'at most max, oldest expiry first');
  t.match(first[0], { state: 'expired', reason: String, protocol: 'forward' });
  const second = await q.expire(2_000, 10);
  t.same(ids(second), [delivered.id], 'the acknowledged one is not returned; expiresAt <= now expires');
  t.match(second[0], { state: 'expired', protocol: 'pickup', deliveredAt: 2 });
  for (const id of [early.id, delivered.id, acked.id]) t.equal(await q.body(id), undefined, `${id} body dropped`);
  t.same(await q.body(late.id), body(4));
  t.same(ids(await q.pending([ALICE, BOB], 10)), [late.id]);
  t.equal(await q.countPending([ALICE]), 1);
  t.same(await q.expire(2_000, 10), [], 'nothing left to do');
  t.same(await q.stateCounts('tenant-a'), { queued: 1, 'live-delivered': 0, delivered: 0, acknowledged: 1, expired: 2, failed: 0 });
  t.same(await inconsistencies(ns), []);
});

t.test('pending -> failed for every pending message of the recipients; bodies go at expiry', async (t) => {
  const { ns, store } = await memoryStore(t);
  const q = store.messages;
  const a = await q.enqueue(newMessage({ recipient: ALICE }), body(1), 1);
  const b = await q.enqueue(newMessage({ recipient: ALICE }), body(2), 1);
  const c = await q.enqueue(newMessage({ recipient: ALICE }), body(3), 1);
  const other = await q.enqueue(newMessage({ recipient: BOB }), body(4), 1);
  await q.markDelivered([b.id], 'live-delivered', 2);
  await q.acknowledge([c.id], [ALICE], 3, false);
  const failed = await q.fail([ALICE], 'mediation revoked', 4);
  t.same(ids(failed), [a.id, b.id]);
  t.match(failed, [
    { state: 'failed', reason: 'mediation revoked' },
    { state: 'failed', reason: 'mediation revoked' },
  ]);
  t.match(await q.get(c.id), { state: 'acknowledged', reason: null }, 'the acknowledged one stays');
  t.match(await q.get(other.id), { state: 'queued' });
  t.equal(await q.countPending([ALICE]), 0);
  t.same(await q.pending([ALICE], 10), []);
  t.same(await q.fail([ALICE], 'again', 5), [], 'nothing pending is left');
  t.same(await q.body(a.id), body(1), 'kept until its expiry');
  t.same(ids(await q.expire(100_000, 10)), [other.id], "only BOB's pending message expires");
  for (const m of [a, b, c, other]) t.equal(await q.body(m.id), undefined, 'every body is gone past expiry');
  t.match(await q.get(a.id), { state: 'failed', reason: 'mediation revoked' }, 'a failed message stays failed');
  t.same(await q.stateCounts('tenant-a'), { queued: 0, 'live-delivered': 0, delivered: 0, acknowledged: 1, expired: 1, failed: 2 });
  t.same(await inconsistencies(ns), []);
});

t.test('no transition leaves a final state', async (t) => {
  const { ns, store } = await memoryStore(t);
  const q = store.messages;
  const acked = await q.enqueue(newMessage({ recipient: ALICE, expiresAt: 50 }), body(1), 1);
  const failed = await q.enqueue(newMessage({ recipient: ALICE, expiresAt: 50 }), body(2), 1);
  const expired = await q.enqueue(newMessage({ recipient: BOB, expiresAt: 10 }), body(3), 1);
  await q.acknowledge([acked.id], [ALICE], 2, false);
  await q.fail([ALICE], 'deactivated', 3);
  t.same(ids(await q.expire(10, 10)), [expired.id]);
  const before = await Promise.all([acked, failed, expired].map((m) => q.get(m.id)));
  const all = [acked.id, failed.id, expired.id];
  await q.markDelivered(all, 'delivered', 20);
  await q.markDelivered(all, 'live-delivered', 21);
  t.same(await q.acknowledge(all, [ALICE, BOB], 22, true), []);
  t.same(await q.fail([ALICE, BOB], 'again', 23), []);
  t.same(await q.expire(60, 10), [], 'past every expiry: bodies go, no record moves');
  const after = await Promise.all(all.map((id) => q.get(id)));
  t.same(after, before);
  t.same(await q.stateCounts('tenant-a'), { queued: 0, 'live-delivered': 0, delivered: 0, acknowledged: 1, expired: 1, failed: 1 });
  t.same(await inconsistencies(ns), []);
});

t.test('list: newest first, filters, limit, offset, total; stateCounts; tenants apart', async (t) => {
  const { store } = await memoryStore(t);
  const q = store.messages;
  const made: MessageRecord[] = [];
  for (let i = 0; i < 10; i++) made.push(await q.enqueue(newMessage({ recipient: i % 2 ? BOB : ALICE }), body(i), i));
  const other = await q.enqueue(newMessage({ tenantId: 'tenant-b', recipient: ALICE }), body(99), 99);
  await q.markDelivered([made[0]!.id, made[1]!.id, made[2]!.id], 'delivered', 20);
  await q.acknowledge([made[0]!.id], [ALICE], 21, false);
  const newest = [...made].reverse().map((m) => m.id);

  const all = await q.list({ tenantId: 'tenant-a', limit: 100, offset: 0 });
  t.same(ids(all.items), newest);
  t.equal(all.total, 10);
  const page = await q.list({ tenantId: 'tenant-a', limit: 3, offset: 2 });
  t.same(ids(page.items), newest.slice(2, 5));
  t.equal(page.total, 10);
  t.same(await q.list({ tenantId: 'tenant-a', limit: 3, offset: 10 }), { items: [], total: 10 });
  t.same(await q.list({ tenantId: 'tenant-a', limit: 0, offset: 0 }), { items: [], total: 10 });

  const queued = await q.list({ tenantId: 'tenant-a', state: 'queued', limit: 2, offset: 1 });
  t.same(ids(queued.items), [made[8]!.id, made[7]!.id]);
  t.equal(queued.total, 7);
  const delivered = await q.list({ tenantId: 'tenant-a', state: 'delivered', limit: 10, offset: 0 });
  t.same(ids(delivered.items), [made[2]!.id, made[1]!.id]);
  t.equal(delivered.total, 2);
  const pickup = await q.list({ tenantId: 'tenant-a', protocol: 'pickup', limit: 10, offset: 0 });
  t.same(ids(pickup.items), [made[2]!.id, made[1]!.id, made[0]!.id]);
  t.equal(pickup.total, 3);
  const forBob = await q.list({ tenantId: 'tenant-a', recipient: BOB, limit: 2, offset: 0 });
  t.same(ids(forBob.items), [made[9]!.id, made[7]!.id]);
  t.equal(forBob.total, 5);
  const combined = await q.list({ tenantId: 'tenant-a', recipient: ALICE, state: 'queued', protocol: 'forward', limit: 10, offset: 0 });
  t.same(ids(combined.items), [made[8]!.id, made[6]!.id, made[4]!.id]);
  t.equal(combined.total, 3);

  const b = await q.list({ tenantId: 'tenant-b', limit: 100, offset: 0 });
  t.same(ids(b.items), [other.id], "tenant B sees only its own; tenant A's list holds none of B's");
  t.equal(b.total, 1);
  t.same(await q.list({ tenantId: 'tenant-b', recipient: BOB, limit: 10, offset: 0 }), { items: [], total: 0 });
  t.same(await q.list({ tenantId: 'tenant', limit: 10, offset: 0 }), { items: [], total: 0 }, 'a tenant id that is a prefix of another sees nothing');
  t.same(await q.stateCounts('tenant-a'), { queued: 7, 'live-delivered': 0, delivered: 2, acknowledged: 1, expired: 0, failed: 0 });
  t.same(await q.stateCounts('tenant-b'), { queued: 1, 'live-delivered': 0, delivered: 0, acknowledged: 0, expired: 0, failed: 0 });
  t.same(await q.stateCounts('nobody'), { queued: 0, 'live-delivered': 0, delivered: 0, acknowledged: 0, expired: 0, failed: 0 });
  await t.rejects(q.list({ tenantId: 'tenant-a', state: 'lost' as never, limit: 1, offset: 0 }), { code: 'RELAY_BAD_STATE' });
  await t.rejects(q.list({ tenantId: 'tenant-a', limit: -1, offset: 0 }), { code: 'RELAY_BAD_NUMBER' });
});

t.test('key parts holding NUL and bad input are refused with a LedgerError', async (t) => {
  const { store } = await memoryStore(t);
  const q = store.messages;
  await t.rejects(q.enqueue(newMessage({ recipient: 'did:key:a\x00b' }), body(1), 1), LedgerError);
  await t.rejects(q.enqueue(newMessage({ recipient: 'did:key:a\x00b' }), body(1), 1), { code: 'RELAY_BAD_KEY', kind: 'invalid' });
  await t.rejects(q.enqueue(newMessage({ tenantId: 'x\x00' }), body(1), 1), { code: 'RELAY_BAD_KEY' });
  await t.rejects(q.enqueue(newMessage({ expiresAt: 1.5 }), body(1), 1), { code: 'RELAY_BAD_NUMBER' });
  await t.rejects(q.enqueue(newMessage(), 'text' as never, 1), { code: 'RELAY_BAD_MESSAGE' });
  await t.rejects(q.pending(['a\x00'], 1), { code: 'RELAY_BAD_KEY' });
  await t.rejects(q.countPending(['a\x00']), { code: 'RELAY_BAD_KEY' });
  await t.rejects(q.acknowledge(['msg_1'], ['a\x00'], 1, false), { code: 'RELAY_BAD_KEY' });
  await t.rejects(q.markDelivered(['msg_1'], 'acknowledged' as never, 1), { code: 'RELAY_BAD_STATE' });
  await t.rejects(q.fail(['a\x00'], 'x', 1), { code: 'RELAY_BAD_KEY' });
  await t.rejects(q.expire(-1, 1), { code: 'RELAY_BAD_NUMBER' });
  await t.rejects(q.get('a\x00'), { code: 'RELAY_BAD_KEY' });
  t.same(await q.list({ tenantId: 'tenant-a', limit: 10, offset: 0 }), { items: [], total: 0 }, 'nothing was written');
});

t.test('a clock that gives no time is refused', async (t) => {
  const { store } = await memoryStore(t, { now: () => NaN });
  await t.rejects(store.messages.enqueue(newMessage(), body(1), 1), { code: 'RELAY_BAD_NUMBER' });
  t.same(await store.messages.stateCounts('tenant-a'), { queued: 0, 'live-delivered': 0, delivered: 0, acknowledged: 0, expired: 0, failed: 0 });
});

t.test('fail moves a queue longer than one batch', async (t) => {
  const { ns, store } = await memoryStore(t);
  const q = store.messages;
  const n = 1_234;
  for (let i = 0; i < n; i += 100) {
    await Promise.all(Array.from({ length: Math.min(100, n - i) }, (_, j) => q.enqueue(newMessage({ recipient: ALICE }), body(i + j), 1)));
  }
  await q.enqueue(newMessage({ recipient: BOB }), body(0), 1);
  t.equal(await q.countPending([ALICE]), n);
  const failed = await q.fail([ALICE], 'revoked', 2);
  t.equal(failed.length, n);
  t.equal(new Set(ids(failed)).size, n);
  t.equal(await q.countPending([ALICE]), 0);
  t.equal(await q.countPending([BOB]), 1);
  t.same(await q.stateCounts('tenant-a'), { queued: 1, 'live-delivered': 0, delivered: 0, acknowledged: 0, expired: 0, failed: n });
  t.same(await inconsistencies(ns), []);
});

t.test('100 concurrent enqueues, deliveries, acks, expiries and fails leave consistent counts', async (t) => {
  const { ns, store } = await memoryStore(t);
  const q = store.messages;
  const recipients = ['did:key:r0', 'did:key:r1', 'did:key:r2', 'did:key:r3'];
  const acked: string[] = [];
  const work: Promise<unknown>[] = [];
  for (let i = 0; i < 100; i++) {
    const recipient = recipients[i % 4]!;
    const msg = newMessage({ tenantId: i % 3 ? 'tenant-a' : 'tenant-b', recipient, expiresAt: i % 5 === 0 ? 5 : 100_000 });
    work.push(
      q.enqueue(msg, body(i), i).then(async (m) => {
        // both racing deliveries and a racing double ack, all in flight at once
        const [, , a1, a2] = await Promise.all([
          q.markDelivered([m.id], 'delivered', 200 + i),
          q.markDelivered([m.id], 'live-delivered', 200 + i),
          i % 2 ? q.acknowledge([m.id], [recipient], 300 + i, i % 4 === 1) : Promise.resolve([]),
          i % 2 ? q.acknowledge([m.id], [recipient], 300 + i, false) : Promise.resolve([]),
        ]);
        acked.push(...a1, ...a2);
      }),
    );
    if (i === 50) work.push(q.expire(10, 100));
  }
  await Promise.all(work);
  t.equal(new Set(acked).size, acked.length, 'no message acknowledged twice');
  const failed = await q.fail(['did:key:r2'], 'revoked', 1_000);
  const expired = await q.expire(10, 100);
  t.same(await inconsistencies(ns), []);
  const a = await q.stateCounts('tenant-a');
  const b = await q.stateCounts('tenant-b');
  const sum = (r: Record<string, number>) => Object.values(r).reduce((x, y) => x + y, 0);
  t.equal(sum(a) + sum(b), 100);
  const ackedCount = a.acknowledged + b.acknowledged;
  t.ok(ackedCount >= 40 && ackedCount <= 50, `acknowledged ${ackedCount}: the odd ones, unless expired first`);
  t.equal(acked.length, ackedCount);
  t.equal(a.failed + b.failed, failed.length);
  let pending = 0;
  for (const r of recipients) {
    const n = await q.countPending([r]);
    t.equal((await q.pending([r], 1_000)).length, n, `${r}: countPending matches pending`);
    pending += n;
  }
  t.equal(pending, a.queued + a.delivered + a['live-delivered'] + b.queued + b.delivered + b['live-delivered']);
  t.ok(a.expired + b.expired >= expired.length);
  for (const r of recipients) t.notOk((await q.pending([r], 1_000)).some((m) => m.expiresAt <= 10), `${r}: nothing past expiry is pending`);
  t.equal(a.expired + b.expired + ackedCount + failed.length + pending, 100);
});
