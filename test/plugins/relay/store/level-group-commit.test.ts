import t, { type Test } from 'tap';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Database } from '../../../../node/state/db.js';
import { createLevelRelayStore } from '../../../../plugins/relay/store/level.js';
import { GroupCommit } from '../../../../plugins/relay/store/level-group-commit.js';
import { body, newMessage, testSecrets } from './helpers.js';

/**
 * The group commit on a real LevelDB directory. The root database's own batch method is wrapped
 * (and still called) to record each batch that completes with `sync: true` and the keys it held,
 * beside the moments the store's writes resolve: a write that backs a 202 resolves only after a
 * synced batch holding its record has completed.
 */

type Event = { synced: string[] } | { resolved: string };

async function onDisk(t: Test): Promise<{ dir: string; db: Database; events: Event[] }> {
  const dir = await mkdtemp(join(tmpdir(), 'relay-group-commit-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const db = await openDatabase(dir);
  t.teardown(() => db.close());
  const events: Event[] = [];
  const root = db.root as unknown as { _batch(ops: Array<{ key: Uint8Array }>, opts: { sync?: boolean }): Promise<void> };
  const real = root._batch.bind(root);
  root._batch = async (ops, opts) => {
    await real(ops, opts);
    if (opts.sync === true) events.push({ synced: ops.map((op) => Buffer.from(op.key).toString('latin1')) });
  };
  return { dir, db, events };
}

const recordKey = (id: string) => `!plugin:relay!!m!${id}`;

/** The ids whose record was in no synced batch completed before the write resolved. */
function unsyncedAnswers(events: readonly Event[]): string[] {
  const synced = new Set<string>();
  const out: string[] = [];
  for (const e of events) {
    if ('synced' in e) e.synced.forEach((k) => synced.add(k));
    else if (!synced.has(recordKey(e.resolved))) out.push(e.resolved);
  }
  return out;
}

const MESSAGES = 50;

t.test('each enqueue resolves after a synced batch holding it, and the batches are shared', async (t) => {
  const { db, events } = await onDisk(t);
  const store = createLevelRelayStore(db.pluginStore('relay'), { secrets: testSecrets });
  t.teardown(() => store.close());
  await Promise.all(
    Array.from({ length: MESSAGES }, async (_, i) => {
      const rec = await store.messages.enqueue(newMessage({ recipient: `did:key:k${i % 3}` }), body(i), 10 + i);
      events.push({ resolved: rec.id });
    }),
  );
  t.same(unsyncedAnswers(events), [], 'no write resolved before its synced batch');
  const batches = events.filter((e) => 'synced' in e).length;
  t.ok(batches < MESSAGES / 2, `${MESSAGES} messages in ${batches} synced batches`);
});

t.test('without sync the same check finds answers ahead of any fsync', async (t) => {
  const { db, events } = await onDisk(t);
  const store = createLevelRelayStore(db.pluginStore('relay'), { secrets: testSecrets, sync: false });
  t.teardown(() => store.close());
  const rec = await store.messages.enqueue(newMessage(), body(1), 10);
  events.push({ resolved: rec.id });
  t.same(unsyncedAnswers(events), [rec.id]);
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

t.test('the writes queued behind a failed synced batch fail with it; the next ones are written', async (t) => {
  const { db } = await onDisk(t);
  const ns = db.pluginStore('relay').sublevel<string, string>('g', { keyEncoding: 'utf8', valueEncoding: 'utf8' });
  let failures = 0;
  const group = new GroupCommit(db.pluginStore('relay'), () => failures++);
  // LevelDB refuses a put without a value: a real failure of the first batch
  const first = group.add([{ type: 'put', sublevel: ns, key: 'a', value: undefined }]);
  // one turn later the first batch is under way and this one queues behind it
  await Promise.resolve();
  const behind = group.add([{ type: 'put', sublevel: ns, key: 'b', value: 'b' }]);
  const results = await Promise.allSettled([first, behind]);
  t.same(
    results.map((r) => (r.status === 'rejected' ? (r.reason as { code: string }).code : 'resolved')),
    ['RELAY_STORE_SYNC_FAILED', 'RELAY_STORE_SYNC_FAILED'],
  );
  t.equal(failures, 1);
  t.equal(await ns.get('b'), undefined, 'the write queued behind is not written');
  await group.add([{ type: 'put', sublevel: ns, key: 'c', value: 'c' }]);
  t.equal(await ns.get('c'), 'c', 'a later write is');
  await group.drained();
  t.ok(group.idle);
});
