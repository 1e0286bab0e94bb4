import type { Test } from 'tap';
import type { MessageRecord } from '../../../../../plugins/relay/store/types.js';
import { body, newMessage, type Backend } from './backend.js';

const ids = (rs: readonly MessageRecord[]) => rs.map((r) => r.id);

/** What a store wrote and resolved is there for the next store opened on the same records. */
export function durabilityContract(t: Test, backend: Backend): void {
  t.test('write, close, open again: everything is there', async (t) => {
    const M = 60_000;
    const first = await backend.make(t);
    await first.mediations.put({ id: 'med-1', tenantId: 'tenant-a', recipientDid: 'did:key:agent', state: 'granted', reason: null, gate: null, createdAt: 1, updatedAt: 2, grantedAt: 2 });
    await first.mediations.updateKeys('med-1', ['did:key:k1', 'did:key:k2'], [], 3);
    const queued = await first.messages.enqueue(newMessage({ recipient: 'did:key:k1' }), body(1, 256 * 1024), 10);
    const delivered = await first.messages.enqueue(newMessage({ recipient: 'did:key:k1' }), body(2), 11);
    const acked = await first.messages.enqueue(newMessage({ recipient: 'did:key:k2' }), body(3), 12);
    const purged = await first.messages.enqueue(newMessage({ recipient: 'did:key:k2' }), body(4), 13);
    await first.messages.markDelivered([delivered.id], 'delivered', 20);
    await first.messages.acknowledge([acked.id], ['did:key:k2'], 21, false);
    await first.messages.acknowledge([purged.id], ['did:key:k2'], 22, true);
    await first.documents.put('tenant-a', 'settings', 'main', { retentionDays: 7 });
    await first.documents.putIndex('apikey', 'h1', { tenantId: 'tenant-a', id: 'k1' });
    await first.log.append([{ tenantId: 'tenant-a', at: 30, level: 'info', message: 'hello', recipient: 'did:key:k1' }]);
    first.counters.add('tenant-a', 'forwarded', 5 * M, 3);
    const secret = await first.secret('seed', () => new Uint8Array([9, 8, 7]));
    await first.close();

    const store = await backend.again(t, first);
    const q = store.messages;
    t.match(await store.mediations.byRecipient('did:key:agent'), { id: 'med-1', state: 'granted' });
    t.same((await store.mediations.keylist('med-1')).total, 2);
    t.match(await store.mediations.byKey('did:key:k2'), { mediationId: 'med-1', addedAt: 3 });
    t.same(await q.get(queued.id), queued);
    t.same(await q.body(queued.id), body(1, 256 * 1024), 'a 256 KB body');
    t.match(await q.get(delivered.id), { state: 'delivered', deliveredAt: 20 });
    t.match(await q.get(acked.id), { state: 'acknowledged', acknowledgedAt: 21 });
    t.same(await q.body(acked.id), body(3));
    t.equal(await q.body(purged.id), undefined);
    t.same(ids(await q.pending(['did:key:k1', 'did:key:k2'], 10)), [queued.id, delivered.id]);
    t.equal(await q.countPending(['did:key:k1', 'did:key:k2']), 2);
    t.same(await q.stateCounts('tenant-a'), { queued: 1, 'live-delivered': 0, delivered: 1, acknowledged: 2, expired: 0, failed: 0 });
    t.equal((await q.list({ tenantId: 'tenant-a', limit: 10, offset: 0 })).total, 4);
    t.same(await store.documents.get('tenant-a', 'settings', 'main'), { retentionDays: 7 });
    t.same(await store.documents.index('apikey', 'h1'), { tenantId: 'tenant-a', id: 'k1' });
    t.match(await store.log.list('tenant-a', { recipient: 'did:key:k1', limit: 10 }), [{ message: 'hello', at: 30 }]);
    t.same(await store.counters.series('tenant-a', 'forwarded', 5 * M, 6 * M, M), [3], 'counters flushed on close');
    t.same(await store.secret('seed', () => new Uint8Array([1])), secret);
    t.same(await backend.inconsistencies(store), []);

    // transitions after the reopen keep the counts right
    const later = await q.enqueue(newMessage({ recipient: 'did:key:k1' }), body(5), 40);
    t.ok(later.id > delivered.id, 'ids made after the reopen sort after the earlier ones');
    t.same(await q.acknowledge([queued.id, later.id], ['did:key:k1'], 41, true), [queued.id, later.id]);
    t.equal(await q.countPending(['did:key:k1']), 1);
    t.same(await backend.inconsistencies(store), []);
  });
}
