import type { Test } from 'tap';
import type { Arrival, Coordination } from '../../../../plugins/relay/coordination/types.js';
import type { MessageRecord } from '../../../../plugins/relay/store/types.js';

/**
 * What every Coordination backend must do on one instance (memory.ts and redis.ts both pass it).
 * What several instances share is tested on Redis alone (redis.test.ts).
 */

export const record = (id: string, mediationId = 'med-1', over: Partial<MessageRecord> = {}): MessageRecord => ({
  id,
  tenantId: 'tenant-a',
  mediationId,
  recipient: 'did:key:z6MkRecipient',
  sender: null,
  protocol: 'forward',
  state: 'queued',
  size: 3,
  receivedAt: 1000,
  deliveredAt: null,
  acknowledgedAt: null,
  expiresAt: 2000,
  reason: null,
  ...over,
});

export const arrival = (id: string, mediationId = 'med-1', body = new Uint8Array([1, 2, 3])): Arrival => ({ mediationId, record: record(id, mediationId), body });

export function coordinationContract(t: Test, make: (t: Test) => Promise<Coordination>): void {
  t.test('a fixed window per DID: refusals are not counted', async (t) => {
    const c = await make(t);
    const did = `did:key:z6Mk${Math.random().toString(36).slice(2)}`;
    for (let i = 1; i <= 3; i++) t.match(await c.limiter.hit(did, 3), { allowed: true, count: i });
    const refused = await c.limiter.hit(did, 3);
    t.match(refused, { allowed: false, count: 3 }, 'the fourth in the minute is refused');
    t.ok(refused.retryAfter >= 1 && refused.retryAfter <= 60, `retryAfter ${refused.retryAfter} s is within the minute`);
    t.match(await c.limiter.peek(did), { count: 3 }, 'peek does not count');
    t.match(await c.limiter.hit(`${did}-other`, 3), { allowed: true, count: 1 }, 'another DID has its own window');
    t.same(await c.limiter.peek('did:key:never-seen'), { count: 0, retryAfter: 60 }, 'a DID with no window waits a whole one');
  });

  t.test('replay: a (sender, id) pair is first seen once', async (t) => {
    const c = await make(t);
    const id = `m-${Math.random().toString(36).slice(2)}`;
    t.equal(await c.replay.firstSeen('did:a', id), true);
    t.equal(await c.replay.firstSeen('did:a', id), false, 'replayed');
    t.equal(await c.replay.firstSeen('did:b', id), true, 'another sender may use the same id');
    t.equal(await c.replay.firstSeen(null, id), true, 'anonymous is its own sender');
    t.equal(await c.replay.firstSeen(null, id), false);
  });

  t.test('arrivals reach the listeners of their mediation on this instance, once each', async (t) => {
    const c = await make(t);
    const heard: string[] = [];
    const off1 = c.arrivals.subscribe('med-1', (a) => heard.push(`1:${a.record.id}`));
    const off2 = c.arrivals.subscribe('med-1', (a) => heard.push(`2:${a.record.id}`));
    const off3 = c.arrivals.subscribe('med-2', (a) => heard.push(`3:${a.record.id}`));
    t.equal(c.arrivals.listening, 2, 'two mediations have listeners');
    await c.arrivals.publish(arrival('msg_a'));
    t.same(heard, ['1:msg_a', '2:msg_a'], 'told at once, before publish resolves');
    off1();
    off1();
    await c.arrivals.publish(arrival('msg_b'));
    off2();
    await c.arrivals.publish(arrival('msg_c'));
    await c.arrivals.publish(arrival('msg_d', 'med-2'));
    // an echo from the backend, if any, would land after a short wait
    await new Promise((r) => setTimeout(r, 200));
    t.same(heard, ['1:msg_a', '2:msg_a', '2:msg_b', '3:msg_d'], 'an unsubscribed listener hears nothing more, and nothing comes twice');
    t.equal(c.arrivals.listening, 1);
    off3();
    t.equal(c.arrivals.listening, 0);
  });

  t.test('ping answers while the backend is up', async (t) => {
    const c = await make(t);
    await t.resolves(c.ping());
  });
}
