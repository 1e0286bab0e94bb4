import t from 'tap';
import { openDatabase, type BinarySublevel } from '../../../../node/state/db.js';
import { createLevelRelayStore } from '../../../../plugins/relay/store/level.js';
import type { RelayStore } from '../../../../plugins/relay/store/types.js';
import { testSecrets, type Backend, type StoreOptions } from './contract/backend.js';
import { relayStoreContract } from './contract/index.js';
import { inconsistencies, memoryStore } from './helpers.js';

/**
 * The store contract on the LevelDB store (an in-memory LevelDB per test), with its raw layout
 * checked by inconsistencies() after the transitions; then what only the LevelDB store does.
 * A real LevelDB directory is in durability.test.ts.
 */

/** the namespace of every store made here, and every store opened on it (closed before the database) */
const opened = new WeakMap<RelayStore, { ns: BinarySublevel; stores: RelayStore[] }>();

const open = (ns: BinarySublevel, stores: RelayStore[], opts: StoreOptions = {}): RelayStore => {
  const store = createLevelRelayStore(ns, { secrets: testSecrets, ...opts });
  stores.push(store);
  opened.set(store, { ns, stores });
  return store;
};

const leveldb: Backend = {
  name: 'leveldb',
  async make(t, opts) {
    const db = await openDatabase('memory');
    const stores: RelayStore[] = [];
    t.teardown(async () => {
      for (const s of stores) await s.close();
      await db.close();
    });
    return open(db.pluginStore('relay'), stores, opts);
  },
  async again(_t, store, opts) {
    const { ns, stores } = opened.get(store)!;
    return open(ns, stores, opts);
  },
  inconsistencies: (store) => inconsistencies(opened.get(store)!.ns),
  // every raw key of the namespace (all child sublevels), as text
  traces: async (store) => (await opened.get(store)!.ns.keys().all()).map((k) => Buffer.from(k).toString('latin1')),
};

t.test('the store contract on LevelDB', async (t) => relayStoreContract(t, leveldb));

t.test('close leaves the database open, and reads still work', async (t) => {
  const { db, store } = await memoryStore(t);
  await store.documents.put('tenant-a', 'k', 'i', 1);
  await store.close();
  await t.rejects(store.documents.put('tenant-a', 'k', 'j', 1), { code: 'RELAY_STORE_CLOSED' });
  t.equal(db.root.status, 'open');
  t.equal(await store.documents.get('tenant-a', 'k', 'i'), 1, 'reads still work');
});

t.test('a failing background flush is reported and keeps the counts for the next one', async (t) => {
  const db = await openDatabase('memory');
  const errors: unknown[] = [];
  const store = createLevelRelayStore(db.pluginStore('relay'), { secrets: testSecrets, counterFlushMs: 10, onError: (err) => errors.push(err) });
  store.counters.add('tenant-a', 'forwarded', 60_000, 5);
  await db.close();
  await new Promise((r) => setTimeout(r, 50));
  t.ok(errors.length > 0, 'the timer reported the failed flush');
  t.same(await store.counters.series('tenant-a', 'forwarded', 60_000, 120_000, 60_000).catch(() => 'unreadable'), 'unreadable');
  await t.rejects(store.close(), 'close reports the failed flush');
});
