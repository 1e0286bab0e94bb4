import t from 'tap';
import { PendingIndex } from '../../node/mempool/pending-index.js';
import { SenderQueue, type PendingTx } from '../../node/mempool/sender-queue.js';
import { toHex } from '../../node/protocol/bytes.js';
import { encodeTransaction, transactionHash } from '../../node/protocol/transaction.js';
import { alice, bob, CHAIN, carol, dave, transfer, type Key } from './harness.js';

let arrivals = 0;

function entry(k: Key, nonce: bigint): PendingTx {
  const tx = transfer(k, nonce);
  return { tx, hash: transactionHash(CHAIN, tx), sender: k.address, nonce, size: encodeTransaction(tx).length, cost: 1n, arrival: arrivals++, admittedAtMs: 0 };
}

function queue(k: Key, committed = 0n): SenderQueue {
  return new SenderQueue(toHex(k.address), k.address, committed, 1000n);
}

/** Inserts `k`'s nonces from..to-1 into `q` through the index. */
function fill(index: PendingIndex, k: Key, q: SenderQueue, from: bigint, to: bigint): PendingTx[] {
  const out: PendingTx[] = [];
  for (let n = from; n < to; n++) {
    const e = entry(k, n);
    index.insert(q, e);
    out.push(e);
  }
  return out;
}

t.test('size, bytes and the sender map follow inserts, removals and commits', async (t) => {
  const index = new PendingIndex({ maxTransactions: 100, maxBytes: 1 << 20 });
  const a = queue(alice);
  const [e0, e1, e2] = fill(index, alice, a, 0n, 3n);
  t.equal(index.size, 3);
  t.equal(index.bytes, e0!.size + e1!.size + e2!.size);
  t.equal(index.queue(a.key), a);

  t.equal(index.removeHash(e2!.hash), a);
  t.equal(index.removeHash(e2!.hash), undefined, 'no longer pending');
  t.same(index.setCommitted(a, 1n, 1000n), [e0], 'the committed nonce makes e0 stale');
  t.equal(index.size, 1);
  t.equal(index.bytes, e1!.size);
  t.notOk(index.has(e0!.hash));

  index.remove(a, e1!);
  t.equal(index.size, 0);
  t.equal(index.bytes, 0);
  t.equal(index.queue(a.key), undefined, 'an emptied queue leaves the sender map');
  t.same([...index.queues()], []);
});

t.test('hasReady counts only senders with a ready run', async (t) => {
  const index = new PendingIndex({ maxTransactions: 100, maxBytes: 1 << 20 });
  t.notOk(index.hasReady());
  const a = queue(alice);
  const gap = entry(alice, 2n);
  index.insert(a, gap);
  t.notOk(index.hasReady(), 'alice only has a gapped transaction');
  index.insert(a, entry(alice, 0n));
  t.ok(index.hasReady(), 'nonce 0 is ready, the gap at 1 remains');
  t.same(index.setCommitted(a, 1n, 1000n).length, 1);
  t.notOk(index.hasReady(), 'after the commit only nonce 2 is left, behind the gap');
});

t.test('the heaviest sender is found again after it shrinks', async (t) => {
  const index = new PendingIndex({ maxTransactions: 9, maxBytes: 1 << 20 });
  const a = queue(alice);
  const b = queue(bob);
  fill(index, alice, a, 0n, 5n);
  const bobTxs = fill(index, bob, b, 0n, 4n);
  t.equal(index.setCommitted(a, 3n, 1000n).length, 3, 'alice drops to 2');
  fill(index, alice, a, 5n, 8n);
  t.equal(a.length, 5, 'alice is the heaviest again');
  t.equal(index.setCommitted(a, 6n, 1000n).length, 3, 'and drops to 2 once more');
  fill(index, carol, queue(carol), 0n, 3n);
  t.equal(index.size, 9);
  t.same(index.makeRoom(queue(dave), bobTxs[0]!.size, true), [bobTxs[3]!.hash], 'bob, at 4, is now the heaviest: his tail goes');
  t.equal(index.size, 8);
});

t.test("a sender's own gapped tail is no victim, and a failed eviction changes nothing", async (t) => {
  const index = new PendingIndex({ maxTransactions: 4, maxBytes: 1 << 20 });
  const a = queue(alice);
  const b = queue(bob);
  const own = [entry(alice, 0n), entry(alice, 2n)];
  for (const e of own) index.insert(a, e);
  const bobTxs = fill(index, bob, b, 0n, 2n);
  t.ok(a.gapped);
  // alice's nonce 1 is ready, but the only gapped tail is her own and bob holds no more than she would
  t.throws(() => index.makeRoom(a, own[0]!.size, true), { code: 'MEMPOOL_FULL', data: { reason: 'count' } });
  t.equal(index.size, 4);
  t.ok([...own, ...bobTxs].every((e) => index.has(e.hash)));
});

t.test('the victims taken before a failure are put back, as they were', async (t) => {
  const a = queue(alice);
  const b = queue(bob);
  const txs = [entry(alice, 0n), entry(alice, 1n)];
  const gapped = entry(bob, 5n);
  const size = txs[0]!.size;
  const index = new PendingIndex({ maxTransactions: 100, maxBytes: 3 * size });
  for (const e of txs) index.insert(a, e);
  index.insert(b, gapped);
  // bob's gapped tail and alice's tail go, then alice holds no more than carol would: roll back
  t.throws(() => index.makeRoom(queue(carol), 2 * size + 1, true), { code: 'MEMPOOL_FULL', data: { reason: 'bytes' } });
  t.equal(index.size, 3);
  t.equal(index.bytes, 3 * size);
  t.same(a.entries, txs);
  t.equal(a.ready, 2);
  t.equal(index.queue(b.key), b, "bob's emptied queue is back in the sender map");
  t.same(index.makeRoom(queue(carol), size, true), [gapped.hash], 'and his tail is again the first victim');
});
