import type { CommittedBlock } from '../../../../node/chain/app.js';
import { LedgerError } from '../../../../node/errors.js';
import type { SqlClient } from '../../../common/sql/types.js';
import type { CredentialRow, DidRow, Indexed, VerificationRow } from '../../rows.js';
import type { IndexWriter } from '../types.js';
import { Batch, type SqlIndexerDeps } from './batch.js';
import { ChainRows } from './chain-rows.js';
import { indexIdentity } from './identity-rows.js';
import { expireDue, indexVerification } from './verification-rows.js';

export type { SqlIndexerDeps } from './batch.js';

/**
 * Indexes committed blocks into the explorer's tables. One transaction per batch (a block at the
 * head, up to 64 while catching up) holds the rows, the updated totals and the cursor, so a crash
 * leaves the index before or after the batch. The rows of a batch go in one statement per table.
 *
 * The transaction first locks the cursor row and checks it is where this writer left it: if
 * another instance moved it (two writers after a lease handover, say), the batch is refused with
 * EXPLORER_INDEX_MOVED and nothing is written, so no row is ever indexed twice.
 *
 * DIDs, credentials, issuers and verification requests change through receipt events: those rows
 * are read once per batch, changed in memory block by block (the feed gets each block's view), and
 * written at the end (batch.ts). The rows are in chain-rows.ts, identity-rows.ts and
 * verification-rows.ts. Verification expiry has no event: as execution does, a request still pending
 * at its deadline height expires after that block's transactions; the writer keeps the pending
 * deadlines in memory, read once when it starts.
 */

/** the code of a batch refused because the cursor is not where this writer left it */
export const INDEX_MOVED = 'EXPLORER_INDEX_MOVED';

export class SqlIndexer implements IndexWriter {
  private next: number | undefined;
  /** pending request id -> deadline height, as of the cursor */
  private dues: Map<string, number> | undefined;

  constructor(private readonly d: SqlIndexerDeps) {}

  async cursor(): Promise<number> {
    this.next ??= await readCursor(this.d.db);
    return this.next;
  }

  async applyAll(blocks: readonly CommittedBlock[]): Promise<Indexed[]> {
    const first = await this.cursor();
    let next = first;
    for (const c of blocks) {
      if (c.seq !== next) throw new Error(`the explorer index expects seq ${next}, got ${c.seq}`);
      next = c.seq + 1;
    }
    this.dues ??= await loadDues(this.d.db);
    const dues = new Map(this.dues);
    const now = this.d.now ?? (() => new Date());
    try {
      const out = await this.d.db.transaction(async (tx) => {
        const { rows } = await tx.query<{ next_seq: number }>('SELECT next_seq FROM explorer.index_cursor FOR UPDATE');
        const stored = Number(rows[0]!.next_seq);
        if (stored !== first) throw new LedgerError(INDEX_MOVED, `the explorer index is at seq ${stored}, not ${first}: another instance indexed it`, 'conflict');
        const batch = new Batch(tx, this.d, dues);
        const chain = new ChainRows(batch);
        const indexed: Indexed[] = [];
        for (const c of blocks) indexed.push(await indexBlock(batch, chain, c, now().toISOString()));
        await chain.write();
        await batch.write();
        await tx.query('UPDATE explorer.index_cursor SET next_seq = $1', [next]);
        return indexed;
      });
      this.next = next;
      this.dues = dues;
      return out;
    } catch (err) {
      // re-read what is stored before trying again
      this.next = undefined;
      this.dues = undefined;
      throw err;
    }
  }
}

export async function readCursor(db: SqlClient): Promise<number> {
  const { rows } = await db.query<{ next_seq: number }>('SELECT next_seq FROM explorer.index_cursor');
  return Number(rows[0]?.next_seq ?? 0);
}

async function loadDues(db: SqlClient): Promise<Map<string, number>> {
  const { rows } = await db.query<{ request_id: string; deadline_height: number }>("SELECT request_id, deadline_height FROM explorer.verification_requests WHERE status = 'pending'");
  return new Map(rows.map((r) => [r.request_id, Number(r.deadline_height)]));
}

/** One block into the batch: its chain rows, then each transaction's events, then expiry. */
async function indexBlock(b: Batch, chain: ChainRows, c: CommittedBlock, at: string): Promise<Indexed> {
  const { block, txs, sources } = chain.block(c, at);
  const dids: DidRow[] = [];
  const credentials: CredentialRow[] = [];
  const verifications = new Map<string, VerificationRow>();
  for (const s of sources) {
    await indexIdentity(b, s, dids, credentials);
    await indexVerification(b, s, verifications);
  }
  await expireDue(b, c.seq, c.block.header.height, verifications);
  return { block, txs, dids, credentials, verifications: [...verifications.values()] };
}
