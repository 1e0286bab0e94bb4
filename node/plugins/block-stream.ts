import type { CommittedBlock } from '../chain/app.js';
import { LedgerError } from '../errors.js';
import type { Receipt } from '../protocol/receipt.js';
import { transactionHash } from '../protocol/transaction.js';
import type { ChainStore } from '../state/chain-store.js';

/**
 * Committed blocks in seq order, from any seq, then following the head. The stream reads the
 * store, so a reader that falls behind, or starts at 0 on a long chain, catches up at its own
 * pace and never holds the node up: nothing is buffered for it beyond a few read windows.
 */

/** Wakes readers waiting for the next commit. The node calls `committed(seq)` after each block is durable. */
export class HeadSignal {
  private waiters = new Set<() => void>();

  committed(): void {
    const wake = [...this.waiters];
    this.waiters.clear();
    for (const w of wake) w();
  }

  /** Resolves at the next commit, or when `signal` aborts. */
  next(signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const done = () => {
        this.waiters.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      this.waiters.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}

/** at most this many blocks, and about this many transactions, are read in one go */
const WINDOW_BLOCKS = 32;
const WINDOW_TXS = 4096;

/**
 * Committed blocks `from` .. `from + count - 1` with their receipts: one read of the seq index,
 * one of the blocks and one of all their receipts, whatever `count` is. A read per block or per
 * receipt costs the reader's thread more than decoding what it returns.
 */
async function load(store: ChainStore, from: number, count: number): Promise<CommittedBlock[]> {
  const blocks = await store.blocks.bySeqs(Array.from({ length: count }, (_, i) => from + i));
  const hashes: string[] = [];
  blocks.forEach((block, i) => {
    if (!block) throw new LedgerError('BLOCK_MISSING', `committed block at seq ${from + i} is not in the store`, 'internal');
    for (const tx of block.transactions) hashes.push(transactionHash(store.chainId, tx));
  });
  const found = await store.receipts.byTxHashes(hashes);
  let next = 0;
  return blocks.map((block, i) => {
    const receipts: Receipt[] = [];
    for (let k = 0; k < block!.transactions.length; k++) {
      const r = found[next++];
      if (!r) throw new LedgerError('RECEIPT_MISSING', `no receipt for a transaction of seq ${from + i}`, 'internal');
      receipts.push(r);
    }
    return { block: block!, seq: from + i, receipts };
  });
}

/** windows read ahead of the one the reader is taking, so that it never waits for one */
const READ_AHEAD = 2;

/**
 * While the reader handles one window of committed blocks, the next ones are already being read.
 * Windows shrink for large blocks, so what is held in memory stays about WINDOW_TXS transactions
 * a window.
 */
export async function* committedBlocks(store: ChainStore, head: HeadSignal, fromSeq: number, signal?: AbortSignal): AsyncGenerator<CommittedBlock> {
  if (!Number.isSafeInteger(fromSeq) || fromSeq < 0) throw new LedgerError('BAD_SEQ', `a block stream starts at a seq from 0, got ${fromSeq}`, 'invalid');
  let seq = fromSeq;
  // the first window is small: the size of the blocks is not known yet
  let size = 8;
  /** windows being read, in seq order, and the first seq none of them holds */
  const ahead: Array<Promise<CommittedBlock[]>> = [];
  let requested = seq;
  const request = (top: number) => {
    const count = Math.min(size, top - requested + 1);
    const read = load(store, requested, count);
    // a read-ahead the reader never takes (it stopped) must not surface as an unhandled rejection
    read.catch(() => undefined);
    ahead.push(read);
    requested += count;
  };
  while (!signal?.aborted) {
    const top = store.head()?.seq ?? -1;
    if (seq > top) {
      await head.next(signal);
      continue;
    }
    if (ahead.length === 0) request(top);
    const window = await ahead.shift()!;
    const txs = window.reduce((n, c) => n + c.block.transactions.length, 0);
    size = Math.max(1, Math.min(WINDOW_BLOCKS, Math.floor((WINDOW_TXS * window.length) / Math.max(1, txs))));
    while (ahead.length < READ_AHEAD && requested <= top) request(top);
    for (const c of window) {
      yield c;
      seq++;
      if (signal?.aborted) return;
    }
  }
}
