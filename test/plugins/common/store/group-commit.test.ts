import t from 'tap';
import { unavailable } from '../../../../node/errors.js';
import { GroupCommit } from '../../../../plugins/common/store/group-commit.js';
import { syncedDisk } from './synced-batches.js';

/** The group commit on a real LevelDB directory, its synced batches recorded (synced-batches.ts). */

const failure = (err: Error) => unavailable('TEST_SYNC_FAILED', `could not sync: ${err.message}`, { retryAfterSeconds: 1 });

t.test('one synced batch in flight; the writes that arrive meanwhile go together in the next', async (t) => {
  const { db, events, syncs } = await syncedDisk(t, 'group-commit');
  const ns = db.pluginStore('g').sublevel<string, string>('k', { keyEncoding: 'utf8', valueEncoding: 'utf8' });
  const group = new GroupCommit(db.pluginStore('g'), { failure });
  const put = (k: string) => group.add([{ type: 'put', sublevel: ns, key: k, value: k }]);
  const first = put('a');
  // one turn later the first batch is under way: these three queue behind it
  await Promise.resolve();
  const rest = ['b', 'c', 'd'].map(put);
  await Promise.all([first, ...rest]);
  t.equal(syncs(), 2, 'four writes, two fsyncs');
  t.same(
    events.map((e) => ('synced' in e ? e.synced.map((k) => k.slice(-1)) : [])),
    [['a'], ['b', 'c', 'd']],
  );
  t.same(await ns.getMany(['a', 'b', 'c', 'd']), ['a', 'b', 'c', 'd']);
  t.ok(group.idle);
});

t.test('the writes queued behind a failed synced batch fail with it; the next ones are written', async (t) => {
  const { db } = await syncedDisk(t, 'group-commit');
  const ns = db.pluginStore('g').sublevel<string, string>('k', { keyEncoding: 'utf8', valueEncoding: 'utf8' });
  let failures = 0;
  const group = new GroupCommit(db.pluginStore('g'), { failure, onFail: () => failures++ });
  // LevelDB refuses a put without a value: a real failure of the first batch
  const first = group.add([{ type: 'put', sublevel: ns, key: 'a', value: undefined }]);
  await Promise.resolve();
  const behind = group.add([{ type: 'put', sublevel: ns, key: 'b', value: 'b' }]);
  const results = await Promise.allSettled([first, behind]);
  t.same(
    results.map((r) => (r.status === 'rejected' ? (r.reason as { code: string }).code : 'resolved')),
    ['TEST_SYNC_FAILED', 'TEST_SYNC_FAILED'],
  );
  t.match((results[0] as PromiseRejectedResult).reason, { kind: 'unavailable', data: { retryAfterSeconds: 1 } });
  t.equal(failures, 1);
  t.equal(await ns.get('b'), undefined, 'the write queued behind is not written');
  await group.add([{ type: 'put', sublevel: ns, key: 'c', value: 'c' }]);
  t.equal(await ns.get('c'), 'c', 'a later write is');
  await group.drained();
  t.ok(group.idle);
});
