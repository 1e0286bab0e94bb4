import type { SqlDatabase } from '../../../common/sql/types.js';
import type { AddressRecord, BlockRow, CredentialRow, DidRow, Indexed, IssuerStats, TxRow, VerificationRow } from '../../rows.js';
import type { AddressSort, ChartMetric, CredentialFilter, ExplorerReader, NetworkTotals, Page, TxFilter, VerificationFilter, VerificationTotals, Window } from '../types.js';
import {
  ADDRESS_SELECT,
  addressFrom,
  BLOCK_SELECT,
  blockFrom,
  CREDENTIAL_SELECT,
  credentialFrom,
  credentialRow,
  DID_SELECT,
  didFrom,
  didRow,
  ISSUER_SELECT,
  issuerFrom,
  issuerRow,
  TX_SELECT,
  txFrom,
  VERIFICATION_SELECT,
  verificationFrom,
  verificationRow,
} from './tables.js';
import { readCursor } from './writer.js';

/**
 * The routes' reads on the explorer's tables. Pages are `LIMIT/OFFSET` on an index in the list's
 * order; totals of whole lists come from `explorer.totals` (or a row's own count), and the
 * narrow lists of one DID are counted.
 */

type Raw = Record<string, unknown>;

export class SqlReader implements ExplorerReader {
  readonly engine: string;

  constructor(private readonly db: SqlDatabase) {
    this.engine = db.engine;
  }

  private async rows(text: string, params: readonly unknown[]): Promise<Raw[]> {
    return (await this.db.query<Raw>(text, params)).rows;
  }

  private async one<T>(text: string, params: readonly unknown[], from: (r: Raw) => T): Promise<T | undefined> {
    const [row] = await this.rows(text, params);
    return row === undefined ? undefined : from(row);
  }

  private async number(text: string, params: readonly unknown[]): Promise<number> {
    const [row] = await this.rows(text, params);
    return Number(row ? Object.values(row)[0] ?? 0 : 0);
  }

  private total(name: string): Promise<number> {
    return this.number('SELECT value FROM explorer.totals WHERE name = $1', [name]);
  }

  cursor(): Promise<number> {
    return readCursor(this.db);
  }

  async blocks(w: Window): Promise<Page<BlockRow>> {
    const rows = await this.rows(`SELECT ${BLOCK_SELECT} FROM explorer.blocks ORDER BY height DESC LIMIT $1 OFFSET $2`, [w.limit, w.offset]);
    return { data: rows.map(blockFrom), total: await this.total('blocks') };
  }

  latestBlock(): Promise<BlockRow | undefined> {
    return this.one(`SELECT ${BLOCK_SELECT} FROM explorer.blocks ORDER BY height DESC LIMIT 1`, [], blockFrom);
  }

  block(height: number): Promise<BlockRow | undefined> {
    return this.one(`SELECT ${BLOCK_SELECT} FROM explorer.blocks WHERE height = $1`, [height], blockFrom);
  }

  blockByHash(hash: string): Promise<BlockRow | undefined> {
    return this.one(`SELECT ${BLOCK_SELECT} FROM explorer.blocks WHERE hash = $1`, [hash], blockFrom);
  }

  async txs(filter: TxFilter, w: Window): Promise<Page<TxRow>> {
    if ('address' in filter) {
      // the page's keys from the index alone, then only its rows: a deep page skips index entries, not rows
      const rows = await this.rows(
        `WITH page AS (SELECT tx_hash, block_seq, tx_index FROM explorer.address_transactions WHERE address = $1 ORDER BY block_seq DESC, tx_index DESC LIMIT $2 OFFSET $3)
         SELECT ${TX_SELECT.split(', ').map((c) => `t.${c}`).join(', ')} FROM page JOIN explorer.transactions t ON t.hash = page.tx_hash ORDER BY page.block_seq DESC, page.tx_index DESC`,
        [filter.address, w.limit, w.offset],
      );
      return { data: rows.map(txFrom), total: await this.number('SELECT tx_count FROM explorer.addresses WHERE address = $1', [filter.address]) };
    }
    if ('type' in filter) {
      const rows = await this.rows(`SELECT ${TX_SELECT} FROM explorer.transactions WHERE type = $1 ORDER BY block_seq DESC, tx_index DESC LIMIT $2 OFFSET $3`, [filter.type, w.limit, w.offset]);
      return { data: rows.map(txFrom), total: await this.total(`transactions_of_type:${filter.type}`) };
    }
    const rows = await this.rows(`SELECT ${TX_SELECT} FROM explorer.transactions ORDER BY block_seq DESC, tx_index DESC LIMIT $1 OFFSET $2`, [w.limit, w.offset]);
    return { data: rows.map(txFrom), total: await this.total('transactions') };
  }

  async txsInWindow(from: number, to: number, keep: { type?: string; address?: string }, w: Window): Promise<Page<TxRow>> {
    const where = ['timestamp_ms >= $1', 'timestamp_ms <= $2'];
    const params: unknown[] = [from, to];
    if (keep.type !== undefined) {
      params.push(keep.type);
      where.push(`type = $${params.length}`);
    }
    if (keep.address !== undefined) {
      params.push(keep.address);
      where.push(`(sender = $${params.length} OR recipient = $${params.length})`);
    }
    const clause = where.join(' AND ');
    const rows = await this.rows(`SELECT ${TX_SELECT} FROM explorer.transactions WHERE ${clause} ORDER BY timestamp_ms DESC, block_seq DESC, tx_index DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`, [...params, w.limit, w.offset]);
    return { data: rows.map(txFrom), total: await this.number(`SELECT count(*) FROM explorer.transactions WHERE ${clause}`, params) };
  }

  tx(hash: string): Promise<TxRow | undefined> {
    return this.one(`SELECT ${TX_SELECT} FROM explorer.transactions WHERE hash = $1`, [hash], txFrom);
  }

  async txsByHash(hashes: readonly string[]): Promise<TxRow[]> {
    if (hashes.length === 0) return [];
    const rows = new Map((await this.rows(`SELECT ${TX_SELECT} FROM explorer.transactions WHERE hash = ANY($1::text[])`, [hashes])).map((r) => [r.hash as string, txFrom(r)]));
    return hashes.map((h) => rows.get(h)).filter((r) => r !== undefined);
  }

  address(address: string): Promise<AddressRecord | undefined> {
    return this.one(`SELECT ${ADDRESS_SELECT} FROM explorer.addresses WHERE address = $1`, [address], addressFrom);
  }

  async addresses(sort: AddressSort, w: Window): Promise<Page<AddressRecord>> {
    const order = sort === 'tx_count' ? 'tx_count DESC, address DESC' : 'first_seen_ms DESC, address DESC';
    const rows = await this.rows(`SELECT ${ADDRESS_SELECT} FROM explorer.addresses ORDER BY ${order} LIMIT $1 OFFSET $2`, [w.limit, w.offset]);
    return { data: rows.map(addressFrom), total: await this.total('addresses') };
  }

  proposed(address: string): Promise<number> {
    return this.number('SELECT blocks_proposed FROM explorer.validators WHERE address = $1', [address]);
  }

  proposedTotal(): Promise<number> {
    return this.total('blocks_proposed');
  }

  async recentProposed(address: string, n: number): Promise<BlockRow[]> {
    return (await this.rows(`SELECT ${BLOCK_SELECT} FROM explorer.blocks WHERE proposer = $1 AND seq > 0 ORDER BY height DESC LIMIT $2`, [address, n])).map(blockFrom);
  }

  async did(did: string): Promise<DidRow | undefined> {
    const row = await this.one(`SELECT ${DID_SELECT} FROM explorer.dids WHERE did = $1`, [did], didFrom);
    return row && didRow(row);
  }

  didCredentials(did: string): Promise<number> {
    return this.number('SELECT count(*) FROM explorer.credentials WHERE issuer_did = $1 OR subject_did = $1', [did]);
  }

  async credentials(filter: CredentialFilter, w: Window): Promise<Page<CredentialRow>> {
    const page = async (where: string, params: unknown[], total: Promise<number> | (() => Promise<number>)) => {
      const n = params.length;
      const rows = await this.rows(`SELECT ${CREDENTIAL_SELECT} FROM explorer.credentials ${where} ORDER BY block_seq DESC, tx_index DESC, credential_id DESC LIMIT $${n + 1} OFFSET $${n + 2}`, [...params, w.limit, w.offset]);
      return { data: rows.map((r) => credentialRow(credentialFrom(r))), total: await (typeof total === 'function' ? total() : total) };
    };
    if ('did' in filter) return page('WHERE issuer_did = $1 OR subject_did = $1', [filter.did], () => this.didCredentials(filter.did));
    if ('issuer' in filter) return page('WHERE issuer_did = $1', [filter.issuer], () => this.number('SELECT credentials_issued FROM explorer.issuers WHERE issuer_did = $1', [filter.issuer]));
    if ('subject' in filter) return page('WHERE subject_did = $1', [filter.subject], () => this.number('SELECT count(*) FROM explorer.credentials WHERE subject_did = $1', [filter.subject]));
    if ('type' in filter) return page('WHERE credential_type = $1', [filter.type], () => this.total(`credentials_of_type:${filter.type}`));
    return page('', [], () => this.total('credentials'));
  }

  async credential(urn: string): Promise<CredentialRow | undefined> {
    const row = await this.one(`SELECT ${CREDENTIAL_SELECT} FROM explorer.credentials WHERE credential_id = $1`, [urn], credentialFrom);
    return row && credentialRow(row);
  }

  async issuers(w: Window): Promise<Page<IssuerStats>> {
    const rows = await this.rows(`SELECT ${ISSUER_SELECT} FROM explorer.issuers ORDER BY first_block_seq DESC, first_tx_index DESC, issuer_did DESC LIMIT $1 OFFSET $2`, [w.limit, w.offset]);
    return { data: rows.map((r) => issuerRow(issuerFrom(r))), total: await this.total('issuers') };
  }

  async issuer(did: string): Promise<IssuerStats | undefined> {
    const row = await this.one(`SELECT ${ISSUER_SELECT} FROM explorer.issuers WHERE issuer_did = $1`, [did], issuerFrom);
    return row && issuerRow(row);
  }

  async verifications(filter: VerificationFilter, w: Window): Promise<Page<VerificationRow>> {
    const where: string[] = [];
    const params: unknown[] = [];
    for (const [column, value] of [['status', filter.status], ['subject_did', filter.subject], ['requester_did', filter.requester]] as const) {
      if (value === undefined) continue;
      params.push(value);
      where.push(`${column} = $${params.length}`);
    }
    const clause = where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`;
    const n = params.length;
    const rows = await this.rows(`SELECT ${VERIFICATION_SELECT} FROM explorer.verification_requests ${clause} ORDER BY block_seq DESC, tx_index DESC, request_id DESC LIMIT $${n + 1} OFFSET $${n + 2}`, [...params, w.limit, w.offset]);
    // the whole list and one status have running totals; a DID's requests are few enough to count
    const onlyStatus = filter.subject === undefined && filter.requester === undefined;
    const total = onlyStatus ? await this.total(filter.status === undefined ? 'verifications' : `verifications_${filter.status}`) : await this.number(`SELECT count(*) FROM explorer.verification_requests ${clause}`, params);
    return { data: rows.map((r) => verificationRow(verificationFrom(r))), total };
  }

  async verification(id: string): Promise<VerificationRow | undefined> {
    const row = await this.one(`SELECT ${VERIFICATION_SELECT} FROM explorer.verification_requests WHERE request_id = $1`, [id], verificationFrom);
    return row && verificationRow(row);
  }

  async verificationTotals(): Promise<VerificationTotals> {
    const t = await this.totalsNamed(['verifications', 'verifications_pending', 'verifications_final', 'verifications_verified', 'verifications_expired']);
    return { total: t.verifications, pending: t.verifications_pending, final: t.verifications_final, verified: t.verifications_verified, expired: t.verifications_expired };
  }

  async totals(): Promise<NetworkTotals> {
    const t = await this.totalsNamed(['blocks', 'transactions', 'senders', 'addresses', 'dids', 'dids_active', 'credentials', 'credentials_active']);
    return { blocks: t.blocks, txs: t.transactions, senders: t.senders, addresses: t.addresses, dids: t.dids, dids_active: t.dids_active, credentials: t.credentials, credentials_active: t.credentials_active };
  }

  private async totalsNamed<N extends string>(names: readonly N[]): Promise<Record<N, number>> {
    const rows = await this.rows('SELECT name, value FROM explorer.totals WHERE name = ANY($1::text[])', [names]);
    const found = new Map(rows.map((r) => [r.name as string, Number(r.value)]));
    return Object.fromEntries(names.map((n) => [n, found.get(n) ?? 0])) as Record<N, number>;
  }

  async chart(metric: ChartMetric, start: number, end: number, bucketMs: number): Promise<Map<number, number>> {
    const [table, column] = { blocks: ['explorer.blocks', 'timestamp_ms'], txs: ['explorer.transactions', 'timestamp_ms'], dids: ['explorer.dids', 'created_ms'] }[metric];
    const rows = await this.rows(`SELECT $1::bigint + (${column} - $1::bigint) / $3::bigint * $3::bigint AS bucket, count(*) AS n FROM ${table} WHERE ${column} >= $1 AND ${column} < $2 GROUP BY 1`, [start, end, bucketMs]);
    return new Map(rows.map((r) => [Number(r.bucket), Number(r.n)]));
  }
}

/**
 * What the writer indexed in seqs [from, to), block by block, read back for the WebSocket feed of
 * an instance that does not write. A request changed in several blocks of one batch shows once,
 * as the batch left it.
 */
export async function indexedSince(db: SqlDatabase, from: number, to: number): Promise<Indexed[]> {
  const q = async (text: string) => (await db.query<Raw>(text, [from, to])).rows;
  const [blocks, txs, dids, credentials, verifications] = await Promise.all([
    q(`SELECT seq, ${BLOCK_SELECT} FROM explorer.blocks WHERE seq >= $1 AND seq < $2 ORDER BY seq`),
    q(`SELECT ${TX_SELECT} FROM explorer.transactions WHERE block_seq >= $1 AND block_seq < $2 ORDER BY block_seq, tx_index`),
    q(`SELECT ${DID_SELECT} FROM explorer.dids WHERE block_seq >= $1 AND block_seq < $2 ORDER BY block_seq, tx_index`),
    q(`SELECT ${CREDENTIAL_SELECT} FROM explorer.credentials WHERE block_seq >= $1 AND block_seq < $2 ORDER BY block_seq, tx_index`),
    q(`SELECT ${VERIFICATION_SELECT} FROM explorer.verification_requests WHERE changed_seq >= $1 AND changed_seq < $2 ORDER BY changed_seq, block_seq, tx_index`),
  ]);
  const bySeq = new Map<number, Indexed>(blocks.map((b) => [Number(b.seq), { block: blockFrom(b), txs: [], dids: [], credentials: [], verifications: [] }]));
  for (const t of txs) bySeq.get(Number(t.block_seq))?.txs.push(txFrom(t));
  for (const d of dids) bySeq.get(Number(d.block_seq))?.dids.push(didRow(didFrom(d)));
  for (const c of credentials) bySeq.get(Number(c.block_seq))?.credentials.push(credentialRow(credentialFrom(c)));
  for (const v of verifications) bySeq.get(Number(v.changed_seq))?.verifications.push(verificationRow(verificationFrom(v)));
  return [...bySeq.values()];
}
