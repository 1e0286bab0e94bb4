import type { CommittedBlock } from '../../node/chain/app.js';
import type { Indexed } from './rows.js';
import type { IndexWriter } from './store/types.js';

/** at most this many blocks, and about this many transactions, in one batch while catching up */
export const CATCH_UP_GROUP = 64;
export const CATCH_UP_TXS = 2048;

/**
 * Indexes a block stream: blocks that are already behind the head (`behind(seq)`) go in groups
 * of up to CATCH_UP_GROUP blocks or CATCH_UP_TXS transactions, the head's at once, so live blocks
 * are never held back.
 */
export async function indexBlocks(indexer: IndexWriter, blocks: AsyncIterable<CommittedBlock>, behind: (seq: number) => boolean, done: (indexed: Indexed, nextSeq: number) => void): Promise<void> {
  let group: CommittedBlock[] = [];
  let txs = 0;
  for await (const c of blocks) {
    group.push(c);
    txs += c.block.transactions.length;
    if (group.length < CATCH_UP_GROUP && txs < CATCH_UP_TXS && behind(c.seq)) continue;
    const indexed = await indexer.applyAll(group);
    group = [];
    txs = 0;
    for (const i of indexed) done(i, c.seq + 1);
  }
}
