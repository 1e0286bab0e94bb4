import type { Test } from 'tap';
import { LedgerError } from '../../../../../node/errors.js';
import type { MessageRecord } from '../../../../../plugins/relay/store/types.js';
import { body, newMessage, type Backend } from './backend.js';

const ALICE = 'did:key:z6MkAlice';
const BOB = 'did:key:z6MkBob';
const ids = (rs: readonly MessageRecord[]) => rs.map((r) => r.id);

/** Listing, refused input, and queues under load, on any backend. */
export function messageEdgesContract(t: Test, backend: Backend): void {
  t.test('list: newest first, filters, limit, offset, total; stateCounts; tenants apart', async (t) => {
    const store = await backend.make(t);
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
    const store = await backend.make(t);
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
    const store = await backend.make(t, { now: () => NaN });
    await t.rejects(store.messages.enqueue(newMessage(), body(1), 1), { code: 'RELAY_BAD_NUMBER' });
    t.same(await store.messages.stateCounts('tenant-a'), { queued: 0, 'live-delivered': 0, delivered: 0, acknowledged: 0, expired: 0, failed: 0 });
  });

  t.test('fail moves a queue longer than one batch', async (t) => {
    const store = await backend.make(t);
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
    t.same(await backend.inconsistencies(store), []);
  });

  t.test('100 concurrent enqueues, deliveries, acks, expiries and fails leave consistent counts', async (t) => {
    const store = await backend.make(t);
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
    t.same(await backend.inconsistencies(store), []);
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
}
