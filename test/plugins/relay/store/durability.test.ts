import t, { type Test } from 'tap';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Database } from '../../../../node/state/db.js';
import { createLevelRelayStore } from '../../../../plugins/relay/store/level.js';
import type { MessageRecord, RelayStore } from '../../../../plugins/relay/store/types.js';
import type { Backend } from './contract/backend.js';
import { durabilityContract } from './contract/durability.js';
import { body, inconsistencies, newMessage, testSecrets } from './helpers.js';

const ids = (rs: readonly MessageRecord[]) => rs.map((r) => r.id);

/** Opens the store on `dir` again, closed at teardown. */
async function reopen(t: Test, dir: string) {
  const db = await openDatabase(dir);
  const store = createLevelRelayStore(db.pluginStore('relay'), { secrets: testSecrets });
  t.teardown(async () => {
    await store.close();
    await db.close();
  });
  return { db, store };
}

const onDisk = new WeakMap<RelayStore, { dir: string; db: Database }>();

/** a store on its own LevelDB directory; `again` closes it and opens the directory anew */
const directory: Backend = {
  name: 'leveldb',
  async make(t) {
    const dir = await mkdtemp(join(tmpdir(), 'relay-store-'));
    t.teardown(() => rm(dir, { recursive: true, force: true }));
    return openOn(t, dir);
  },
  async again(t, store) {
    const { dir, db } = onDisk.get(store)!;
    await store.close();
    t.equal(db.root.status, 'open', 'the store does not close the database');
    await db.close();
    return openOn(t, dir);
  },
  inconsistencies: (store) => inconsistencies(onDisk.get(store)!.db.pluginStore('relay')),
  traces: async (store) => (await onDisk.get(store)!.db.root.keys().all()).map((k) => Buffer.from(k).toString('latin1')),
};

async function openOn(t: Test, dir: string): Promise<RelayStore> {
  const { db, store } = await reopen(t, dir);
  onDisk.set(store, { dir, db });
  return store;
}

t.test('a real LevelDB directory: the durability contract across a close and a reopen', async (t) => durabilityContract(t, directory));

t.test('a real LevelDB directory: every key is inside the plugin namespace', async (t) => {
  const store = await directory.make(t);
  await store.mediations.put({ id: 'med-1', tenantId: 'tenant-a', recipientDid: 'did:key:agent', state: 'granted', reason: null, gate: null, createdAt: 1, updatedAt: 2, grantedAt: 2 });
  await store.messages.enqueue(newMessage(), body(1), 10);
  await store.documents.put('tenant-a', 'settings', 'main', { retentionDays: 7 });
  store.counters.add('tenant-a', 'forwarded', 60_000, 3);
  await store.counters.flush();
  const raw = await directory.traces(store);
  t.ok(raw.length > 5);
  t.ok(raw.every((k) => k.startsWith('!plugin:relay!!')), 'nothing outside plugin:relay');
});

t.test('a real LevelDB directory: pruned records stay gone after a reopen, with their indexes and counts', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-store-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));

  let db = await openDatabase(dir);
  let store = createLevelRelayStore(db.pluginStore('relay'), { secrets: testSecrets });
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
