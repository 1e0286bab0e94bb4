import { LedgerError } from '../../node/errors.js';
import { toHex } from '../../node/protocol/bytes.js';
import type { CredentialRecord } from '../../node/protocol/credential-records.js';
import { didForIdentifier } from '../../node/protocol/did.js';
import type { ReceiptEvent } from '../../node/protocol/receipt.js';
import type { Transaction } from '../../node/protocol/transaction.js';
import type { CredentialRow, DidRow, IssuerStats, TxRow, VerificationRow } from './rows.js';

/**
 * The rows chain events make, built here once for every index store: pure functions of the event,
 * its transaction and that transaction's row. Each store adds its own fields (a LevelDB position,
 * SQL's block_seq and tx_index) and writes them its own way.
 */

type EventOf<T extends ReceiptEvent['type']> = Extract<ReceiptEvent, { type: T }>;

/** The DID an address holds from a successful DidCreate it sent, else null. */
export function senderDid(network: string, tx: Transaction, row: TxRow, address: string): string | null {
  return tx.payload.kind === 'DidCreate' && address === row.sender && row.status === 'success' ? `did:ledger:${network}:${address}` : null;
}

export function didCreatedRow(e: EventOf<'DidCreated'>, tx: Transaction, row: TxRow, at: string): DidRow {
  return {
    did: e.did,
    controller: e.did,
    public_key: toHex(tx.senderPubkey),
    active: true,
    created_ms: row.timestamp_ms,
    updated_ms: row.timestamp_ms,
    tx_hash: row.hash,
    created_at: at,
  };
}

/** The change a DID event makes to its row, or undefined for events that leave DIDs alone. */
export function didChange(e: ReceiptEvent, row: TxRow): Partial<DidRow> | undefined {
  if (e.type === 'DidDeactivated') return { active: false, public_key: null, updated_ms: row.timestamp_ms };
  if (e.type === 'DidRecovered') return { public_key: e.new_public_key, updated_ms: row.timestamp_ms };
  return undefined;
}

/** A registered credential's row, from its record in committed state (its fields never change after). */
export function credentialRegisteredRow(network: string, urn: string, record: CredentialRecord | undefined, row: TxRow): CredentialRow {
  // the event and the state come from the same committed block: a missing record is a bug
  if (!record) throw new LedgerError('EXPLORER_CREDENTIAL_MISSING', `credential ${urn} was registered, but chain state has no record of it`, 'internal', { credential_id: urn });
  return {
    credential_id: urn,
    issuer_did: didForIdentifier(network, record.issuer),
    subject_did: didForIdentifier(network, record.subject),
    credential_type: record.credentialType,
    hash: toHex(record.hash),
    issued_ms: row.timestamp_ms,
    revoked: false,
    revoked_ms: null,
    tx_hash: toHex(record.txHash),
  };
}

export function credentialRevoked(row: TxRow): Pick<CredentialRow, 'revoked' | 'revoked_ms'> {
  return { revoked: true, revoked_ms: row.timestamp_ms };
}

/** An issuer's stats once it registered one more credential (`prev` undefined: its first). */
export function issuerRegistered(issuer: string, prev: IssuerStats | undefined, row: TxRow): IssuerStats {
  return {
    issuer_did: issuer,
    credentials_issued: (prev?.credentials_issued ?? 0) + 1,
    active_credentials: (prev?.active_credentials ?? 0) + 1,
    revoked_credentials: prev?.revoked_credentials ?? 0,
    first_issued: prev?.first_issued ?? row.timestamp_ms,
    last_issued: row.timestamp_ms,
  };
}

export function issuerRevoked(stats: IssuerStats): Pick<IssuerStats, 'active_credentials' | 'revoked_credentials'> {
  return { active_credentials: stats.active_credentials - 1, revoked_credentials: stats.revoked_credentials + 1 };
}

/** A new request's row; undefined when the transaction is not the request (the event alone lacks its claims). */
export function verificationRequestedRow(e: EventOf<'VerificationRequested'>, tx: Transaction, row: TxRow): VerificationRow | undefined {
  if (tx.payload.kind !== 'VerificationRequest') return undefined;
  const r = tx.payload.request;
  return {
    request_id: e.request_id,
    requester_did: e.requester,
    subject_did: e.subject,
    purpose: r.requester.purpose,
    claim_types: r.requiredClaims.map((c) => c.type),
    fee: r.fee,
    status: 'pending',
    verified: null,
    answers: 0,
    request_height: row.block_height,
    deadline_height: e.deadline_height,
    final_height: null,
    consensus_round: null,
    request_ms: row.timestamp_ms,
    final_ms: null,
    tx_hash: row.hash,
  };
}

export function verificationFinalized(e: EventOf<'VerificationFinalized'>, row: TxRow): Partial<VerificationRow> {
  return { verified: e.verified, final_height: row.block_height, consensus_round: e.consensus_round, final_ms: row.timestamp_ms };
}
