import t from 'tap';
import { UNIT } from '../../node/protocol/amount.js';
import { encodeTransaction, transactionHash, type Transaction } from '../../node/protocol/transaction.js';
import { alice, bob, CHAIN, carol, didCreate, pool, state, transfer } from './harness.js';

const funded = () =>
  state([
    { key: alice, balance: 1000n * UNIT },
    { key: bob, balance: 1000n * UNIT, nonce: 5n },
    { key: carol, balance: 1000n * UNIT },
  ]);

const ids = (txs: Transaction[]) => txs.map((tx) => transactionHash(CHAIN, tx));

t.test('a sender contributes only the contiguous run from its committed nonce', async (t) => {
  const mp = pool(funded());
  const a = [0n, 1n, 3n].map((n) => transfer(alice, n));
  for (const tx of a) await mp.admit(tx);
  const b6 = transfer(bob, 6n);
  await mp.admit(b6);
  t.same(ids(mp.select(100)), ids([a[0]!, a[1]!]), 'alice stops at the gap; bob (next nonce 5) has none ready');
  const a2 = transfer(alice, 2n);
  t.equal((await mp.admit(a2)).ready, true);
  const b5 = transfer(bob, 5n);
  await mp.admit(b5);
  // arrivals a0=0 a1=1 a3=2 b6=3 a2=4 b5=5; a sender's key never decreases: alice 0,1,4,4 and bob 5,5
  t.same(ids(mp.select(100)), ids([a[0]!, a[1]!, a2, a[2]!, b5, b6]));
});

t.test('across senders, the head that arrived first goes first, and nonce order holds per sender', async (t) => {
  const mp = pool(funded());
  const a0 = transfer(alice, 0n);
  const a1 = transfer(alice, 1n);
  const c1 = transfer(carol, 1n);
  const b5 = transfer(bob, 5n);
  const c0 = transfer(carol, 0n);
  const a2 = transfer(alice, 2n);
  for (const tx of [a0, a1, c1, b5, c0, a2]) await mp.admit(tx);
  // heads: alice a0 (0), bob b5 (3), carol c0 (4, and c1 comes after it although it arrived at 2)
  t.same(ids(mp.select(10)), ids([a0, a1, b5, c0, c1, a2]));
  t.same(ids(mp.select(3)), ids([a0, a1, b5]), 'maxCount');
  t.same(mp.selectEntries(2).map((e) => e.hash), ids([a0, a1]));
});

t.test('maxBytes skips a sender whose next transaction does not fit, and keeps filling from others', async (t) => {
  const mp = pool(funded());
  const big = didCreate(alice, 0n, 200);
  const a1 = transfer(alice, 1n);
  const b5 = transfer(bob, 5n);
  const c0 = transfer(carol, 0n);
  for (const tx of [big, a1, b5, c0]) await mp.admit(tx);
  const small = encodeTransaction(b5).length;
  t.same(ids(mp.select(10, { maxBytes: 2 * small })), ids([b5, c0]), 'alice is skipped entirely: a1 cannot run without big');
  t.same(ids(mp.select(10, { maxBytes: encodeTransaction(big).length + small })), ids([big, a1]));
  t.same(mp.select(10, { maxBytes: 10 }), []);
});

t.test('skip passes over what the ancestors carry: it counts against no limit, and the sender goes on', async (t) => {
  const mp = pool(funded());
  const a = [0n, 1n, 2n].map((n) => transfer(alice, n));
  const b5 = transfer(bob, 5n);
  for (const tx of [...a, b5]) await mp.admit(tx);
  const onBranch = new Set(ids([a[0]!, a[1]!]));
  t.same(ids(mp.select(2, { skip: (h) => onBranch.has(h) })), ids([a[2]!, b5]), 'a0 and a1 take no slot');
  t.same(ids(mp.select(10, { maxBytes: 2 * encodeTransaction(b5).length, skip: (h) => onBranch.has(h) })), ids([a[2]!, b5]), 'nor bytes');
  t.same(ids(mp.select(10, { skip: () => true })), []);
});

t.test('remove() opens a gap: later nonces of that sender wait', async (t) => {
  const mp = pool(funded());
  const txs = [0n, 1n, 2n].map((n) => transfer(alice, n));
  for (const tx of txs) await mp.admit(tx);
  const [h0, h1, h2] = ids(txs);
  t.equal(mp.remove(h1!), true);
  t.equal(mp.remove(h1!), false);
  t.notOk(mp.has(h1!));
  t.equal(mp.size, 2);
  t.equal(mp.bytes, 2 * encodeTransaction(txs[0]!).length);
  t.same(ids(mp.select(10)), [h0]);
  t.ok(mp.has(h2!));
  t.ok(mp.isVerified(h1!), 'the verified cache outlives the pool entry');
  t.equal((await mp.admit(txs[1]!)).ready, true);
  t.same(ids(mp.select(10)), [h0, h1, h2]);
});
