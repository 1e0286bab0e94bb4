import t from 'tap';
import { UNIT } from '../../node/protocol/amount.js';
import { transactionHash } from '../../node/protocol/transaction.js';
import { alice, bob, CHAIN, didCreate, pool, state, transfer, TRANSFER_FEE, withDid } from './harness.js';

const hash = (tx: Parameters<typeof transactionHash>[1]) => transactionHash(CHAIN, tx);

t.test('onCommitted removes included transactions; the rest become ready from the new nonce', async (t) => {
  const mp = pool(state([{ key: alice, balance: UNIT }, { key: bob, balance: UNIT }]));
  const a = [0n, 1n, 2n].map((n) => transfer(alice, n));
  for (const tx of a) await mp.admit(tx);
  await mp.admit(transfer(bob, 0n));
  const after = state([{ key: alice, balance: UNIT - 2n * (1n + TRANSFER_FEE), nonce: 2n }, { key: bob, balance: UNIT }]);
  const res = await mp.onCommitted([hash(a[0]!), hash(a[1]!), 'ff'.repeat(32)], after);
  t.same(res, { removed: [hash(a[0]!), hash(a[1]!)], dropped: [] });
  t.equal(mp.size, 2);
  t.same(mp.select(10).map(hash), [hash(a[2]!), hash(transfer(bob, 0n))], 'a2 arrived before bob0');
  await t.rejects(mp.admit(transfer(alice, 1n, 7n)), { code: 'NONCE_TOO_LOW', data: { expected: 2n } }, 'admission reads the new state');
});

t.test('a nonce used by a transaction this pool never saw is dropped as stale', async (t) => {
  const mp = pool(state([{ key: alice, balance: UNIT }]));
  const a0 = transfer(alice, 0n);
  const a1 = transfer(alice, 1n);
  await mp.admit(a0);
  await mp.admit(a1);
  const res = await mp.onCommitted([], state([{ key: alice, balance: UNIT, nonce: 1n }]));
  t.same(res.removed, []);
  t.equal(res.dropped.length, 1);
  t.equal(res.dropped[0]!.hash, hash(a0));
  t.match(res.dropped[0]!.error, { code: 'NONCE_TOO_LOW', data: { expected: 1n, given: 0n } });
  t.same(mp.select(10).map(hash), [hash(a1)]);
});

t.test('a balance that fell drops the transactions it no longer covers, in nonce order', async (t) => {
  const mp = pool(state([{ key: alice, balance: UNIT }, { key: bob, balance: UNIT }]));
  const a = [0n, 1n, 2n].map((n) => transfer(alice, n, 100n));
  for (const tx of a) await mp.admit(tx);
  const b0 = transfer(bob, 0n);
  await mp.admit(b0);
  const poorer = state([{ key: alice, balance: 2n * (100n + TRANSFER_FEE) }, { key: bob, balance: UNIT }]);
  const res = await mp.onCommitted([], poorer, [alice.publicKey]);
  t.same(res.dropped.map((d) => d.hash), [hash(a[2]!)]);
  t.match(res.dropped[0]!.error, { code: 'INSUFFICIENT_BALANCE', data: { pendingBefore: 2n * (100n + TRANSFER_FEE) } });
  t.equal(mp.size, 3);
});

t.test('a DID created meanwhile invalidates a pending DidCreate', async (t) => {
  const mp = pool(state([{ key: alice, balance: UNIT }]));
  const create = didCreate(alice, 1n);
  await mp.admit(create);
  const after = withDid(state([{ key: alice, balance: UNIT, nonce: 1n }]), alice);
  const res = await mp.onCommitted([], after, [alice.address]);
  t.match(res.dropped, [{ hash: hash(create), error: { code: 'DID_EXISTS' } }]);
  t.equal(mp.size, 0);
  t.same(mp.pending(alice.address), []);
});

t.test('an admission racing a commit never leaves a transaction with a used nonce', async (t) => {
  const mp = pool(state([{ key: alice, balance: UNIT }]));
  const a0 = transfer(alice, 0n);
  const admitted = mp.admit(a0);
  const committed = mp.onCommitted([], state([{ key: alice, balance: UNIT, nonce: 1n }]));
  await Promise.allSettled([admitted, committed]);
  t.notOk(mp.has(hash(a0)));
  t.equal(mp.size, 0);
  t.same(mp.select(10), []);
});

t.test('commits apply in order and the mempool keeps working after them', async (t) => {
  const mp = pool(state([{ key: alice, balance: UNIT }]));
  const a = [0n, 1n, 2n].map((n) => transfer(alice, n));
  for (const tx of a) await mp.admit(tx);
  const s1 = state([{ key: alice, balance: UNIT, nonce: 1n }]);
  const s2 = state([{ key: alice, balance: UNIT, nonce: 2n }]);
  const [r1, r2] = await Promise.all([mp.onCommitted([hash(a[0]!)], s1), mp.onCommitted([hash(a[1]!)], s2)]);
  t.same(r1.removed, [hash(a[0]!)]);
  t.same(r2.removed, [hash(a[1]!)]);
  t.same(mp.select(10).map(hash), [hash(a[2]!)]);
  t.ok(await mp.admit(transfer(alice, 3n)));
});
