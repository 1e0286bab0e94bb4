import type { CommittedBlock } from '../chain/app.js';
import { LedgerError } from '../errors.js';
import type { Receipt } from '../protocol/receipt.js';
import { transactionHash } from '../protocol/transaction.js';
import type { ChainStore } from '../state/chain-store.js';

/**
 * Committed blocks in seq order, from any seq, then following the head. Each step reads the
 * store, so a reader that falls behind, or starts at 0 on a long chain, catches up at its own
 * pace and never holds the node up: nothing is buffered for it.
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

async function load(store: ChainStore, seq: number): Promise<CommittedBlock> {
  const block = await store.blocks.bySeq(seq);
  if (!block) throw new LedgerError('BLOCK_MISSING', `committed block at seq ${seq} is not in the store`, 'internal');
  // one read per receipt, all in flight at once
  const found = await Promise.all(block.transactions.map((tx) => store.receipts.byTxHash(transactionHash(store.chainId, tx))));
  const receipts: Receipt[] = [];
  for (const r of found) {
    if (!r) throw new LedgerError('RECEIPT_MISSING', `no receipt for a transaction of seq ${seq}`, 'internal');
    receipts.push(r);
  }
  return { block, seq, receipts };
}

/** blocks read ahead of the reader when they are already committed */
const READ_AHEAD = 8;

/** While the reader handles one block, the next committed ones are already being read. */
export async function* committedBlocks(store: ChainStore, head: HeadSignal, fromSeq: number, signal?: AbortSignal): AsyncGenerator<CommittedBlock> {
  if (!Number.isSafeInteger(fromSeq) || fromSeq < 0) throw new LedgerError('BAD_SEQ', `a block stream starts at a seq from 0, got ${fromSeq}`, 'invalid');
  let seq = fromSeq;
  const ahead: Array<Promise<CommittedBlock>> = [];
  while (!signal?.aborted) {
    const top = store.head()?.seq ?? -1;
    if (seq > top) {
      await head.next(signal);
      continue;
    }
    while (ahead.length < READ_AHEAD && seq + ahead.length <= top) {
      const read = load(store, seq + ahead.length);
      // a read-ahead the reader never takes (it stopped) must not surface as an unhandled rejection
      read.catch(() => undefined);
      ahead.push(read);
    }
    yield await ahead.shift()!;
    seq++;
  }
}
