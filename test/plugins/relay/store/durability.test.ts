import t, { type Test } from 'tap';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../../../node/state/db.js';
import { createLevelRelayStore } from '../../../../plugins/relay/store/level.js';
import type { MessageRecord } from '../../../../plugins/relay/store/types.js';
import { body, inconsistencies, newMessage } from './helpers.js';

const ids = (rs: readonly MessageRecord[]) => rs.map((r) => r.id);

/** Opens the store on `dir` again, closed at teardown. */
async function reopen(t: Test, dir: string) {
  const db = await openDatabase(dir);
  const store = createLevelRelayStore(db.pluginStore('relay'));
  t.teardown(async () => {
    await store.close();
    await db.close();
  });
  return { db, store };
}

t.test('a real LevelDB directory: write, close, reopen, everything is there', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-store-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const M = 60_000;

  let db = await openDatabase(dir);
  let store = createLevelRelayStore(db.pluginStore('relay'));
  await store.mediations.put({
    id: 'med-1',
    tenantId: 'tenant-a',
    recipientDid: 'did:key:agent',
    state: 'granted',
    reason: null,
    gate: null,
    createdAt: 1,
    updatedAt: 2,
    grantedAt: 2,
  });
  await store.mediations.updateKeys('med-1', ['did:key:k1', 'did:key:k2'], [], 3);
  const queued = await store.messages.enqueue(newMessage({ recipient: 'did:key:k1' }), body(1, 256 * 1024), 10);
  const delivered = await store.messages.enqueue(newMessage({ recipient: 'did:key:k1' }), body(2), 11);
  const acked = await store.messages.enqueue(newMessage({ recipient: 'did:key:k2' }), body(3), 12);
  const purged = await store.messages.enqueue(newMessage({ recipient: 'did:key:k2' }), body(4), 13);
  await store.messages.markDelivered([delivered.id], 'delivered', 20);
  await store.messages.acknowledge([acked.id], ['did:key:k2'], 21, false);
  await store.messages.acknowledge([purged.id], ['did:key:k2'], 22, true);
  await store.documents.put('tenant-a', 'settings', 'main', { retentionDays: 7 });
  await store.documents.putIndex('apikey', 'h1', { tenantId: 'tenant-a', id: 'k1' });
  await store.log.append([{ tenantId: 'tenant-a', at: 30, level: 'info', message: 'hello', recipient: 'did:key:k1' }]);
  store.counters.add('tenant-a', 'forwarded', 5 * M, 3);
  const secret = await store.secret('seed', () => new Uint8Array([9, 8, 7]));
  await store.close();
  t.equal(db.root.status, 'open', 'the store does not close the database');
  await db.close();

  ({ db, store } = await reopen(t, dir));
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
  t.same((await q.pending(['did:key:k1', 'did:key:k2'], 10)).map((m) => m.id), [queued.id, delivered.id]);
  t.equal(await q.countPending(['did:key:k1', 'did:key:k2']), 2);
  t.same(await q.stateCounts('tenant-a'), { queued: 1, 'live-delivered': 0, delivered: 1, acknowledged: 2, expired: 0, failed: 0 });
  t.equal((await q.list({ tenantId: 'tenant-a', limit: 10, offset: 0 })).total, 4);
  t.same(await store.documents.get('tenant-a', 'settings', 'main'), { retentionDays: 7 });
  t.same(await store.documents.index('apikey', 'h1'), { tenantId: 'tenant-a', id: 'k1' });
  t.match(await store.log.list('tenant-a', { recipient: 'did:key:k1', limit: 10 }), [{ message: 'hello', at: 30 }]);
  t.same(await store.counters.series('tenant-a', 'forwarded', 5 * M, 6 * M, M), [3], 'counters flushed on close');
  t.same(await store.secret('seed', () => new Uint8Array([1])), secret);
  t.same(await inconsistencies(db.pluginStore('relay')), []);

  // the counts cache is rebuilt from the store: transitions after the reopen keep them right
  const later = await q.enqueue(newMessage({ recipient: 'did:key:k1' }), body(5), 40);
  t.same(await q.acknowledge([queued.id, later.id], ['did:key:k1'], 41, true), [queued.id, later.id]);
  t.equal(await q.countPending(['did:key:k1']), 1);
  t.same(await inconsistencies(db.pluginStore('relay')), []);

  // every key is inside the plugin's namespace, in its child sublevels
  const raw = (await db.root.keys().all()).map((k) => Buffer.from(k).toString('latin1'));
  t.ok(raw.length > 20);
  t.ok(raw.every((k) => k.startsWith('!plugin:relay!!')), 'nothing outside plugin:relay');
});

t.test('a real LevelDB directory: pruned records stay gone after a reopen, with their indexes and counts', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-store-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));

  let db = await openDatabase(dir);
  let store = createLevelRelayStore(db.pluginStore('relay'));
  const acked = await store.messages.enqueue(newMessage({ recipient: 'did:key:k1', expiresAt: 1_000 }), body(1), 10);
  const failed = await store.messages.enqueue(newMessage({ recipient: 'did:key:k2', expiresAt: 1_000 }), body(2), 11);
  const pending = await store.messages.enqueue(newMessage({ recipient: 'did:key:k1', expiresAt: 1_000 }), body(3), 12);
  const later = await store.messages.enqueue(newMessage({ recipient: 'did:key:k1', expiresAt: 9_000 }), body(4), 13);
  await store.messages.acknowledge([acked.id, later.id], ['did:key:k1'], 20, false);
  await store.messages.fail(['did:key:k2'], 'revoked', 21);
  t.equal(await store.messages.prune(5_000, 10), 2);
  await store.close();
  await db.close();

  ({ db, store } = await reopen(t, dir));
  const q = store.messages;
  t.equal(await q.get(acked.id), undefined);
  t.equal(await q.get(failed.id), undefined);
  t.match(await q.get(pending.id), { state: 'queued' });
  t.match(await q.get(later.id), { state: 'acknowledged' });
  t.same(await q.stateCounts('tenant-a'), { queued: 1, 'live-delivered': 0, delivered: 0, acknowledged: 1, expired: 0, failed: 0 });
  t.equal((await q.list({ tenantId: 'tenant-a', limit: 10, offset: 0 })).total, 2);
  t.same(await inconsistencies(db.pluginStore('relay')), []);
  const raw = (await db.root.keys().all()).map((k) => Buffer.from(k).toString('latin1'));
  t.notOk(raw.some((k) => k.includes(acked.id) || k.includes(failed.id)), 'no key of a pruned message is left');
  t.equal(await q.prune(5_000, 10), 0, 'nothing more to prune');
  // the count cache is refilled from the store: the next transitions keep the counts right
  t.same(ids(await q.expire(1_000, 10)), [pending.id]);
  t.equal(await q.prune(5_000, 10), 1);
  t.same(await q.stateCounts('tenant-a'), { queued: 0, 'live-delivered': 0, delivered: 0, acknowledged: 1, expired: 0, failed: 0 });
  t.same(await inconsistencies(db.pluginStore('relay')), []);
});
