import type { CredentialRecord } from '../../../../node/protocol/credential-records.js';
import type { Receipt } from '../../../../node/protocol/receipt.js';
import type { Transaction } from '../../../../node/protocol/transaction.js';
import type { SqlClient, SqlDatabase } from '../../../common/sql/types.js';
import type { TxRow } from '../../rows.js';
import { bulkInsert, replaceAll } from './bulk.js';
import { CREDENTIALS, DIDS, ISSUERS, VERIFICATIONS, type CredentialState, type DidState, type IssuerState, type KeyedTable, type VerificationState } from './tables.js';

/**
 * What one batch's parts share: the running totals, and the DID, credential, issuer and
 * verification rows, read from their tables once per batch, changed in memory block by block,
 * and upserted by write() at the end.
 */

export interface SqlIndexerDeps {
  db: SqlDatabase;
  network: string;
  credential(id: Uint8Array): Promise<CredentialRecord | undefined>;
  now?: () => Date;
}

/** A transaction being indexed. */
export interface Source {
  seq: number;
  tx: Transaction;
  receipt: Receipt;
  row: TxRow;
  at: string;
}

/** A keyed table whose changed rows are upserted whole. */
class Rows<T> {
  /** rows read or created in this batch (undefined: absent) */
  private readonly cache = new Map<string, T | undefined>();
  private readonly dirty = new Set<string>();

  constructor(
    private readonly table: KeyedTable<T>,
    private readonly tx: SqlClient,
  ) {}

  /** The row as this batch has it, read from the table the first time. */
  async get(key: string): Promise<T | undefined> {
    if (this.cache.has(key)) return this.cache.get(key);
    const t = this.table;
    const { rows } = await this.tx.query(`SELECT ${t.select} FROM ${t.name} WHERE ${t.key} = $1`, [key]);
    const row = rows[0] === undefined ? undefined : t.from(rows[0]);
    this.cache.set(key, row);
    return row;
  }

  /** Marks a row as changed (after set, or after changing the object get returned). */
  set(key: string, row: T): void {
    this.cache.set(key, row);
    this.dirty.add(key);
  }

  async write(): Promise<void> {
    const t = this.table;
    await bulkInsert(this.tx, { table: t.name, columns: t.columns, conflict: { key: t.key, update: replaceAll(t.columns, t.key) } }, [...this.dirty].map((k) => t.values(this.cache.get(k)!)));
  }
}

export class Batch {
  private readonly totals = new Map<string, number>();
  readonly dids: Rows<DidState>;
  readonly credentials: Rows<CredentialState>;
  readonly issuers: Rows<IssuerState>;
  readonly verifications: Rows<VerificationState>;

  constructor(
    readonly tx: SqlClient,
    readonly d: SqlIndexerDeps,
    /** pending request id -> deadline height, kept up to date by the batch */
    readonly dues: Map<string, number>,
  ) {
    this.dids = new Rows(DIDS, tx);
    this.credentials = new Rows(CREDENTIALS, tx);
    this.issuers = new Rows(ISSUERS, tx);
    this.verifications = new Rows(VERIFICATIONS, tx);
  }

  add(name: string, delta = 1): void {
    this.totals.set(name, (this.totals.get(name) ?? 0) + delta);
  }

  async write(): Promise<void> {
    for (const rows of [this.dids, this.credentials, this.issuers, this.verifications]) await rows.write();
    // a total that nets to 0 in the batch is still written, as block by block it would be
    await bulkInsert(
      this.tx,
      { table: 'explorer.totals', columns: [{ name: 'name', type: 'text' }, { name: 'value', type: 'bigint' }], conflict: { key: 'name', update: 'value = t.value + excluded.value' } },
      [...this.totals].map(([name, n]) => [name, n]),
    );
  }
}
