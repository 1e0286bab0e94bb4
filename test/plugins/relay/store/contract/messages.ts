import type { Test } from 'tap';
import type { MessageRecord } from '../../../../../plugins/relay/store/types.js';
import { body, newMessage, type Backend } from './backend.js';

const ALICE = 'did:key:z6MkAlice';
const BOB = 'did:key:z6MkBob';
const ids = (rs: readonly MessageRecord[]) => rs.map((r) => r.id);

/** The message queue's transitions, listing and counts, on any backend. */
export function messagesContract(t: Test, backend: Backend): void {
  t.test('enqueue stores the record and body; get, body, pending oldest first, countPending', async (t) => {
    let clock = 1_000;
    const store = await backend.make(t, { now: () => clock++ });
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
    t.same(await backend.inconsistencies(store), []);
  });

  t.test('getMany reads records in the order asked, unknown and repeated ids included', async (t) => {
    const store = await backend.make(t);
    const q = store.messages;
    const a = await q.enqueue(newMessage({ recipient: ALICE }), body(1), 10);
    const b = await q.enqueue(newMessage({ recipient: BOB }), body(2), 11);
    await q.markDelivered([b.id], 'live-delivered', 12);
    await q.acknowledge([a.id], [ALICE], 13, true);
    const [gotB, missing, gotA, again] = await q.getMany([b.id, 'msg_nope', a.id, b.id]);
    t.same(gotB, await q.get(b.id));
    t.match(gotB, { state: 'live-delivered', deliveredAt: 12 });
    t.equal(missing, undefined);
    t.match(gotA, { id: a.id, state: 'acknowledged', acknowledgedAt: 13 }, 'a record whose body was purged');
    t.same(again, gotB);
    t.not(again, gotB, 'each position its own object');
    t.same(await q.getMany([]), []);
    await t.rejects(q.getMany([a.id, 'msg\x00x']), { code: 'RELAY_BAD_KEY' });
    await t.rejects(q.getMany('msg_x' as never), { code: 'RELAY_BAD_KEY' });
  });

  t.test('ids keep arrival order when the clock stands still or steps back', async (t) => {
    const times = [5_000, 5_000, 5_000, 4_000, 6_000];
    const store = await backend.make(t, { now: () => times.shift() ?? 7_000 });
    const made: string[] = [];
    for (let i = 0; i < 6; i++) made.push((await store.messages.enqueue(newMessage(), body(i), 1)).id);
    t.same([...made].sort(), made);
    t.equal(new Set(made).size, 6);
    t.same(ids(await store.messages.pending([newMessage().recipient], 10)), made);
  });

  t.test('queued -> delivered -> acknowledged keeps the body until expiry', async (t) => {
    const store = await backend.make(t);
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
    t.same(await backend.inconsistencies(store), []);
    t.same(await q.expire(100_000, 10), [], 'an acknowledged message does not expire');
    t.equal(await q.body(m.id), undefined, 'but its body is dropped at its expiry');
    t.match(await q.get(m.id), { state: 'acknowledged' });
    t.same(await backend.inconsistencies(store), []);
  });

  t.test('queued -> live-delivered -> acknowledged with purge drops the body at once', async (t) => {
    const store = await backend.make(t);
    const q = store.messages;
    const m = await q.enqueue(newMessage({ recipient: ALICE }), body(1), 10);
    await q.markDelivered([m.id], 'live-delivered', 11);
    t.match(await q.get(m.id), { state: 'live-delivered', protocol: 'pickup', deliveredAt: 11 });
    t.equal(await q.countPending([ALICE]), 1);
    t.same(await q.acknowledge([m.id], [ALICE], 12, true), [m.id]);
    t.match(await q.get(m.id), { state: 'acknowledged', acknowledgedAt: 12 });
    t.equal(await q.body(m.id), undefined);
    t.same(await backend.inconsistencies(store), []);
  });

  t.test('a queued message can be acknowledged directly; a double ack returns nothing the second time', async (t) => {
    const store = await backend.make(t);
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
    const store = await backend.make(t);
    const q = store.messages;
    const mine = await q.enqueue(newMessage({ recipient: ALICE }), body(1), 10);
    const theirs = await q.enqueue(newMessage({ recipient: BOB }), body(2), 10);
    t.same(await q.acknowledge([mine.id, theirs.id], [ALICE], 20, true), [mine.id]);
    t.match(await q.get(theirs.id), { state: 'queued', acknowledgedAt: null });
    t.same(await q.body(theirs.id), body(2));
    t.equal(await q.countPending([BOB]), 1);
    t.same(await q.acknowledge([theirs.id], [], 20, true), [], 'no recipients, nothing acknowledged');
    t.same(await backend.inconsistencies(store), []);
  });

  t.test('pending -> expired: the sweeper uses the expiry index, returns the expired and drops bodies', async (t) => {
    const store = await backend.make(t);
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
    t.same(await backend.inconsistencies(store), []);
  });

  t.test('pending -> failed for every pending message of the recipients; bodies go at expiry', async (t) => {
    const store = await backend.make(t);
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
    t.same(await backend.inconsistencies(store), []);
  });

  t.test('no transition leaves a final state', async (t) => {
    const store = await backend.make(t);
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
    t.same(await backend.inconsistencies(store), []);
  });
}
