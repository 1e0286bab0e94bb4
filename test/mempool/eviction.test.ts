import t from 'tap';
import { UNIT } from '../../node/protocol/amount.js';
import { encodeTransaction, transactionHash } from '../../node/protocol/transaction.js';
import { alice, bob, CHAIN, carol, dave, didCreate, key, pool, state, transfer } from './harness.js';

const funded = () => state([alice, bob, carol, dave].map((k) => ({ key: k, balance: 1000n * UNIT })));
const TRANSFER_SIZE = encodeTransaction(transfer(alice, 0n)).length;

t.test('a ready newcomer evicts the tail of the heaviest sender, down to its own count and no further', async (t) => {
  const mp = pool(funded(), { maxTransactions: 3 });
  const a = [0n, 1n, 2n].map((n) => transfer(alice, n));
  for (const tx of a) await mp.admit(tx);
  const [h0, h1, h2] = a.map((tx) => transactionHash(CHAIN, tx));
  t.same((await mp.admit(transfer(bob, 0n))).evicted, [h2], 'alice 3 > bob 0 + 1');
  t.same((await mp.admit(transfer(carol, 0n))).evicted, [h1], 'alice 2 > carol 0 + 1');
  // everyone holds one transaction now: a single pending transaction is never evicted
  await t.rejects(mp.admit(transfer(dave, 0n)), { code: 'MEMPOOL_FULL', kind: 'limit', data: { reason: 'count', maxTransactions: 3 } });
  await t.rejects(mp.admit(transfer(bob, 1n)), { code: 'MEMPOOL_FULL' }, 'bob cannot evict alice at equal counts either');
  t.equal(mp.size, 3);
  t.ok(mp.has(h0!));
  t.notOk(mp.has(h2!));
});

t.test('gapped transactions are evicted first, and a gapped newcomer evicts nothing', async (t) => {
  const mp = pool(funded(), { maxTransactions: 3 });
  await mp.admit(transfer(alice, 0n));
  await mp.admit(transfer(alice, 1n));
  const gapped = await mp.admit(transfer(bob, 5n));
  t.equal(gapped.ready, false);
  await t.rejects(mp.admit(transfer(carol, 3n)), { code: 'MEMPOOL_FULL', message: /next nonce \(0\)/ }, 'a gapped newcomer costs nothing, so it displaces nothing');
  t.same((await mp.admit(transfer(carol, 0n))).evicted, [gapped.hash], "bob's future transaction goes before alice's ready one");
  t.equal(mp.pending(alice.address).length, 2);
});

t.test('the byte limit evicts as many tails as needed, or none at all', async (t) => {
  const big = didCreate(bob, 0n, 100);
  const bigSize = encodeTransaction(big).length;
  t.ok(bigSize > TRANSFER_SIZE && bigSize < 2 * TRANSFER_SIZE);

  const mp = pool(funded(), { maxBytes: 3 * TRANSFER_SIZE + 10 });
  const a = [0n, 1n, 2n].map((n) => transfer(alice, n));
  for (const tx of a) await mp.admit(tx);
  const res = await mp.admit(big);
  t.same(res.evicted, [transactionHash(CHAIN, a[2]!), transactionHash(CHAIN, a[1]!)], 'newest tail first');
  t.equal(mp.bytes, TRANSFER_SIZE + bigSize);

  // two victims needed, but after one alice would hold no more than carol: roll back
  const tight = pool(funded(), { maxBytes: 2 * TRANSFER_SIZE + 10 });
  await tight.admit(a[0]!);
  await tight.admit(a[1]!);
  await t.rejects(tight.admit(didCreate(carol, 0n, 100)), { code: 'MEMPOOL_FULL', data: { reason: 'bytes' } });
  t.equal(tight.size, 2);
  t.equal(tight.bytes, 2 * TRANSFER_SIZE);
  t.same(tight.select(10).length, 2, 'the evicted transaction was put back, still ready');

  const tiny = pool(funded(), { maxBytes: 100 });
  await t.rejects(tiny.admit(transfer(alice, 0n)), { code: 'MEMPOOL_FULL', message: /larger than the whole mempool/ });
});

t.test('many one-transaction senders cannot evict each other', async (t) => {
  const senders = Array.from({ length: 6 }, (_, i) => key(20 + i));
  const mp = pool(state(senders.map((k) => ({ key: k, balance: UNIT }))), { maxTransactions: 5 });
  for (const k of senders.slice(0, 5)) await mp.admit(transfer(k, 0n));
  await t.rejects(mp.admit(transfer(senders[5]!, 0n)), { code: 'MEMPOOL_FULL' });
  t.equal(mp.size, 5);
});
