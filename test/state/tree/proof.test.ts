import t from 'tap';
import { blake3 } from '../../../node/crypto/hash.js';
import { utf8 } from '../../../node/protocol/bytes.js';
import { EMPTY_ROOT, MemoryNodeStore, proveKey, updateTree, verifyProof, type TreeProof } from '../../../node/state/tree/index.js';

const store = new MemoryNodeStore();
const entries = Array.from({ length: 300 }, (_, i) => [`acct/${i}`, `value ${i}`] as const);

async function build(): Promise<Uint8Array> {
  const res = await updateTree(
    store,
    EMPTY_ROOT,
    entries.map(([k, v]) => ({ key: utf8(k), value: utf8(v) })),
  );
  store.put(res.nodes);
  return res.root;
}

const clone = (p: TreeProof): TreeProof => ({
  siblings: p.siblings.map((s) => Uint8Array.from(s)),
  leaf: p.leaf && { keyHash: Uint8Array.from(p.leaf.keyHash), valueHash: Uint8Array.from(p.leaf.valueHash) },
});

t.test('membership', async (t) => {
  const root = await build();
  for (const [k, v] of entries) {
    const proof = await proveKey(store, root, utf8(k));
    if (!verifyProof(root, utf8(k), utf8(v), proof)) t.fail(`proof of ${k}`);
    if (verifyProof(root, utf8(k), utf8('other'), proof)) t.fail(`wrong value accepted for ${k}`);
    if (verifyProof(root, utf8(k), null, proof)) t.fail(`absence accepted for present ${k}`);
  }
  const depths = await Promise.all(entries.map(async ([k]) => (await proveKey(store, root, utf8(k))).siblings.length));
  t.ok(Math.max(...depths) < 30, `depth is logarithmic (max ${Math.max(...depths)})`);
  t.pass('all members proved');
});

t.test('non-membership ends at an empty subtree or at another key\'s leaf', async (t) => {
  const root = await build();
  let endsEmpty = 0;
  let endsAtLeaf = 0;
  for (let i = 0; i < 200; i++) {
    const key = utf8(`absent/${i}`);
    const proof = await proveKey(store, root, key);
    if (proof.leaf === null) endsEmpty++;
    else endsAtLeaf++;
    if (!verifyProof(root, key, null, proof)) t.fail(`absence of absent/${i}`);
    if (verifyProof(root, key, utf8('x'), proof)) t.fail(`membership accepted for absent/${i}`);
  }
  t.ok(endsEmpty > 0 && endsAtLeaf > 0, `${endsEmpty} empty ends, ${endsAtLeaf} leaf ends`);
});

t.test('the empty tree proves every key absent', async (t) => {
  const proof = await proveKey(store, EMPTY_ROOT, utf8('anything'));
  t.same(proof, { siblings: [], leaf: null });
  t.ok(verifyProof(EMPTY_ROOT, utf8('anything'), null, proof));
  t.notOk(verifyProof(EMPTY_ROOT, utf8('anything'), utf8('v'), proof));
});

t.test('tampered proofs are rejected', async (t) => {
  const root = await build();
  const key = utf8('acct/7');
  const value = utf8('value 7');
  const good = await proveKey(store, root, key);
  t.ok(verifyProof(root, key, value, good));

  const flipped = clone(good);
  flipped.siblings[0]![5]! ^= 1;
  t.notOk(verifyProof(root, key, value, flipped), 'flipped sibling bit');

  const shorter = clone(good);
  shorter.siblings.pop();
  t.notOk(verifyProof(root, key, value, shorter), 'sibling removed');

  const longer = clone(good);
  longer.siblings.push(new Uint8Array(32));
  t.notOk(verifyProof(root, key, value, longer), 'empty sibling added');

  const swapped = clone(good);
  swapped.siblings.reverse();
  t.notOk(verifyProof(root, key, value, swapped), 'siblings reordered');

  const badValue = clone(good);
  badValue.leaf!.valueHash = blake3(utf8('value 8'));
  t.notOk(verifyProof(root, key, utf8('value 8'), badValue), 'leaf value hash replaced');

  t.notOk(verifyProof(blake3(utf8('other root')), key, value, good), 'other root');
  t.notOk(verifyProof(root, utf8('acct/8'), value, good), 'other key');

  // Hiding a present key: replace its leaf by nothing, or by another key's leaf.
  const hidden = clone(good);
  hidden.leaf = null;
  t.notOk(verifyProof(root, key, null, hidden), 'present key claimed absent with an empty end');
  const other = await proveKey(store, root, utf8('acct/8'));
  const borrowed = clone(good);
  borrowed.leaf = other.leaf;
  t.notOk(verifyProof(root, key, null, borrowed), 'present key claimed absent with a borrowed leaf');

  // A real leaf that is not on the absent key's path proves nothing about it. (acct/7's proof is a
  // valid absence proof for keys whose hash shares its path prefix, so pick one in the other half.)
  let i = 0;
  while (blake3(utf8(`absent/${i}`))[0]! >> 7 === blake3(key)[0]! >> 7) i++;
  t.notOk(verifyProof(root, utf8(`absent/${i}`), null, clone(good)), 'a leaf from another path');
  const sharing = clone(good);
  t.ok(verifyProof(root, utf8('absent/1'), null, sharing), 'but proves absence of a key sharing its 8-bit path');

  const malformed = [
    { siblings: [new Uint8Array(31)], leaf: good.leaf },
    { siblings: Array.from({ length: 257 }, () => new Uint8Array(32)), leaf: null },
    { siblings: 'x', leaf: null },
    { siblings: good.siblings, leaf: { keyHash: new Uint8Array(32) } },
    null,
  ];
  for (const m of malformed) t.notOk(verifyProof(root, key, value, m as unknown as TreeProof), 'malformed proof');
  t.notOk(verifyProof(new Uint8Array(31), key, value, good), 'malformed root');
});
