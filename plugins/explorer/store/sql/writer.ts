import type { CommittedBlock } from '../../../../node/chain/app.js';
import { LedgerError } from '../../../../node/errors.js';
import { toHex } from '../../../../node/protocol/bytes.js';
import { parseCredentialId } from '../../../../node/protocol/credential-id.js';
import type { CredentialRecord } from '../../../../node/protocol/credential-records.js';
import { didForIdentifier } from '../../../../node/protocol/did.js';
import { stringifyJson } from '../../../../node/protocol/json.js';
import type { Receipt } from '../../../../node/protocol/receipt.js';
import type { Transaction } from '../../../../node/protocol/transaction.js';
import type { SqlClient, SqlDatabase } from '../../../common/sql/types.js';
import { addressesOf, blockRow, txRow, type CredentialRow, type DidRow, type Indexed, type TxRow, type VerificationRow, type VerificationStatus } from '../../rows.js';
import type { IndexWriter } from '../types.js';
import { bulkInsert, replaceAll } from './bulk.js';
import {
  ADDRESS_COLUMNS,
  ADDRESS_TX_COLUMNS,
  BLOCK_COLUMNS,
  CREDENTIAL_COLUMNS,
  CREDENTIAL_SELECT,
  credentialFrom,
  credentialRow,
  credentialValues,
  DID_COLUMNS,
  DID_SELECT,
  didFrom,
  didRow,
  didValues,
  ISSUER_COLUMNS,
  ISSUER_SELECT,
  issuerFrom,
  issuerValues,
  TX_COLUMNS,
  VALIDATOR_COLUMNS,
  VERIFICATION_COLUMNS,
  VERIFICATION_SELECT,
  verificationFrom,
  verificationRow,
  verificationValues,
  type CredentialState,
  type DidState,
  type IssuerState,
  type VerificationState,
} from './tables.js';

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
 * written at the end. Verification expiry has no event: as execution does, a request still pending
 * at its deadline height expires after that block's transactions; the writer keeps the pending
 * deadlines in memory, read once when it starts.
 */

export interface SqlIndexerDeps {
  db: SqlDatabase;
  network: string;
  credential(id: Uint8Array): Promise<CredentialRecord | undefined>;
  now?: () => Date;
}

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
        const batch = new BatchWrite(tx, this.d, dues);
        const indexed: Indexed[] = [];
        for (const c of blocks) indexed.push(await batch.block(c, now().toISOString()));
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

interface AddressChange {
  first: number;
  last: number;
  txs: number;
  sent: number;
  did: string | null;
  at: string;
}

/** One batch's rows and changes, written by write(). */
class BatchWrite {
  private readonly blocks: unknown[][] = [];
  private readonly txs: unknown[][] = [];
  private readonly addressTxs: unknown[][] = [];
  private readonly addresses = new Map<string, AddressChange>();
  private readonly validators = new Map<string, { n: number; last: number }>();
  private readonly totals = new Map<string, number>();
  /** rows read or created in this batch (undefined: absent), and which ones changed */
  private readonly dids = new Map<string, DidState | undefined>();
  private readonly credentials = new Map<string, CredentialState | undefined>();
  private readonly issuers = new Map<string, IssuerState | undefined>();
  private readonly verifications = new Map<string, VerificationState | undefined>();
  private readonly dirty = { dids: new Set<string>(), credentials: new Set<string>(), issuers: new Set<string>(), verifications: new Set<string>() };

  constructor(
    private readonly tx: SqlClient,
    private readonly d: SqlIndexerDeps,
    private readonly dues: Map<string, number>,
  ) {}

  private add(name: string, delta = 1): void {
    this.totals.set(name, (this.totals.get(name) ?? 0) + delta);
  }

  async block(c: CommittedBlock, at: string): Promise<Indexed> {
    const block = blockRow(c.block, at);
    const h = c.block.header;
    this.blocks.push([h.height, c.seq, block.hash, block.parent_hash, block.proposer, h.timestampMs, block.tx_count, h.round, block.state_root, at]);
    this.add('blocks');
    if (c.seq > 0) {
      const v = this.validators.get(block.proposer) ?? { n: 0, last: 0 };
      this.validators.set(block.proposer, { n: v.n + 1, last: h.height });
      this.add('blocks_proposed');
    }
    const txs: TxRow[] = [];
    const dids: DidRow[] = [];
    const credentials: CredentialRow[] = [];
    const verifications = new Map<string, VerificationRow>();
    for (const [i, tx] of c.block.transactions.entries()) {
      const receipt = c.receipts[i]!;
      const row = txRow(tx, receipt, c.block, at);
      txs.push(row);
      this.txs.push([row.hash, row.block_height, c.seq, row.tx_index, row.sender, row.type, row.recipient, row.amount, row.fee, row.status, row.error_reason ?? null, h.timestampMs, stringifyJson(row.raw_payload), at]);
      this.add('transactions');
      this.add(`transactions_of_type:${row.type}`);
      for (const a of addressesOf(row)) {
        this.addressTxs.push([a, c.seq, row.tx_index, row.hash]);
        const prev = this.addresses.get(a);
        const did = tx.payload.kind === 'DidCreate' && a === row.sender && row.status === 'success' ? `did:ledger:${this.d.network}:${a}` : null;
        this.addresses.set(a, {
          first: prev?.first ?? h.timestampMs,
          last: h.timestampMs,
          txs: (prev?.txs ?? 0) + 1,
          sent: (prev?.sent ?? 0) + (a === row.sender ? 1 : 0),
          did: prev?.did ?? did,
          at,
        });
      }
      const s: Source = { seq: c.seq, tx, receipt, row, at };
      await this.identity(s, dids, credentials);
      await this.verification(s, verifications);
    }
    for (const [id, deadline] of [...this.dues]) {
      if (deadline <= h.height) await this.changeVerification(id, c.seq, verifications, () => ({}), 'expired');
    }
    return { block, txs, dids, credentials, verifications: [...verifications.values()] };
  }

  private async identity(s: Source, dids: DidRow[], credentials: CredentialRow[]): Promise<void> {
    for (const e of s.receipt.events) {
      switch (e.type) {
        case 'DidCreated': {
          const row: DidState = {
            did: e.did,
            controller: e.did,
            public_key: toHex(s.tx.senderPubkey),
            active: true,
            created_ms: s.row.timestamp_ms,
            updated_ms: s.row.timestamp_ms,
            tx_hash: s.row.hash,
            created_at: s.at,
            block_seq: s.seq,
            tx_index: s.row.tx_index,
          };
          this.dids.set(e.did, row);
          this.dirty.dids.add(e.did);
          dids.push(didRow(row));
          this.add('dids');
          this.add('dids_active');
          break;
        }
        case 'DidDeactivated':
          await this.changeDid(e.did, s, { active: false, public_key: null });
          this.add('dids_active', -1);
          break;
        case 'DidRecovered':
          await this.changeDid(e.did, s, { public_key: e.new_public_key });
          break;
        case 'CredentialRegistered':
          credentials.push(await this.registered(e.id, s));
          break;
        case 'CredentialRevoked':
          await this.revoked(e.id, s);
          break;
        default:
          break;
      }
    }
  }

  private async changeDid(did: string, s: Source, change: Partial<DidRow>): Promise<void> {
    const row = await this.load(this.dids, did, 'SELECT ' + DID_SELECT + ' FROM explorer.dids WHERE did = $1', didFrom);
    if (!row) return;
    Object.assign(row, change, { updated_ms: s.row.timestamp_ms });
    this.dirty.dids.add(did);
  }

  private async registered(urn: string, s: Source): Promise<CredentialRow> {
    const c = await this.d.credential(parseCredentialId(urn));
    if (!c) throw new Error(`credential ${urn} was registered, but chain state has no record of it`);
    const issuer = didForIdentifier(this.d.network, c.issuer);
    const row: CredentialState = {
      credential_id: urn,
      issuer_did: issuer,
      subject_did: didForIdentifier(this.d.network, c.subject),
      credential_type: c.credentialType,
      hash: toHex(c.hash),
      issued_ms: s.row.timestamp_ms,
      revoked: false,
      revoked_ms: null,
      tx_hash: toHex(c.txHash),
      block_seq: s.seq,
      tx_index: s.row.tx_index,
    };
    this.credentials.set(urn, row);
    this.dirty.credentials.add(urn);
    this.add('credentials');
    this.add('credentials_active');
    this.add(`credentials_of_type:${c.credentialType}`);
    const stats = await this.load(this.issuers, issuer, 'SELECT ' + ISSUER_SELECT + ' FROM explorer.issuers WHERE issuer_did = $1', issuerFrom);
    if (!stats) this.add('issuers');
    this.issuers.set(issuer, {
      issuer_did: issuer,
      credentials_issued: (stats?.credentials_issued ?? 0) + 1,
      active_credentials: (stats?.active_credentials ?? 0) + 1,
      revoked_credentials: stats?.revoked_credentials ?? 0,
      first_issued: stats?.first_issued ?? s.row.timestamp_ms,
      last_issued: s.row.timestamp_ms,
      first_block_seq: stats?.first_block_seq ?? s.seq,
      first_tx_index: stats?.first_tx_index ?? s.row.tx_index,
    });
    this.dirty.issuers.add(issuer);
    return credentialRow(row);
  }

  private async revoked(urn: string, s: Source): Promise<void> {
    const row = await this.load(this.credentials, urn, 'SELECT ' + CREDENTIAL_SELECT + ' FROM explorer.credentials WHERE credential_id = $1', credentialFrom);
    if (!row) return;
    Object.assign(row, { revoked: true, revoked_ms: s.row.timestamp_ms });
    this.dirty.credentials.add(urn);
    this.add('credentials_active', -1);
    const stats = await this.load(this.issuers, row.issuer_did, 'SELECT ' + ISSUER_SELECT + ' FROM explorer.issuers WHERE issuer_did = $1', issuerFrom);
    if (!stats) return;
    stats.active_credentials -= 1;
    stats.revoked_credentials += 1;
    this.dirty.issuers.add(row.issuer_did);
  }

  private async verification(s: Source, changed: Map<string, VerificationRow>): Promise<void> {
    for (const e of s.receipt.events) {
      switch (e.type) {
        case 'VerificationRequested': {
          if (s.tx.payload.kind !== 'VerificationRequest') break;
          const r = s.tx.payload.request;
          const row: VerificationState = {
            request_id: e.request_id,
            requester_did: e.requester,
            subject_did: e.subject,
            purpose: r.requester.purpose,
            claim_types: r.requiredClaims.map((c) => c.type),
            fee: r.fee,
            status: 'pending',
            verified: null,
            answers: 0,
            request_height: s.row.block_height,
            deadline_height: e.deadline_height,
            final_height: null,
            consensus_round: null,
            request_ms: s.row.timestamp_ms,
            final_ms: null,
            tx_hash: s.row.hash,
            block_seq: s.seq,
            tx_index: s.row.tx_index,
            changed_seq: s.seq,
          };
          this.verifications.set(e.request_id, row);
          this.dirty.verifications.add(e.request_id);
          this.add('verifications');
          this.add('verifications_pending');
          this.dues.set(e.request_id, e.deadline_height);
          changed.set(e.request_id, verificationRow(row));
          break;
        }
        case 'VerificationAnswered':
          await this.changeVerification(e.request_id, s.seq, changed, () => ({ answers: e.answers }));
          break;
        case 'VerificationFinalized': {
          const row = await this.changeVerification(e.request_id, s.seq, changed, () => ({ verified: e.verified, final_height: s.row.block_height, consensus_round: e.consensus_round, final_ms: s.row.timestamp_ms }), 'final');
          if (row && e.verified) this.add('verifications_verified');
          break;
        }
        default:
          break;
      }
    }
  }

  /** Applies `change` to a pending request; with `status`, moves its count and drops its deadline. */
  private async changeVerification(id: string, seq: number, changed: Map<string, VerificationRow>, change: () => Partial<VerificationRow>, status?: VerificationStatus): Promise<VerificationState | undefined> {
    const row = await this.load(this.verifications, id, 'SELECT ' + VERIFICATION_SELECT + ' FROM explorer.verification_requests WHERE request_id = $1', verificationFrom);
    if (!row || row.status !== 'pending') return undefined;
    Object.assign(row, change(), { changed_seq: seq });
    if (status && status !== row.status) {
      this.add(`verifications_${row.status}`, -1);
      this.add(`verifications_${status}`);
      row.status = status;
      this.dues.delete(id);
    }
    this.dirty.verifications.add(id);
    changed.set(id, verificationRow(row));
    return row;
  }

  /** The row as this batch has it, read from the table the first time. */
  private async load<T>(cache: Map<string, T | undefined>, key: string, select: string, from: (r: Record<string, unknown>) => T): Promise<T | undefined> {
    if (cache.has(key)) return cache.get(key);
    const { rows } = await this.tx.query(select, [key]);
    const row = rows[0] === undefined ? undefined : from(rows[0]);
    cache.set(key, row);
    return row;
  }

  async write(): Promise<void> {
    const tx = this.tx;
    await bulkInsert(tx, { table: 'explorer.blocks', columns: BLOCK_COLUMNS }, this.blocks);
    await bulkInsert(tx, { table: 'explorer.transactions', columns: TX_COLUMNS }, this.txs);
    await bulkInsert(tx, { table: 'explorer.address_transactions', columns: ADDRESS_TX_COLUMNS }, this.addressTxs);
    const changes = [...this.addresses];
    const after = await bulkInsert<{ address: string; tx_count: number; sent_count: number }>(
      tx,
      {
        table: 'explorer.addresses',
        columns: ADDRESS_COLUMNS,
        conflict: { key: 'address', update: 'last_seen_ms = excluded.last_seen_ms, tx_count = t.tx_count + excluded.tx_count, sent_count = t.sent_count + excluded.sent_count, did = coalesce(t.did, excluded.did), updated_at = excluded.updated_at' },
        returning: 'address, tx_count, sent_count',
      },
      changes.map(([a, c]) => [a, c.first, c.last, c.txs, c.sent, c.did, c.at, c.at]),
    );
    // the counts after the write equal this batch's own: the address (or its first send) is new
    for (const r of after) {
      const c = this.addresses.get(r.address)!;
      if (Number(r.tx_count) === c.txs) this.add('addresses');
      if (c.sent > 0 && Number(r.sent_count) === c.sent) this.add('senders');
    }
    await bulkInsert(
      tx,
      { table: 'explorer.validators', columns: VALIDATOR_COLUMNS, conflict: { key: 'address', update: 'blocks_proposed = t.blocks_proposed + excluded.blocks_proposed, last_proposed_height = excluded.last_proposed_height' } },
      [...this.validators].map(([a, v]) => [a, v.n, v.last]),
    );
    const changed = <T>(cache: Map<string, T | undefined>, keys: Set<string>, values: (row: T) => unknown[]) => [...keys].map((k) => values(cache.get(k)!));
    await bulkInsert(tx, { table: 'explorer.dids', columns: DID_COLUMNS, conflict: { key: 'did', update: replaceAll(DID_COLUMNS, 'did') } }, changed(this.dids, this.dirty.dids, didValues));
    await bulkInsert(tx, { table: 'explorer.credentials', columns: CREDENTIAL_COLUMNS, conflict: { key: 'credential_id', update: replaceAll(CREDENTIAL_COLUMNS, 'credential_id') } }, changed(this.credentials, this.dirty.credentials, credentialValues));
    await bulkInsert(tx, { table: 'explorer.issuers', columns: ISSUER_COLUMNS, conflict: { key: 'issuer_did', update: replaceAll(ISSUER_COLUMNS, 'issuer_did') } }, changed(this.issuers, this.dirty.issuers, issuerValues));
    await bulkInsert(
      tx,
      { table: 'explorer.verification_requests', columns: VERIFICATION_COLUMNS, conflict: { key: 'request_id', update: replaceAll(VERIFICATION_COLUMNS, 'request_id') } },
      changed(this.verifications, this.dirty.verifications, verificationValues),
    );
    const totals = [...this.totals].filter(([, n]) => n !== 0);
    await bulkInsert(
      tx,
      { table: 'explorer.totals', columns: [{ name: 'name', type: 'text' }, { name: 'value', type: 'bigint' }], conflict: { key: 'name', update: 'value = t.value + excluded.value' } },
      totals.map(([name, n]) => [name, n]),
    );
  }
}

interface Source {
  seq: number;
  tx: Transaction;
  receipt: Receipt;
  row: TxRow;
  at: string;
}
