import type { Test } from 'tap';
import type { MessageRecord } from '../../../../../plugins/relay/store/types.js';
import { body, newMessage, type Backend } from './backend.js';

const ALICE = 'did:key:z6MkAlice';
const BOB = 'did:key:z6MkBob';
const ids = (rs: readonly MessageRecord[]) => rs.map((r) => r.id);
const ZERO = { queued: 0, 'live-delivered': 0, delivered: 0, acknowledged: 0, expired: 0, failed: 0 };

/** Pruning final messages, on any backend. */
export function pruneContract(t: Test, backend: Backend): void {
  t.test('prune deletes final records past `before` with every key that refers to them, never pending ones', async (t) => {
    const store = await backend.make(t);
    const q = store.messages;
    const enqueue = (recipient: string, expiresAt: number, tenantId = 'tenant-a') => q.enqueue(newMessage({ tenantId, recipient, expiresAt }), body(expiresAt), 1);
    const expired = await enqueue(ALICE, 500);
    const ackKept = await enqueue(ALICE, 1_000);
    const ackPurged = await enqueue(ALICE, 1_000);
    const failed = await enqueue(BOB, 1_500);
    const otherTenant = await enqueue(ALICE, 2_000, 'tenant-b');
    const queuedOld = await enqueue(ALICE, 800); // past `before` but never expired: still pending
    const deliveredOld = await enqueue(ALICE, 900);
    const ackLate = await enqueue(ALICE, 9_000);
    await q.markDelivered([deliveredOld.id], 'delivered', 2);
    await q.acknowledge([ackKept.id, otherTenant.id, ackLate.id], [ALICE], 3, false);
    await q.acknowledge([ackPurged.id], [ALICE], 3, true);
    await q.fail([BOB], 'revoked', 4);
    t.same(ids(await q.expire(500, 10)), [expired.id]);
    t.same(await backend.inconsistencies(store), []);

    t.equal(await q.prune(500, 10), 0, 'expiresAt must be before `before`');
    t.equal(await q.prune(501, 10), 1);
    t.equal(await q.get(expired.id), undefined);
    t.equal(await q.prune(5_000, 2), 2, 'at most max, oldest expiry first');
    t.equal(await q.get(ackKept.id), undefined);
    t.equal(await q.get(ackPurged.id), undefined);
    t.same(await q.body(ackKept.id), undefined, 'a body not yet swept goes with its record');
    t.same(await backend.inconsistencies(store), []);
    t.equal(await q.prune(5_000, 100), 2, "the failed one and the other tenant's");
    t.equal(await q.prune(5_000, 100), 0, 'nothing left before 5 000');
    t.equal(await q.prune(5_000, 0), 0);

    for (const m of [expired, ackKept, ackPurged, failed, otherTenant]) {
      t.equal(await q.get(m.id), undefined, `${m.id} deleted`);
      t.equal(await q.body(m.id), undefined);
    }
    const raw = await backend.traces(store);
    for (const m of [expired, ackKept, ackPurged, failed, otherTenant]) t.notOk(raw.some((k) => k.includes(m.id)), `no key left for ${m.id}`);
    t.match(await q.get(queuedOld.id), { state: 'queued' }, 'a pending message past `before` stays');
    t.same(await q.body(queuedOld.id), body(800));
    t.match(await q.get(deliveredOld.id), { state: 'delivered' });
    t.match(await q.get(ackLate.id), { state: 'acknowledged' }, 'a final message not yet past `before` stays');
    t.same(ids(await q.pending([ALICE], 10)), [queuedOld.id, deliveredOld.id]);
    t.equal(await q.countPending([ALICE, BOB]), 2);
    t.same(await q.stateCounts('tenant-a'), { ...ZERO, queued: 1, delivered: 1, acknowledged: 1 });
    t.same(await q.stateCounts('tenant-b'), ZERO);
    const listed = await q.list({ tenantId: 'tenant-a', limit: 100, offset: 0 });
    t.same(ids(listed.items), [ackLate.id, deliveredOld.id, queuedOld.id]);
    t.equal(listed.total, 3);
    t.same(await q.list({ tenantId: 'tenant-a', recipient: BOB, limit: 10, offset: 0 }), { items: [], total: 0 }, 'the scanned total agrees');
    t.same(await q.list({ tenantId: 'tenant-a', state: 'failed', limit: 10, offset: 0 }), { items: [], total: 0 });
    t.same(await q.list({ tenantId: 'tenant-b', limit: 10, offset: 0 }), { items: [], total: 0 });
    t.same(await backend.inconsistencies(store), []);

    // the pending ones expire later, and are pruned then
    t.same(ids(await q.expire(1_000, 10)), [queuedOld.id, deliveredOld.id]);
    t.equal(await q.prune(5_000, 100), 2);
    t.equal(await q.prune(10_000, 100), 1);
    t.same(await q.stateCounts('tenant-a'), ZERO);
    t.same(await q.list({ tenantId: 'tenant-a', limit: 10, offset: 0 }), { items: [], total: 0 });
    t.same(await backend.inconsistencies(store), []);
    t.same(await backend.traces(store), [], 'nothing is left of any message, counts included');
  });

  t.test('prune: bad input is refused', async (t) => {
    const store = await backend.make(t);
    await t.rejects(store.messages.prune(-1, 1), { code: 'RELAY_BAD_NUMBER' });
    await t.rejects(store.messages.prune(1e13, 1), { code: 'RELAY_BAD_NUMBER' });
    await t.rejects(store.messages.prune(1.5, 1), { code: 'RELAY_BAD_NUMBER' });
    await t.rejects(store.messages.prune(1, -1), { code: 'RELAY_BAD_NUMBER' });
    t.equal(await store.messages.prune(1e13 - 1, 10), 0);
  });

  t.test('prune in chunks racing enqueues, acks, fails and expiries keeps counts and indexes consistent', async (t) => {
    const store = await backend.make(t);
    const q = store.messages;
    const recipients = ['did:key:r0', 'did:key:r1', 'did:key:r2'];
    const work: Promise<unknown>[] = [];
    let pruned = 0;
    const prune = async () => {
      for (;;) {
        const n = await q.prune(50, 7);
        pruned += n;
        if (n < 7) return;
      }
    };
    for (let i = 0; i < 120; i++) {
      const recipient = recipients[i % 3]!;
      const msg = newMessage({ tenantId: i % 2 ? 'tenant-a' : 'tenant-b', recipient, expiresAt: i % 4 === 0 ? 100 : 10 + (i % 30) });
      work.push(
        q.enqueue(msg, body(i), i).then(async (m) => {
          if (i % 3 === 1) await q.acknowledge([m.id], [recipient], 200 + i, i % 2 === 0);
        }),
      );
      if (i % 20 === 10) work.push(q.expire(40, 30), prune());
      if (i === 60) work.push(q.fail(['did:key:r2'], 'revoked', 300));
    }
    await Promise.all(work);
    await q.expire(40, 1_000);
    await prune();
    t.same(await backend.inconsistencies(store), []);
    const sum = (r: Record<string, number>) => Object.values(r).reduce((x, y) => x + y, 0);
    const left = sum(await q.stateCounts('tenant-a')) + sum(await q.stateCounts('tenant-b'));
    t.equal(left + pruned, 120, `${pruned} pruned, ${left} left`);
    t.equal(left, 30, 'every message with a window before 40 expired or went final, and was pruned');
    const all = [...(await q.list({ tenantId: 'tenant-a', limit: 1_000, offset: 0 })).items, ...(await q.list({ tenantId: 'tenant-b', limit: 1_000, offset: 0 })).items];
    t.equal(all.length, left);
    t.ok(all.every((m) => m.expiresAt === 100), 'only the messages of the later window are left, whatever their state');
    t.ok(all.some((m) => m.state === 'queued') && all.some((m) => m.state === 'acknowledged'));
  });
}
