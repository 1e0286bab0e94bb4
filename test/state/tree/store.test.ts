import t from 'tap';
import { toHex, utf8 } from '../../../node/protocol/bytes.js';
import { CachedNodeReader, EMPTY_ROOT, MemoryNodeStore, getValueHash, overlayReader, updateTree, type TreeNodeReader } from '../../../node/state/tree/index.js';

/** A real store that counts the reads that reach it. */
function counting(store: MemoryNodeStore): TreeNodeReader & { reads: number } {
  const r = {
    reads: 0,
    getNode: async (h: Uint8Array) => {
      r.reads++;
      return store.getNode(h);
    },
  };
  return r;
}

t.test('the cache answers repeated reads and committed nodes from memory', async (t) => {
  const store = new MemoryNodeStore();
  const base = await updateTree(store, EMPTY_ROOT, Array.from({ length: 100 }, (_, i) => ({ key: utf8(`k${i}`), value: utf8('v') })));
  store.put(base.nodes);
  const disk = counting(store);
  const cache = new CachedNodeReader(disk, 10_000);
  t.ok(await getValueHash(cache, base.root, utf8('k1')));
  const first = disk.reads;
  t.ok(first > 0);
  t.ok(await getValueHash(cache, base.root, utf8('k1')));
  t.equal(disk.reads, first, 'second walk is served by the cache');

  const next = await updateTree(cache, base.root, [{ key: utf8('k1'), value: utf8('w') }]);
  store.put(next.nodes);
  cache.add(next.nodes);
  const before = disk.reads;
  t.ok(await getValueHash(cache, next.root, utf8('k1')));
  t.equal(disk.reads, before, 'nodes added at commit need no read');
  t.equal(await cache.getNode(new Uint8Array(32).fill(7)), undefined, 'a missing node stays missing');
});

t.test('a small cache evicts but stays correct', async (t) => {
  const store = new MemoryNodeStore();
  const res = await updateTree(store, EMPTY_ROOT, Array.from({ length: 500 }, (_, i) => ({ key: utf8(`k${i}`), value: utf8(`v${i}`) })));
  store.put(res.nodes);
  const walk = async (reader: TreeNodeReader) => {
    for (let i = 0; i < 500; i += 7) {
      if ((await getValueHash(reader, res.root, utf8(`k${i}`))) === null) t.fail(`k${i} not found`);
    }
  };
  const small = counting(store);
  const smallCache = new CachedNodeReader(small, 16);
  await walk(smallCache);
  const firstRound = small.reads;
  await walk(smallCache);
  t.ok(small.reads > firstRound, 'evicted nodes are read again');

  const large = counting(store);
  const largeCache = new CachedNodeReader(large, 100_000);
  await walk(largeCache);
  const once = large.reads;
  await walk(largeCache);
  t.equal(large.reads, once, 'a cache that holds the working set reads each node once');
});

t.test('peekNode answers from memory only, and never reads', async (t) => {
  const store = new MemoryNodeStore();
  const res = await updateTree(store, EMPTY_ROOT, Array.from({ length: 20 }, (_, i) => ({ key: utf8(`k${i}`), value: utf8('v') })));
  store.put(res.nodes);
  t.same(store.peekNode(res.root), await store.getNode(res.root), 'the memory store has every node at hand');
  const disk = counting(store);
  const cache = new CachedNodeReader(disk, 1000);
  t.equal(cache.peekNode(res.root), undefined, 'a node not cached yet is not at hand');
  t.equal(disk.reads, 0, 'peeking read nothing');
  await cache.getNode(res.root);
  t.same(cache.peekNode(res.root), store.peekNode(res.root), 'once read, it is');
  const next = await updateTree(cache, res.root, [{ key: utf8('k1'), value: utf8('w') }]);
  const view = overlayReader(cache, next.nodes);
  t.same(view.peekNode!(next.root), next.nodes.get(toHex(next.root)), 'an overlay has its own nodes at hand');
  t.same(view.peekNode!(res.root), store.peekNode(res.root), 'and those its base has');
  t.equal(view.peekNode!(new Uint8Array(32).fill(7)), undefined, 'and nothing else');
});
