import t from 'tap';
import { MemoryLevel } from 'memory-level';
import { StateCache } from '../../node/state/state-cache.js';

const k = (n: number) => new Uint8Array([n]);
const v = (n: number) => new Uint8Array([n, n]);

t.test('reads fill the cache, commits write through, and a read racing a commit is not cached', async (t) => {
  const db = new MemoryLevel<Uint8Array, Uint8Array>({ keyEncoding: 'view', valueEncoding: 'view' });
  t.teardown(() => db.close());
  let reads = 0;
  const cache = new StateCache({ get: (key) => (reads++, db.get(key)) }, 2);
  await db.put(k(1), v(1));
  t.same(await cache.get(k(1)), v(1));
  t.same(await cache.get(k(1)), v(1));
  t.equal(reads, 1, 'the second read is a hit');
  t.equal(await cache.get(k(2)), undefined);
  t.equal(await cache.get(k(2)), undefined);
  t.equal(reads, 2, 'absence is cached too');

  await db.put(k(2), v(2));
  cache.apply([{ key: k(2), value: v(2) }, { key: k(1), value: null }]);
  t.same(await cache.get(k(2)), v(2), 'written through');
  t.equal(await cache.get(k(1)), undefined, 'a delete is written through');
  t.equal(reads, 2);

  // A read that starts before a commit and ends after it must not leave its (old) value behind.
  await db.put(k(3), v(3));
  const racing = cache.get(k(3));
  cache.apply([{ key: k(4), value: v(4) }]);
  t.same(await racing, v(3));
  await cache.get(k(3));
  t.equal(reads, 4, 'the racing read was not cached, so this one went to the store');
  t.same(await cache.get(k(4)), v(4), 'bounded: the newest entries stay');
});
