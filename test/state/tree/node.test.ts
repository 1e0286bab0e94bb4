import t from 'tap';
import { blake3 } from '../../../node/crypto/hash.js';
import { concatBytes, toHex, utf8 } from '../../../node/protocol/bytes.js';
import { isLedgerError } from '../../../node/errors.js';
import { EMPTY_ROOT, MemoryNodeStore, decodeNode, encodeInternal, encodeLeaf, proveKey, updateTree } from '../../../node/state/tree/index.js';
import type { TreeNodeReader } from '../../../node/state/tree/index.js';

const H = (...parts: Uint8Array[]) => blake3(concatBytes(...parts));
const leaf = (k: string, v: string) => H(Uint8Array.of(0), blake3(utf8(k)), blake3(utf8(v)));
const node = (l: Uint8Array, r: Uint8Array) => H(Uint8Array.of(1), l, r);
const ZERO = new Uint8Array(32);

async function rootOf(entries: Array<[string, string]>): Promise<string> {
  const res = await updateTree(new MemoryNodeStore(), EMPTY_ROOT, entries.map(([k, v]) => ({ key: utf8(k), value: utf8(v) })));
  return toHex(res.root);
}

t.test('vectors published in docs/state-tree.md', async (t) => {
  t.equal(await rootOf([]), '00'.repeat(32));

  const one = toHex(leaf('a', '1'));
  t.equal(one, 'fc0743bb16959663757b3542813fdf218f39726c49915e384cb37d179dd623a5');
  t.equal(await rootOf([['a', '1']]), one);

  // blake3("a") = 0x17.., blake3("b") = 0x10..: they share bits 0-4 (0,0,0,1,0) and differ at
  // bit 5, so five one-sided internal nodes sit above the node that splits them.
  let two = node(leaf('b', '2'), leaf('a', '1'));
  for (const bit of [0, 1, 0, 0, 0]) two = bit === 0 ? node(two, ZERO) : node(ZERO, two);
  t.equal(toHex(two), '6a238bbdbe9c206e3977d8318349fc55750195d09d637e2169fa5182c4555562');
  t.equal(await rootOf([['b', '2'], ['a', '1']]), toHex(two));

  t.equal(
    await rootOf([
      ['acct/alice', '100'],
      ['acct/bob', '200'],
      ['did/carol', 'doc'],
      ['val/dave', 'stake'],
    ]),
    '668d7d43f3c76cb6df72934a0223d678ea2d9f7133cba79cd4b9aa978469e42a',
  );
});

t.test('encoding is the 65-byte hash preimage', async (t) => {
  const kh = blake3(utf8('k'));
  const vh = blake3(utf8('v'));
  const l = encodeLeaf(kh, vh);
  t.equal(l.length, 65);
  t.same(decodeNode(blake3(l), l), { kind: 'leaf', keyHash: kh, valueHash: vh });
  const i = encodeInternal(blake3(l), ZERO);
  t.equal(i[0], 1);
  t.same(decodeNode(blake3(i), i), { kind: 'internal', left: blake3(l), right: ZERO });
});

t.test('corrupt nodes are rejected with CORRUPT_TREE_NODE', async (t) => {
  const h = blake3(utf8('x'));
  const bad: Array<[string, Uint8Array]> = [
    ['empty', new Uint8Array(0)],
    ['short', new Uint8Array(64)],
    ['long', new Uint8Array(66)],
    ['unknown tag', concatBytes(Uint8Array.of(2), new Uint8Array(64))],
    ['internal with two empty children', concatBytes(Uint8Array.of(1), new Uint8Array(64))],
  ];
  for (const [what, bytes] of bad) {
    t.throws(() => decodeNode(h, bytes), { code: 'CORRUPT_TREE_NODE', kind: 'internal' }, what);
  }
});

/** A reader over a real store whose answer for one hash is replaced. */
function tamperedReader(store: MemoryNodeStore, target: Uint8Array, bytes: Uint8Array): TreeNodeReader {
  return {
    getNode: async (hash) => (toHex(hash) === toHex(target) ? bytes : store.getNode(hash)),
  };
}

t.test('a corrupt stored node stops updates and proofs', async (t) => {
  const store = new MemoryNodeStore();
  const res = await updateTree(
    store,
    EMPTY_ROOT,
    Array.from({ length: 20 }, (_, i) => ({ key: utf8(`k${i}`), value: utf8('v') })),
  );
  store.put(res.nodes);
  const truncated = tamperedReader(store, res.root, res.nodes.get(toHex(res.root))!.subarray(0, 40));
  const err = await updateTree(truncated, res.root, [{ key: utf8('k1'), value: null }]).catch((e: unknown) => e);
  t.ok(isLedgerError(err) && err.code === 'CORRUPT_TREE_NODE', 'update rejects');
  t.match(String((err as Error).message), toHex(res.root));
  await t.rejects(proveKey(truncated, res.root, utf8('k1')), { code: 'CORRUPT_TREE_NODE' }, 'proof rejects');
  await t.rejects(proveKey(store, blake3(utf8('unknown root')), utf8('k1')), { code: 'MISSING_TREE_NODE' });
});
