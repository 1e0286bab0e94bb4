import t from 'tap';
import { blake3 } from '../../../node/crypto/hash.js';
import { bytesEqual, concatBytes, toHex, utf8 } from '../../../node/protocol/bytes.js';
import { isLedgerError } from '../../../node/errors.js';
import {
  EMPTY_ROOT,
  MemoryNodeStore,
  decodeNode,
  getValueHash,
  overlayReader,
  updateTree,
  type TreeChange,
  type TreeNodeReader,
} from '../../../node/state/tree/index.js';

/** Deterministic PRNG (mulberry32) so failures reproduce. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffle<T>(items: T[], rand: () => number): T[] {
  const out = items.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * Independent oracle written straight from docs/state-tree.md: the root of a set of entries,
 * computed from scratch with raw BLAKE3 and no stored nodes.
 */
function referenceRoot(entries: Map<string, string>): Uint8Array {
  const items = [...entries].map(([k, v]) => ({ kh: blake3(utf8(k)), vh: blake3(utf8(v)) }));
  const bit = (h: Uint8Array, d: number) => (h[d >> 3]! >> (7 - (d % 8))) & 1;
  const sub = (set: typeof items, depth: number): Uint8Array => {
    if (set.length === 0) return new Uint8Array(32);
    if (set.length === 1) return blake3(concatBytes(Uint8Array.of(0), set[0]!.kh, set[0]!.vh));
    const left = set.filter((e) => bit(e.kh, depth) === 0);
    const right = set.filter((e) => bit(e.kh, depth) === 1);
    return blake3(concatBytes(Uint8Array.of(1), sub(left, depth + 1), sub(right, depth + 1)));
  };
  return sub(items, 0);
}

const put = (k: string, v: string): TreeChange => ({ key: utf8(k), value: utf8(v) });
const del = (k: string): TreeChange => ({ key: utf8(k), value: null });

async function apply(store: MemoryNodeStore, root: Uint8Array, changes: TreeChange[]): Promise<Uint8Array> {
  const res = await updateTree(store, root, changes);
  store.put(res.nodes);
  return res.root;
}

/** Random operations over a small key space, so updates and deletes of present keys are common. */
function randomOps(rand: () => number, count: number, keySpace: number): TreeChange[][] {
  const batches: TreeChange[][] = [];
  for (let b = 0; b < count; b++) {
    const seen = new Set<string>();
    const batch: TreeChange[] = [];
    const size = 1 + Math.floor(rand() * 40);
    for (let i = 0; i < size; i++) {
      const k = `k/${Math.floor(rand() * keySpace)}`;
      if (seen.has(k)) continue;
      seen.add(k);
      batch.push(rand() < 0.3 ? del(k) : put(k, `v${Math.floor(rand() * 5)}`));
    }
    batches.push(batch);
  }
  return batches;
}

function replay(model: Map<string, string>, batch: TreeChange[]): void {
  for (const c of batch) {
    const k = Buffer.from(c.key).toString();
    if (c.value === null) model.delete(k);
    else model.set(k, Buffer.from(c.value).toString());
  }
}

t.test('the empty tree', async (t) => {
  const store = new MemoryNodeStore();
  t.equal(toHex(EMPTY_ROOT), '00'.repeat(32));
  const res = await updateTree(store, EMPTY_ROOT, []);
  t.ok(bytesEqual(res.root, EMPTY_ROOT));
  t.equal(res.nodes.size, 0);
  const del1 = await updateTree(store, EMPTY_ROOT, [del('nothing')]);
  t.ok(bytesEqual(del1.root, EMPTY_ROOT), 'deleting from the empty tree leaves it empty');
  t.equal(del1.nodes.size, 0);
});

t.test('random histories match the reference root after every batch', async (t) => {
  const rand = rng(1);
  const store = new MemoryNodeStore();
  const model = new Map<string, string>();
  let root = EMPTY_ROOT;
  for (const batch of randomOps(rand, 150, 200)) {
    root = await apply(store, root, batch);
    replay(model, batch);
    if (!bytesEqual(root, referenceRoot(model))) {
      t.fail(`root diverged from the reference with ${model.size} entries`);
      return;
    }
  }
  t.ok(model.size > 50, `ended with ${model.size} entries`);
  for (const [k, v] of model) {
    const vh = await getValueHash(store, root, utf8(k));
    if (vh === null || !bytesEqual(vh, blake3(utf8(v)))) t.fail(`lookup of ${k}`);
  }
  t.equal(await getValueHash(store, root, utf8('k/absent')), null);
});

t.test('the root ignores the order of changes and how they are split into batches', async (t) => {
  const rand = rng(2);
  const changes: TreeChange[] = [];
  for (let i = 0; i < 500; i++) changes.push(put(`acct/${i}`, `balance ${i}`));
  const expected = referenceRoot(new Map(changes.map((c) => [Buffer.from(c.key).toString(), Buffer.from(c.value!).toString()])));
  for (let trial = 0; trial < 5; trial++) {
    const store = new MemoryNodeStore();
    const shuffled = shuffle(changes, rand);
    let root = EMPTY_ROOT;
    for (let at = 0; at < shuffled.length; ) {
      const n = trial === 0 ? shuffled.length : 1 + Math.floor(rand() * 100);
      root = await apply(store, root, shuffled.slice(at, at + n));
      at += n;
    }
    t.equal(toHex(root), toHex(expected), `trial ${trial}`);
  }
});

t.test('the same entries give the same root whatever the history', async (t) => {
  const storeA = new MemoryNodeStore();
  const storeB = new MemoryNodeStore();
  let a = await apply(storeA, EMPTY_ROOT, [put('x', '1'), put('y', '2'), put('z', '3')]);
  let b = await apply(storeB, EMPTY_ROOT, [put('junk1', 'a'), put('z', 'old'), put('junk2', 'b')]);
  for (let i = 0; i < 50; i++) b = await apply(storeB, b, [put(`tmp/${i}`, 'x')]);
  b = await apply(storeB, b, [put('x', '1'), put('y', '2'), put('z', '3'), del('junk1'), del('junk2')]);
  b = await apply(storeB, b, Array.from({ length: 50 }, (_, i) => del(`tmp/${i}`)));
  t.equal(toHex(a), toHex(b));
  a = await apply(storeA, a, [put('y', '2')]);
  t.equal(toHex(a), toHex(b), 'rewriting an unchanged value keeps the root');
});

t.test('deleting everything returns the empty root', async (t) => {
  const rand = rng(3);
  const store = new MemoryNodeStore();
  const keys = Array.from({ length: 300 }, (_, i) => `did/${i}`);
  let root = await apply(store, EMPTY_ROOT, keys.map((k) => put(k, k)));
  const order = shuffle(keys, rand);
  for (let at = 0; at < order.length; at += 37) {
    root = await apply(store, root, order.slice(at, at + 37).map(del));
    const left = new Map(order.slice(at + 37).map((k) => [k, k]));
    t.equal(toHex(root), toHex(referenceRoot(left)), `after deleting ${Math.min(at + 37, order.length)}`);
  }
  t.ok(bytesEqual(root, EMPTY_ROOT));
  const all = await apply(store, await apply(store, EMPTY_ROOT, keys.map((k) => put(k, k))), keys.map(del));
  t.ok(bytesEqual(all, EMPTY_ROOT), 'one batch deleting every key');
});

t.test('a single remaining leaf moves up to the root', async (t) => {
  const store = new MemoryNodeStore();
  const root = await apply(store, EMPTY_ROOT, [put('a', '1'), put('b', '2'), put('c', '3')]);
  const after = await apply(store, root, [del('b'), del('c')]);
  t.equal(toHex(after), toHex(blake3(concatBytes(Uint8Array.of(0), blake3(utf8('a')), blake3(utf8('1'))))));
});

t.test('an update writes nothing and returns every node the new tree needs', async (t) => {
  const store = new MemoryNodeStore();
  const base = await apply(store, EMPTY_ROOT, Array.from({ length: 200 }, (_, i) => put(`k${i}`, 'v')));
  const before = store.size;
  const res = await updateTree(store, base, [put('k1', 'new'), del('k2'), put('fresh', 'x')]);
  t.equal(store.size, before, 'the store is untouched');
  t.ok(res.nodes.size > 0 && res.nodes.size < 60, `${res.nodes.size} new nodes`);
  for (const [hex, node] of res.nodes) t.equal(toHex(blake3(node)), hex);
  const other = new MemoryNodeStore();
  other.put(res.nodes);
  const layered = overlayReader(store, res.nodes);
  t.ok(bytesEqual((await getValueHash(layered, res.root, utf8('k1')))!, blake3(utf8('new'))));
  t.equal(await getValueHash(layered, res.root, utf8('k2')), null);
  t.ok(bytesEqual((await getValueHash(layered, base, utf8('k2')))!, blake3(utf8('v'))), 'the old root is still readable');
});

t.test('a speculative chain of blocks reads its parents through overlays', async (t) => {
  const committed = new MemoryNodeStore();
  const r0 = await apply(committed, EMPTY_ROOT, Array.from({ length: 100 }, (_, i) => put(`k${i}`, '0')));
  const b1 = await updateTree(committed, r0, [put('k1', '1'), put('n1', '1')]);
  const view1 = overlayReader(committed, b1.nodes);
  const b2 = await updateTree(view1, b1.root, [put('k1', '2'), del('k5'), put('n2', '2')]);
  const view2 = overlayReader(view1, b2.nodes);
  const b3 = await updateTree(view2, b2.root, [del('n1')]);
  t.equal(committed.size > 0, true);
  const model = new Map(Array.from({ length: 100 }, (_, i) => [`k${i}`, '0']));
  model.set('k1', '2').set('n2', '2').delete('k5');
  t.equal(toHex(b3.root), toHex(referenceRoot(model)));
  await t.rejects(updateTree(committed, b2.root, [del('n1')]), { code: 'MISSING_TREE_NODE' }, 'without the overlay the parents are unknown');
  committed.put(b1.nodes);
  committed.put(b2.nodes);
  committed.put(b3.nodes);
  t.ok(bytesEqual((await getValueHash(committed, b3.root, utf8('n2')))!, blake3(utf8('2'))), 'committing writes the overlays in order');
});

t.test('a key twice in one batch is rejected', async (t) => {
  const store = new MemoryNodeStore();
  const err = await updateTree(store, EMPTY_ROOT, [put('a', '1'), del('b'), put('a', '1')]).catch((e: unknown) => e);
  t.ok(isLedgerError(err) && err.code === 'DUPLICATE_TREE_KEY');
  await t.rejects(updateTree(store, new Uint8Array(31), []), { code: 'BAD_TREE_ROOT' });
});

t.test('keys whose hashes share a long prefix', async (t) => {
  // Find keys whose hashes agree on their first 12 bits so the tree holds a chain of one-sided nodes.
  const target = blake3(utf8('p/0'));
  const close: string[] = ['p/0'];
  for (let i = 1; close.length < 4; i++) {
    const h = blake3(utf8(`p/${i}`));
    if (h[0] === target[0] && (h[1]! & 0xf0) === (target[1]! & 0xf0)) close.push(`p/${i}`);
  }
  const store = new MemoryNodeStore();
  const model = new Map(close.map((k) => [k, 'v']));
  let root = await apply(store, EMPTY_ROOT, close.map((k) => put(k, 'v')));
  t.equal(toHex(root), toHex(referenceRoot(model)));
  for (const k of close.slice(1)) {
    root = await apply(store, root, [del(k)]);
    model.delete(k);
    t.equal(toHex(root), toHex(referenceRoot(model)), `after deleting ${k}`);
  }
});

/** Reads `store` only through getNode, answering a turn later, as LevelDB does. */
function storageOnly(store: MemoryNodeStore): TreeNodeReader {
  return { getNode: async (h) => (await Promise.resolve(), store.getNode(h)) };
}

/** Has some nodes at hand and must read the others, drawn at random on every lookup. */
function partlyAtHand(store: MemoryNodeStore, rand: () => number): TreeNodeReader {
  return { ...storageOnly(store), peekNode: (h, key) => (rand() < 0.5 ? store.peekNode(h, key) : undefined) };
}

t.test('nodes at hand, nodes read from storage and a mix of both give the same update', async (t) => {
  const rand = rng(7);
  const store = new MemoryNodeStore();
  let root = EMPTY_ROOT;
  for (const batch of randomOps(rand, 60, 300)) {
    const atHand = await updateTree(store, root, batch);
    for (const reader of [storageOnly(store), partlyAtHand(store, rand)]) {
      const other = await updateTree(reader, root, batch);
      if (!bytesEqual(other.root, atHand.root) || other.nodes.size !== atHand.nodes.size || [...other.nodes.keys()].some((k) => !atHand.nodes.has(k))) {
        t.fail('an update through storage reads differs from the one through nodes at hand');
        return;
      }
    }
    store.put(atHand.nodes);
    root = atHand.root;
  }
  t.pass('60 batches agree');
});

t.test('a corrupt node at hand while the other branch waits for a read: one error, no stray rejection', async (t) => {
  const store = new MemoryNodeStore();
  const root = await apply(store, EMPTY_ROOT, Array.from({ length: 64 }, (_, i) => put(`k${i}`, '0')));
  const top = decodeNode(root, store.peekNode(root)!);
  if (top.kind !== 'internal') throw new Error('a tree of 64 entries has an internal root');
  const [leftKey, rightKey] = [toHex(top.left), toHex(top.right)];
  const stray: unknown[] = [];
  const onStray = (err: unknown) => stray.push(err);
  process.on('unhandledRejection', onStray);
  t.teardown(() => void process.off('unhandledRejection', onStray));
  const reader: TreeNodeReader = {
    // the left child is missing from storage, and it is read after the right one is decoded
    getNode: async (h) => (await new Promise((r) => setTimeout(r, 5)), toHex(h) === leftKey ? undefined : store.getNode(h)),
    peekNode: (h, key = toHex(h)) => (key === leftKey ? undefined : key === rightKey ? new Uint8Array(10) : store.peekNode(h, key)),
  };
  await t.rejects(updateTree(reader, root, Array.from({ length: 64 }, (_, i) => put(`k${i}`, '1'))), { code: 'CORRUPT_TREE_NODE' });
  await new Promise((r) => setTimeout(r, 30));
  t.same(stray, [], 'the pending read that failed later is not reported as unhandled');
});
