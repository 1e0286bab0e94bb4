import type { BinarySublevel } from '../../../../node/state/db.js';
import type { AddressRecord, BlockRow, CredentialRow, DidRow, IssuerStats, TxRow, VerificationRow } from '../../rows.js';
import type { AddressSort, ChartMetric, CredentialFilter, ExplorerReader, NetworkTotals, Page, TxFilter, VerificationFilter, VerificationTotals, Window } from '../types.js';
import { getJson, getNumber, listNewest, pad, scan } from './layout.js';
import { verificationRow } from './verification.js';

/** The index as the LevelDB indexer (indexer.ts) lays it out in the explorer's namespace. */
export class LevelReader implements ExplorerReader {
  readonly engine = 'leveldb';

  constructor(private readonly store: BinarySublevel) {}

  private count(name: string): Promise<number> {
    return getNumber(this.store, `count:${name}`);
  }

  private async rows<T>(keys: readonly string[], prefix: string): Promise<T[]> {
    return (await Promise.all(keys.map((k) => getJson<T>(this.store, `${prefix}${k}`)))).filter((r): r is Awaited<T> & {} => r !== undefined);
  }

  /** A page of the rows an index's entries point to, with that index's stored total. */
  private async list<T>(prefix: string, countName: string, rowPrefix: string, w: Window): Promise<Page<T>> {
    const ids = await listNewest(this.store, prefix, w.offset, w.limit);
    return { data: await this.rows<T>(ids, rowPrefix), total: await this.count(countName) };
  }

  /** Rows through an index, newest first, kept by `keep`; `total` counts the matches. */
  private async filtered<T>(gte: string, lt: string, rowPrefix: string, keep: (row: T) => boolean, w: Window): Promise<Page<T>> {
    const data: T[] = [];
    let total = 0;
    for await (const [, id] of scan(this.store, gte, lt, true)) {
      const row = await getJson<T>(this.store, `${rowPrefix}${id}`);
      if (!row || !keep(row)) continue;
      if (total++ >= w.offset && data.length < w.limit) data.push(row);
    }
    return { data, total };
  }

  cursor(): Promise<number> {
    return getNumber(this.store, 'cursor');
  }

  async blocks(w: Window): Promise<Page<BlockRow>> {
    const values = await listNewest(this.store, 'block:', w.offset, w.limit);
    return { data: values.map((v) => JSON.parse(v) as BlockRow), total: await this.count('blocks') };
  }

  async latestBlock(): Promise<BlockRow | undefined> {
    const [latest] = await listNewest(this.store, 'block:', 0, 1);
    return latest === undefined ? undefined : (JSON.parse(latest) as BlockRow);
  }

  block(height: number): Promise<BlockRow | undefined> {
    return getJson<BlockRow>(this.store, `block:${pad(height, 16)}`);
  }

  async blockByHash(hash: string): Promise<BlockRow | undefined> {
    const height = await getJson<string>(this.store, `blockhash:${hash}`);
    return height === undefined ? undefined : this.block(Number(height));
  }

  txs(filter: TxFilter, w: Window): Promise<Page<TxRow>> {
    if ('address' in filter) return this.list(`txaddr:${filter.address}:`, `txaddr:${filter.address}`, 'tx:', w);
    if ('type' in filter) return this.list(`txtype:${filter.type}:`, `txtype:${filter.type}`, 'tx:', w);
    return this.list('txseq:', 'txs', 'tx:', w);
  }

  txsInWindow(from: number, to: number, keep: { type?: string; address?: string }, w: Window): Promise<Page<TxRow>> {
    const { type, address } = keep;
    return this.filtered<TxRow>(`txtime:${pad(from, 16)}`, `txtime:${pad(to + 1, 16)}`, 'tx:', (row) => (type === undefined || row.type === type) && (address === undefined || row.sender === address || row.recipient === address), w);
  }

  tx(hash: string): Promise<TxRow | undefined> {
    return getJson<TxRow>(this.store, `tx:${hash}`);
  }

  txsByHash(hashes: readonly string[]): Promise<TxRow[]> {
    return this.rows<TxRow>(hashes, 'tx:');
  }

  address(address: string): Promise<AddressRecord | undefined> {
    return getJson<AddressRecord>(this.store, `addr:${address}`);
  }

  async addresses(sort: AddressSort, w: Window): Promise<Page<AddressRecord>> {
    const addresses = await listNewest(this.store, sort === 'tx_count' ? 'addrcount:' : 'addrfirst:', w.offset, w.limit);
    return { data: await this.rows<AddressRecord>(addresses, 'addr:'), total: await this.count('addresses') };
  }

  proposed(address: string): Promise<number> {
    return this.count(`proposed:${address}`);
  }

  proposedTotal(): Promise<number> {
    return this.count('proposed');
  }

  async recentProposed(address: string, n: number): Promise<BlockRow[]> {
    const heights = await listNewest(this.store, `proposed:${address}:`, 0, n);
    return this.rows<BlockRow>(heights.map((h) => pad(Number(h), 16)), 'block:');
  }

  did(did: string): Promise<DidRow | undefined> {
    return getJson<DidRow>(this.store, `did:${did}`);
  }

  didCredentials(did: string): Promise<number> {
    return this.count(`creddid:${did}`);
  }

  credentials(filter: CredentialFilter, w: Window): Promise<Page<CredentialRow>> {
    const [name, value] = 'did' in filter ? ['creddid', filter.did] : 'issuer' in filter ? ['credissuer', filter.issuer] : 'subject' in filter ? ['credsubject', filter.subject] : 'type' in filter ? ['credtype', filter.type] : ['credseq', undefined];
    return value === undefined ? this.list('credseq:', 'credentials', 'cred:', w) : this.list(`${name}:${value}:`, `${name}:${value}`, 'cred:', w);
  }

  credential(urn: string): Promise<CredentialRow | undefined> {
    return getJson<CredentialRow>(this.store, `cred:${urn}`);
  }

  issuers(w: Window): Promise<Page<IssuerStats>> {
    return this.list('issuerseq:', 'issuers', 'issuer:', w);
  }

  issuer(did: string): Promise<IssuerStats | undefined> {
    return getJson<IssuerStats>(this.store, `issuer:${did}`);
  }

  async verifications(filter: VerificationFilter, w: Window): Promise<Page<VerificationRow>> {
    const { status, subject, requester } = filter;
    const given = [status, subject, requester].filter((v) => v !== undefined).length;
    let page: Page<VerificationRow>;
    if (given > 1) {
      // with two filters one is a DID: its index holds few rows
      const prefix = subject !== undefined ? `versubject:${subject}:` : `verrequester:${requester}:`;
      page = await this.filtered<VerificationRow>(prefix, `${prefix}\xff`, 'ver:', (v) => (status === undefined || v.status === status) && (subject === undefined || v.subject_did === subject) && (requester === undefined || v.requester_did === requester), w);
    } else {
      const name = subject !== undefined ? `versubject:${subject}` : requester !== undefined ? `verrequester:${requester}` : status !== undefined ? `verstatus:${status}` : undefined;
      page = name === undefined ? await this.list('verseq:', 'verifications', 'ver:', w) : await this.list(`${name}:`, name, 'ver:', w);
    }
    return { data: page.data.map(verificationRow), total: page.total };
  }

  async verification(id: string): Promise<VerificationRow | undefined> {
    const row = await getJson<VerificationRow>(this.store, `ver:${id}`);
    return row && verificationRow(row);
  }

  async verificationTotals(): Promise<VerificationTotals> {
    const [total, pending, final, verified, expired] = await Promise.all(['verifications', 'verstatus:pending', 'verstatus:final', 'verified', 'verstatus:expired'].map((n) => this.count(n)));
    return { total: total!, pending: pending!, final: final!, verified: verified!, expired: expired! };
  }

  async totals(): Promise<NetworkTotals> {
    const names = ['blocks', 'txs', 'senders', 'addresses', 'dids', 'dids_active', 'credentials', 'credentials_active'] as const;
    const values = await Promise.all(names.map((n) => this.count(n)));
    return Object.fromEntries(names.map((n, i) => [n, values[i]!])) as unknown as NetworkTotals;
  }

  async chart(metric: ChartMetric, start: number, end: number, bucketMs: number): Promise<Map<number, number>> {
    const prefix = { blocks: 'blocktime', txs: 'txtime', dids: 'didtime' }[metric];
    const counts = new Map<number, number>();
    for await (const [k] of scan(this.store, `${prefix}:${pad(start, 16)}`, `${prefix}:${pad(end, 16)}`)) {
      const t = Number(k.slice(prefix.length + 1, prefix.length + 17));
      const bucket = start + Math.floor((t - start) / bucketMs) * bucketMs;
      counts.set(bucket, (counts.get(bucket) ?? 0) + 1);
    }
    return counts;
  }
}
