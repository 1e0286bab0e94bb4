import t from 'tap';
import { MAX_TX_FRAME_BYTES } from '../../node/network/limits.js';
import { decodeTxBatch, encodeTxBatch, encodeTxBatches, MAX_TX_BATCH_BYTES, MAX_TXS_PER_BATCH, TX_FLUSH_BYTES, TX_FLUSH_MS, TxBatcher, type QueuedTx } from '../../node/network/tx-batch.js';
import { MAX_TX_BYTES } from '../../node/protocol/transaction.js';

const tx = (n: number, size = 100) => new Uint8Array(size).fill(n % 256);

t.test('a batch round-trips', async (t) => {
  const txs = [tx(1), tx(2, 1), tx(3, MAX_TX_BYTES)];
  t.same(decodeTxBatch(encodeTxBatch(txs)), txs);
});

t.test('decoding is strict', async (t) => {
  t.throws(() => decodeTxBatch(encodeTxBatch([])), { code: 'BAD_TX_BATCH' }, 'empty');
  const ok = encodeTxBatch([tx(1)]);
  t.throws(() => decodeTxBatch(Uint8Array.from([...ok, 0])), { code: 'TRAILING_BYTES' }, 'trailing bytes');
  t.throws(() => decodeTxBatch(ok.subarray(0, ok.length - 1)), { code: 'TRUNCATED' }, 'truncated');
  t.throws(() => decodeTxBatch(Uint8Array.of(0, 1, 0, 0)), { code: 'BAD_TX_BATCH' }, 'a zero-length transaction');
  t.throws(() => decodeTxBatch(Uint8Array.of(0x02, 0x01)), { code: 'BAD_TX_BATCH' }, 'too many');
});

t.test('batches split by count and by bytes, and each fits a frame', async (t) => {
  const small = Array.from({ length: 1200 }, (_, i) => tx(i));
  const a = encodeTxBatches(small);
  t.same(a.batches.map((b) => decodeTxBatch(b).length), [MAX_TXS_PER_BATCH, MAX_TXS_PER_BATCH, 1200 - 2 * MAX_TXS_PER_BATCH]);
  const big = Array.from({ length: 600 }, (_, i) => tx(i, MAX_TX_BYTES));
  const b = encodeTxBatches([...big, new Uint8Array(0), new Uint8Array(MAX_TX_BYTES + 1)]);
  t.equal(b.skipped, 2, 'empty and oversized transactions are skipped');
  t.ok(b.batches.every((x) => x.length <= MAX_TX_BATCH_BYTES && x.length <= MAX_TX_FRAME_BYTES), 'every batch fits');
  t.same(b.batches.flatMap(decodeTxBatch), big, 'nothing lost, order kept');
});

t.test('the batcher flushes after a short wait, or at once when full', async (t) => {
  const flushed: QueuedTx[][] = [];
  const drops: string[] = [];
  const q = new TxBatcher(TX_FLUSH_BYTES * 2, (batch) => flushed.push(batch), (r) => drops.push(r));
  const notB = (peer: Uint8Array) => peer[0] !== 0xb;
  q.add([tx(1), tx(2)], notB);
  t.equal(flushed.length, 0, 'waits for more');
  await new Promise((r) => setTimeout(r, TX_FLUSH_MS + 20));
  t.same(flushed[0]!.map((x) => x.to), [notB, notB], 'each keeps the peers it is for');
  q.add(Array.from({ length: 64 }, (_, i) => tx(i, MAX_TX_BYTES)));
  t.equal(flushed.length, 2, 'flushed at once at TX_FLUSH_BYTES');
  q.add(Array.from({ length: 200 }, (_, i) => tx(i, MAX_TX_BYTES)));
  t.ok(drops.length > 0 && drops.every((d) => d === 'tx-queue-full'), `bounded (${drops.length} dropped)`);
  t.equal(q.clear().length, 0, 'the full queue flushed at once');
  q.add([tx(1)]);
  t.equal(q.clear().length, 1, 'clear empties the queue and cancels the timer');
});
