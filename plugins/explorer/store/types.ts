import type { CommittedBlock } from '../../../node/chain/app.js';
import type { AddressRecord, BlockRow, CredentialRow, DidRow, Indexed, IssuerStats, TxRow, VerificationRow, VerificationStatus } from '../rows.js';

/**
 * What the routes read and the indexer writes, whatever holds the index: the node's LevelDB
 * (store/level/) or SQL on PGlite or Postgres (store/sql/). Every list is newest first and
 * answers the page asked for with the total of the whole list.
 */

export interface Window {
  offset: number;
  limit: number;
}

export interface Page<T> {
  data: T[];
  total: number;
}

/** one filter at a time: the routes choose which */
export type TxFilter = { address: string } | { type: string } | Record<string, never>;
export type CredentialFilter = { did: string } | { issuer: string } | { subject: string } | { type: string } | Record<string, never>;
export interface VerificationFilter {
  status?: VerificationStatus;
  subject?: string;
  requester?: string;
}

export type AddressSort = 'tx_count' | 'first_seen';
export type ChartMetric = 'blocks' | 'txs' | 'dids';

export interface NetworkTotals {
  blocks: number;
  txs: number;
  senders: number;
  addresses: number;
  dids: number;
  dids_active: number;
  credentials: number;
  credentials_active: number;
}

export interface VerificationTotals {
  total: number;
  pending: number;
  final: number;
  verified: number;
  expired: number;
}

export interface ExplorerReader {
  /** `leveldb`, `pglite` or `postgres`, for health and logs */
  readonly engine: string;
  /** the next seq to index, as stored */
  cursor(): Promise<number>;

  blocks(w: Window): Promise<Page<BlockRow>>;
  latestBlock(): Promise<BlockRow | undefined>;
  block(height: number): Promise<BlockRow | undefined>;
  blockByHash(hash: string): Promise<BlockRow | undefined>;

  txs(filter: TxFilter, w: Window): Promise<Page<TxRow>>;
  /** block time from ≤ t ≤ to, newest first; `keep` narrows to a type or an address */
  txsInWindow(from: number, to: number, keep: { type?: string; address?: string }, w: Window): Promise<Page<TxRow>>;
  tx(hash: string): Promise<TxRow | undefined>;
  /** the rows of these hashes that are indexed, in the order given */
  txsByHash(hashes: readonly string[]): Promise<TxRow[]>;

  address(address: string): Promise<AddressRecord | undefined>;
  addresses(sort: AddressSort, w: Window): Promise<Page<AddressRecord>>;

  /** blocks proposed by this address (genesis has no proposer) */
  proposed(address: string): Promise<number>;
  proposedTotal(): Promise<number>;
  recentProposed(address: string, n: number): Promise<BlockRow[]>;

  did(did: string): Promise<DidRow | undefined>;
  /** credentials where the DID is issuer or subject */
  didCredentials(did: string): Promise<number>;
  credentials(filter: CredentialFilter, w: Window): Promise<Page<CredentialRow>>;
  credential(urn: string): Promise<CredentialRow | undefined>;
  issuers(w: Window): Promise<Page<IssuerStats>>;
  issuer(did: string): Promise<IssuerStats | undefined>;

  verifications(filter: VerificationFilter, w: Window): Promise<Page<VerificationRow>>;
  verification(id: string): Promise<VerificationRow | undefined>;
  verificationTotals(): Promise<VerificationTotals>;

  totals(): Promise<NetworkTotals>;
  /** items with start ≤ time < end by bucket start (start + k·bucketMs); empty buckets absent */
  chart(metric: ChartMetric, start: number, end: number, bucketMs: number): Promise<Map<number, number>>;
}

/** Writes committed blocks into the index; one writer per index. */
export interface IndexWriter {
  /** the next seq to index */
  cursor(): Promise<number>;
  /** indexes consecutive blocks from the cursor in one atomic write; the rows for the feed */
  applyAll(blocks: readonly CommittedBlock[]): Promise<Indexed[]>;
}
