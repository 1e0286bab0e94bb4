import t from 'tap';
import { UNIT } from '../../node/protocol/amount.js';
import { formatAddress } from '../../node/protocol/address.js';
import { transactionHash } from '../../node/protocol/transaction.js';
import { alice, bob, CHAIN, pool, state, transfer, TRANSFER_FEE } from './harness.js';

const hash = (tx: Parameters<typeof transactionHash>[1]) => transactionHash(CHAIN, tx);

t.test('pendingNonce: the committed nonce plus the contiguous ready run; a gap stops the count', async (t) => {
  const mp = pool(state([{ key: alice, balance: UNIT, nonce: 3n }, { key: bob, balance: UNIT }]));
  t.equal(mp.pendingNonce(alice.address, 3n), 3n, 'nothing pending: the committed nonce');
  await mp.admit(transfer(alice, 3n));
  await mp.admit(transfer(alice, 4n));
  t.equal(mp.pendingNonce(alice.address, 3n), 5n, 'two pending from the committed nonce');
  await mp.admit(transfer(alice, 7n));
  t.equal(mp.pendingNonce(alice.address, 3n), 5n, 'nonce 7 sits after a gap and is not counted');
  await mp.admit(transfer(alice, 5n));
  t.equal(mp.pendingNonce(alice.address, 3n), 6n, 'still a gap at 6');
  await mp.admit(transfer(alice, 6n));
  t.equal(mp.pendingNonce(alice.address, 3n), 8n, 'filling the gap joins 7 to the run');
  t.equal(mp.pendingNonce(formatAddress(alice.address), 3n), 8n, 'a base58 address');
  t.equal(mp.pendingNonce(alice.publicKey, 3n), 8n, 'a public key');
  t.equal(mp.pendingNonce(bob.address, 0n), 0n, "another sender's queue is its own");
});

t.test('pendingNonce after a commit, and when the committed nonce is read ahead of the pool', async (t) => {
  const mp = pool(state([{ key: alice, balance: UNIT }]));
  const txs = [0n, 1n, 2n, 3n].map((n) => transfer(alice, n));
  for (const tx of txs) await mp.admit(tx);
  t.equal(mp.pendingNonce(alice.address, 0n), 4n);
  // The store commits 0 and 1 before the pool hears of it: the caller's committed nonce is 2.
  t.equal(mp.pendingNonce(alice.address, 2n), 4n, 'counts the run from the newer committed nonce');
  t.equal(mp.pendingNonce(alice.address, 9n), 9n, 'a committed nonce past every pending one');
  const after = state([{ key: alice, balance: UNIT - 2n * (1n + TRANSFER_FEE), nonce: 2n }]);
  await mp.onCommitted([hash(txs[0]!), hash(txs[1]!)], after);
  t.equal(mp.pendingNonce(alice.address, 2n), 4n, 'after the commit: 2 and 3 still pending');
  await mp.onCommitted([hash(txs[2]!), hash(txs[3]!)], state([{ key: alice, balance: UNIT, nonce: 4n }]));
  t.equal(mp.pendingNonce(alice.address, 4n), 4n, 'all committed: the committed nonce');
  await mp.admit(transfer(alice, 4n));
  t.equal(mp.pendingNonce(alice.address, 4n), 5n, 'the next one sent back to back');
});
