import { invalid } from '../errors.js';
import { ByteReader, ByteWriter } from '../protocol/bytes.js';
import { MAX_TX_BYTES } from '../protocol/transaction.js';
import { MAX_TX_FRAME_BYTES } from './limits.js';

/** A gossip frame of signed transactions: u16 count, then each as u16 length + its canonical encoding. */

export const MAX_TXS_PER_BATCH = 512;
/** Encoded size a sender keeps a batch under; with one more max-size tx it still fits the frame cap. */
export const MAX_TX_BATCH_BYTES = 1024 * 1024;

export function encodeTxBatch(txs: Uint8Array[]): Uint8Array {
  const w = new ByteWriter().u16(txs.length);
  for (const tx of txs) w.u16(tx.length).bytes(tx);
  return w.finish();
}

/**
 * Splits transactions into encoded batches of at most MAX_TXS_PER_BATCH and about
 * MAX_TX_BATCH_BYTES each. Transactions outside 1..MAX_TX_BYTES are skipped: the receiver would
 * reject the whole batch and penalize us for them.
 */
export function encodeTxBatches(txs: Uint8Array[]): { batches: Uint8Array[]; skipped: number } {
  const batches: Uint8Array[] = [];
  let skipped = 0;
  let cur: Uint8Array[] = [];
  let size = 2;
  for (const tx of txs) {
    if (tx.length === 0 || tx.length > MAX_TX_BYTES) {
      skipped++;
      continue;
    }
    if (cur.length === MAX_TXS_PER_BATCH || (cur.length > 0 && size + 2 + tx.length > MAX_TX_BATCH_BYTES)) {
      batches.push(encodeTxBatch(cur));
      cur = [];
      size = 2;
    }
    cur.push(tx);
    size += 2 + tx.length;
  }
  if (cur.length > 0) batches.push(encodeTxBatch(cur));
  return { batches, skipped };
}

export function decodeTxBatch(bytes: Uint8Array): Uint8Array[] {
  if (bytes.length > MAX_TX_FRAME_BYTES) throw invalid('BAD_TX_BATCH', `a batch of ${bytes.length} bytes exceeds ${MAX_TX_FRAME_BYTES}`);
  const r = new ByteReader(bytes);
  const count = r.u16();
  if (count === 0 || count > MAX_TXS_PER_BATCH) throw invalid('BAD_TX_BATCH', `a batch holds 1 to ${MAX_TXS_PER_BATCH} transactions, not ${count}`);
  const out: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    const len = r.u16();
    if (len === 0 || len > MAX_TX_BYTES) throw invalid('BAD_TX_BATCH', `a transaction of ${len} bytes is outside 1 to ${MAX_TX_BYTES}`);
    out.push(r.bytes(len));
  }
  r.end();
  return out;
}

/** outgoing transactions wait at most this long to be batched... */
export const TX_FLUSH_MS = 5;
/** ...or until this many bytes are queued */
export const TX_FLUSH_BYTES = 256 * 1024;

export interface QueuedTx {
  bytes: Uint8Array;
  /** the peers (by address) to send it to; every peer when absent */
  to?: (peer: Uint8Array) => boolean;
}

/**
 * Collects outgoing transactions and hands them to `flush` within TX_FLUSH_MS, or at once when
 * TX_FLUSH_BYTES are queued; batching per peer happens in `flush`. Bounded by `maxQueuedBytes`.
 */
export class TxBatcher {
  private queue: QueuedTx[] = [];
  private bytes = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly maxQueuedBytes: number,
    private readonly flush: (queue: QueuedTx[]) => void,
    private readonly drop: (reason: string) => void,
  ) {}

  add(txs: Uint8Array[], to?: (peer: Uint8Array) => boolean): void {
    for (const bytes of txs) {
      if (this.bytes + bytes.length > this.maxQueuedBytes) {
        this.drop('tx-queue-full');
        continue;
      }
      this.queue.push(to ? { bytes, to } : { bytes });
      this.bytes += bytes.length;
    }
    if (this.bytes >= TX_FLUSH_BYTES) this.flushNow();
    else if (this.queue.length > 0) this.timer ??= setTimeout(() => this.flushNow(), TX_FLUSH_MS);
  }

  flushNow(): void {
    const queue = this.clear();
    if (queue.length > 0) this.flush(queue);
  }

  /** Empties the queue, cancelling the timer, and returns what was queued. */
  clear(): QueuedTx[] {
    clearTimeout(this.timer);
    this.timer = undefined;
    const queue = this.queue;
    this.queue = [];
    this.bytes = 0;
    return queue;
  }
}
