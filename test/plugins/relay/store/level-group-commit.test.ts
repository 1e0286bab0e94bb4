import t, { type Test } from 'tap';
import { openDatabase } from '../../../../node/state/db.js';
import { createLevelRelayStore } from '../../../../plugins/relay/store/level.js';
import { syncedDisk, unsynced } from '../../common/store/synced-batches.js';
import { body, newMessage, testSecrets } from './helpers.js';

/**
 * The relay store's group commit on a real LevelDB directory (synced-batches.ts records each
 * batch that completes with `sync: true`): a write that backs a 202 resolves only after a synced
 * batch holding its record has completed. The group commit itself: test/plugins/common/store.
 */

const onDisk = (t: Test) => syncedDisk(t, 'relay-group-commit');
const resolved = (id: string) => ({ resolved: id, key: `!plugin:relay!!m!${id}` });

const MESSAGES = 50;

t.test('each enqueue resolves after a synced batch holding it, and the batches are shared', async (t) => {
  const { db, events, syncs } = await onDisk(t);
  const store = createLevelRelayStore(db.pluginStore('relay'), { secrets: testSecrets });
  t.teardown(() => store.close());
  await Promise.all(
    Array.from({ length: MESSAGES }, async (_, i) => {
      const rec = await store.messages.enqueue(newMessage({ recipient: `did:key:k${i % 3}` }), body(i), 10 + i);
      events.push(resolved(rec.id));
    }),
  );
  t.same(unsynced(events), [], 'no write resolved before its synced batch');
  const batches = syncs();
  t.ok(batches < MESSAGES / 2, `${MESSAGES} messages in ${batches} synced batches`);
});

t.test('without sync the same check finds answers ahead of any fsync', async (t) => {
  const { db, events } = await onDisk(t);
  const store = createLevelRelayStore(db.pluginStore('relay'), { secrets: testSecrets, sync: false });
  t.teardown(() => store.close());
  const rec = await store.messages.enqueue(newMessage(), body(1), 10);
  events.push(resolved(rec.id));
  t.same(unsynced(events), [rec.id]);
});

t.test('an acknowledgement is written after the queued messages and reads them', async (t) => {
  const { db, events } = await onDisk(t);
  const store = createLevelRelayStore(db.pluginStore('relay'), { secrets: testSecrets });
  t.teardown(() => store.close());
  const recs = await Promise.all([1, 2, 3].map((i) => store.messages.enqueue(newMessage({ recipient: 'did:key:k1' }), body(i), 10 + i)));
  const queued = Promise.all([4, 5].map((i) => store.messages.enqueue(newMessage({ recipient: 'did:key:k1' }), body(i), 10 + i)));
  t.same((await store.messages.acknowledge([recs[0]!.id], ['did:key:k1'], 20, true)).length, 1);
  await queued;
  t.equal(await store.messages.countPending(['did:key:k1']), 4);
  t.same(await store.messages.stateCounts('tenant-a'), { queued: 4, 'live-delivered': 0, delivered: 0, acknowledged: 1, expired: 0, failed: 0 });
  t.ok(events.length > 0);
});

t.test('a synced batch that fails fails the writes waiting on it, with a stable code, and stores none of them', async (t) => {
  const { dir, db } = await onDisk(t);
  const store = createLevelRelayStore(db.pluginStore('relay'), { secrets: testSecrets });
  // the counts of this recipient are cached: the next enqueues read nothing before their batch
  await store.messages.enqueue(newMessage({ recipient: 'did:key:k1' }), body(0), 10);
  await db.close();
  const results = await Promise.allSettled([1, 2, 3].map((i) => store.messages.enqueue(newMessage({ recipient: 'did:key:k1' }), body(i), 10 + i)));
  t.ok(results.every((r) => r.status === 'rejected'), 'no write resolved');
  // the first one's batch failed; the others failed on it or on their own read of the closed database
  t.match((results[0] as PromiseRejectedResult).reason, { code: 'RELAY_STORE_SYNC_FAILED', kind: 'unavailable', data: { retryAfterSeconds: 1 } });
  await store.close();
  const again = await openDatabase(dir);
  t.teardown(() => again.close());
  const reopened = createLevelRelayStore(again.pluginStore('relay'), { secrets: testSecrets });
  t.teardown(() => reopened.close());
  t.equal(await reopened.messages.countPending(['did:key:k1']), 1, 'only the message answered before the failure is stored');
});
