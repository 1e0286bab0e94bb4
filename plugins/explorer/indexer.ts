import type { CommittedBlock } from '../../node/chain/app.js';
import type { BinarySublevel, StoreOp } from '../../node/state/db.js';
import { blockRow, txRow, type BlockRow, type TxRow } from './rows.js';
import { getJson, getNumber, jsonValue, key, pad, position } from './store.js';

/**
 * Indexes committed blocks into the explorer's namespace. One LevelDB batch per block holds its
 * rows, its index entries, the updated totals and the cursor, so a crash leaves the index either
 * before or after the block: a restart resumes at the cursor with no gap and no duplicate.
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

export interface Indexed {
  block: BlockRow;
  txs: TxRow[];
}

export class Indexer {
  constructor(
    private readonly store: BinarySublevel,
    private readonly network: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The next seq to index. */
  cursor(): Promise<number> {
    return getNumber(this.store, 'cursor');
  }

  async apply(c: CommittedBlock): Promise<Indexed> {
    const expected = await this.cursor();
    if (c.seq !== expected) throw new Error(`the explorer index expects seq ${expected}, got ${c.seq}`);
    const at = this.now().toISOString();
    const ops: StoreOp[] = [];
    const put = (k: string, v: unknown) => ops.push({ type: 'put', key: key(k), value: typeof v === 'string' ? key(v) : jsonValue(v) } as StoreOp);
    const counts = new Map<string, number>();
    const bump = async (name: string) => counts.set(name, (counts.get(name) ?? (await getNumber(this.store, `count:${name}`))) + 1);

    const block = blockRow(c.block, at);
    put(`block:${pad(c.block.header.height, 16)}`, block);
    await bump('blocks');
    if (c.seq > 0) {
      put(`proposed:${block.proposer}:${pad(c.block.header.height, 16)}`, block.height);
      await bump(`proposed:${block.proposer}`);
      await bump('proposed');
    }
    const txs: TxRow[] = [];
    const addresses = new Map<string, AddressRecord>();
    for (const [i, tx] of c.block.transactions.entries()) {
      const row = txRow(tx, c.receipts[i]!, c.block, at);
      txs.push(row);
      const pos = position(c.seq, i);
      put(`tx:${row.hash}`, row);
      put(`txseq:${pos}`, row.hash);
      put(`txtype:${row.type}:${pos}`, row.hash);
      await bump('txs');
      await bump(`txtype:${row.type}`);
      for (const a of new Set([row.sender, ...(row.recipient ? [row.recipient] : [])])) {
        put(`txaddr:${a}:${pos}`, row.hash);
        await bump(`txaddr:${a}`);
        const prev = addresses.get(a) ?? (await getJson<AddressRecord>(this.store, `addr:${a}`));
        if (!prev) await bump('addresses');
        addresses.set(a, {
          address: a,
          first_seen: prev?.first_seen ?? row.timestamp_ms,
          last_seen: row.timestamp_ms,
          tx_count: (prev?.tx_count ?? 0) + 1,
          did: prev?.did ?? (tx.payload.kind === 'DidCreate' && a === row.sender && row.status === 'success' ? `did:ledger:${this.network}:${a}` : null),
          created_at: prev?.created_at ?? at,
          updated_at: at,
        });
      }
    }
    for (const [a, row] of addresses) put(`addr:${a}`, row);
    for (const [name, n] of counts) put(`count:${name}`, String(n));
    put('cursor', String(c.seq + 1));
    await this.store.batch(ops as never);
    return { block, txs };
  }
}
