import type { CommittedBlock } from '../../../../node/chain/app.js';
import { stringifyJson } from '../../../../node/protocol/json.js';
import { senderDid } from '../../event-rows.js';
import { addressesOf, blockRow, txRow, type BlockRow, type TxRow } from '../../rows.js';
import type { Batch, Source } from './batch.js';
import { bulkInsert } from './bulk.js';
import { ADDRESS_COLUMNS, ADDRESS_TX_COLUMNS, BLOCK_COLUMNS, TX_COLUMNS, VALIDATOR_COLUMNS } from './tables.js';

/**
 * A batch's block, transaction, address and validator rows: blocks and transactions are only
 * ever inserted, addresses and validators upserted with their counts added.
 */

interface AddressChange {
  first: number;
  last: number;
  txs: number;
  sent: number;
  did: string | null;
  at: string;
}

export class ChainRows {
  private readonly blocks: unknown[][] = [];
  private readonly txs: unknown[][] = [];
  private readonly addressTxs: unknown[][] = [];
  private readonly addresses = new Map<string, AddressChange>();
  private readonly validators = new Map<string, { n: number; last: number }>();

  constructor(private readonly b: Batch) {}

  /** The block's rows, and its transactions as sources for the event rows. */
  block(c: CommittedBlock, at: string): { block: BlockRow; txs: TxRow[]; sources: Source[] } {
    const block = blockRow(c.block, at);
    const h = c.block.header;
    this.blocks.push([h.height, c.seq, block.hash, block.parent_hash, block.proposer, h.timestampMs, block.tx_count, h.round, block.state_root, at]);
    this.b.add('blocks');
    if (c.seq > 0) {
      const v = this.validators.get(block.proposer) ?? { n: 0, last: 0 };
      this.validators.set(block.proposer, { n: v.n + 1, last: h.height });
      this.b.add('blocks_proposed');
    }
    const txs: TxRow[] = [];
    const sources: Source[] = [];
    for (const [i, tx] of c.block.transactions.entries()) {
      const receipt = c.receipts[i]!;
      const row = txRow(tx, receipt, c.block, at);
      txs.push(row);
      sources.push({ seq: c.seq, tx, receipt, row, at });
      this.txs.push([row.hash, row.block_height, c.seq, row.tx_index, row.sender, row.type, row.recipient, row.amount, row.fee, row.status, row.error_reason ?? null, h.timestampMs, stringifyJson(row.raw_payload), at]);
      this.b.add('transactions');
      this.b.add(`transactions_of_type:${row.type}`);
      for (const a of addressesOf(row)) {
        this.addressTxs.push([a, c.seq, row.tx_index, row.hash]);
        const prev = this.addresses.get(a);
        this.addresses.set(a, {
          first: prev?.first ?? h.timestampMs,
          last: h.timestampMs,
          txs: (prev?.txs ?? 0) + 1,
          sent: (prev?.sent ?? 0) + (a === row.sender ? 1 : 0),
          did: prev?.did ?? senderDid(this.b.d.network, tx, row, a),
          at,
        });
      }
    }
    return { block, txs, sources };
  }

  async write(): Promise<void> {
    const tx = this.b.tx;
    await bulkInsert(tx, { table: 'explorer.blocks', columns: BLOCK_COLUMNS }, this.blocks);
    await bulkInsert(tx, { table: 'explorer.transactions', columns: TX_COLUMNS }, this.txs);
    await bulkInsert(tx, { table: 'explorer.address_transactions', columns: ADDRESS_TX_COLUMNS }, this.addressTxs);
    const after = await bulkInsert<{ address: string; tx_count: number; sent_count: number }>(
      tx,
      {
        table: 'explorer.addresses',
        columns: ADDRESS_COLUMNS,
        conflict: { key: 'address', update: 'last_seen_ms = excluded.last_seen_ms, tx_count = t.tx_count + excluded.tx_count, sent_count = t.sent_count + excluded.sent_count, did = coalesce(t.did, excluded.did), updated_at = excluded.updated_at' },
        returning: 'address, tx_count, sent_count',
      },
      [...this.addresses].map(([a, c]) => [a, c.first, c.last, c.txs, c.sent, c.did, c.at, c.at]),
    );
    // the counts after the write equal this batch's own: the address (or its first send) is new
    for (const r of after) {
      const c = this.addresses.get(r.address)!;
      if (Number(r.tx_count) === c.txs) this.b.add('addresses');
      if (c.sent > 0 && Number(r.sent_count) === c.sent) this.b.add('senders');
    }
    await bulkInsert(
      tx,
      { table: 'explorer.validators', columns: VALIDATOR_COLUMNS, conflict: { key: 'address', update: 'blocks_proposed = t.blocks_proposed + excluded.blocks_proposed, last_proposed_height = excluded.last_proposed_height' } },
      [...this.validators].map(([a, v]) => [a, v.n, v.last]),
    );
  }
}
