import type { CommittedBlock } from '../../node/chain/app.js';
import { addressFromPublicKey, formatAddress } from '../../node/protocol/address.js';
import type { CredentialRecord } from '../../node/protocol/credential-records.js';
import type { BinarySublevel } from '../../node/state/db.js';
import { indexIdentity, type CredentialRow, type DidRow } from './identity-index.js';
import { blockRow, txRow, type BlockRow, type TxRow } from './rows.js';
import { Batch, getNumber, pad, position } from './store.js';

/**
 * Indexes committed blocks into the explorer's namespace. One LevelDB batch holds a block's rows
 * (or several blocks' when it catches up), their index entries, the updated totals and the
 * cursor, so a crash leaves the index before or after them: a restart resumes at the cursor with
 * no gap and no duplicate.
 */

/** An address as indexed; the API adds `is_validator` from live chain state. */
export interface AddressRecord {
  address: string;
  /** block time (Unix ms, as a string) of its first and last transaction */
  first_seen: string;
  last_seen: string;
  tx_count: number;
  did: string | null;
  created_at: string;
  updated_at: string;
}

/** The rows one block added, for the WebSocket feed. */
export interface Indexed {
  block: BlockRow;
  txs: TxRow[];
  dids: DidRow[];
  credentials: CredentialRow[];
}

export interface IndexerDeps {
  store: BinarySublevel;
  network: string;
  /** a credential's record in committed state (its registered fields never change) */
  credential(id: Uint8Array): Promise<CredentialRecord | undefined>;
  now?: () => Date;
}

export class Indexer {
  /** the cursor as last written: this indexer is the namespace's only writer */
  private next: number | undefined;

  constructor(private readonly d: IndexerDeps) {}

  /** The next seq to index. */
  async cursor(): Promise<number> {
    this.next ??= await getNumber(this.d.store, 'cursor');
    return this.next;
  }

  /**
   * Indexes consecutive blocks in one batch (catching up, many are waiting): the cursor still
   * moves in the same write as the rows, so a crash leaves the index before or after all of them.
   */
  async applyAll(blocks: readonly CommittedBlock[]): Promise<Indexed[]> {
    const b = new Batch(this.d.store);
    const out: Indexed[] = [];
    let next = await this.cursor();
    for (const c of blocks) {
      if (c.seq !== next) throw new Error(`the explorer index expects seq ${next}, got ${c.seq}`);
      await b.prefetch(keysRead(c));
      out.push(await this.index(b, c));
      next = c.seq + 1;
    }
    b.put('cursor', String(next));
    await this.d.store.batch(b.ops() as never);
    this.next = next;
    return out;
  }

  private async index(b: Batch, c: CommittedBlock): Promise<Indexed> {
    const at = (this.d.now ?? (() => new Date()))().toISOString();

    const block = blockRow(c.block, at);
    b.put(`block:${pad(c.block.header.height, 16)}`, block);
    b.put(`blockhash:${block.hash}`, block.height);
    b.put(`blocktime:${pad(c.block.header.timestampMs, 16)}:${pad(c.block.header.height, 16)}`, block.height);
    await b.add('blocks');
    if (c.seq > 0) {
      b.put(`proposed:${block.proposer}:${pad(c.block.header.height, 16)}`, block.height);
      await b.add(`proposed:${block.proposer}`);
      await b.add('proposed');
    }
    const txs: TxRow[] = [];
    const dids: DidRow[] = [];
    const credentials: CredentialRow[] = [];
    for (const [i, tx] of c.block.transactions.entries()) {
      const row = txRow(tx, c.receipts[i]!, c.block, at);
      txs.push(row);
      const pos = position(c.seq, i);
      b.put(`tx:${row.hash}`, row);
      b.put(`txseq:${pos}`, row.hash);
      b.put(`txtype:${row.type}:${pos}`, row.hash);
      b.put(`txtime:${pad(c.block.header.timestampMs, 16)}:${pos}`, row.hash);
      await b.add('txs');
      if ((await b.get(`sender:${row.sender}`)) === undefined) {
        b.put(`sender:${row.sender}`, '1');
        await b.add('senders');
      }
      await b.add(`txtype:${row.type}`);
      for (const a of new Set([row.sender, ...(row.recipient ? [row.recipient] : [])])) {
        b.put(`txaddr:${a}:${pos}`, row.hash);
        await b.add(`txaddr:${a}`);
        const prev = await b.get<AddressRecord>(`addr:${a}`);
        if (!prev) {
          await b.add('addresses');
          b.put(`addrfirst:${pad(Number(row.timestamp_ms), 16)}:${a}`, a);
        } else {
          b.del(`addrcount:${pad(prev.tx_count, 12)}:${a}`);
        }
        b.put(`addrcount:${pad((prev?.tx_count ?? 0) + 1, 12)}:${a}`, a);
        b.put(`addr:${a}`, {
          address: a,
          first_seen: prev?.first_seen ?? row.timestamp_ms,
          last_seen: row.timestamp_ms,
          tx_count: (prev?.tx_count ?? 0) + 1,
          did: prev?.did ?? (tx.payload.kind === 'DidCreate' && a === row.sender && row.status === 'success' ? `did:ledger:${this.d.network}:${a}` : null),
          created_at: prev?.created_at ?? at,
          updated_at: at,
        } satisfies AddressRecord);
      }
      const added = await indexIdentity(b, { network: this.d.network, tx, receipt: c.receipts[i]!, row, pos, at, credential: this.d.credential });
      dids.push(...added.dids);
      credentials.push(...added.credentials);
    }
    return { block, txs, dids, credentials };
  }
}

/** at most this many blocks in one batch while catching up */
export const CATCH_UP_GROUP = 64;

/**
 * Indexes a block stream: blocks that are already behind the head (`behind(seq)`) go in groups
 * of up to CATCH_UP_GROUP, the head's at once, so live blocks are never held back.
 */
export async function indexBlocks(indexer: Indexer, blocks: AsyncIterable<CommittedBlock>, behind: (seq: number) => boolean, done: (indexed: Indexed, nextSeq: number) => void): Promise<void> {
  let group: CommittedBlock[] = [];
  for await (const c of blocks) {
    group.push(c);
    if (group.length < CATCH_UP_GROUP && behind(c.seq)) continue;
    const indexed = await indexer.applyAll(group);
    group = [];
    for (const i of indexed) done(i, c.seq + 1);
  }
}

/** The stored keys indexing `c` reads (totals, address rows, sender markers), to fetch in one go. */
function keysRead(c: CommittedBlock): string[] {
  const proposer = formatAddress(c.block.header.proposer);
  const keys = ['count:blocks', 'count:proposed', `count:proposed:${proposer}`, 'count:txs', 'count:senders', 'count:addresses'];
  for (const tx of c.block.transactions) {
    const sender = addressFromPublicKey(tx.senderPubkey);
    const addresses = tx.payload.kind === 'Transfer' ? [sender, formatAddress(tx.payload.to)] : [sender];
    keys.push(`count:txtype:${tx.payload.kind}`, `sender:${sender}`);
    for (const a of addresses) keys.push(`addr:${a}`, `count:txaddr:${a}`);
  }
  return keys;
}
