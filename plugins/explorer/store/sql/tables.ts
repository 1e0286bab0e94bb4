import { parseJson } from '../../../../node/protocol/json.js';
import type { AddressRecord, BlockRow, CredentialRow, DidRow, IssuerStats, TxRow, VerificationRow, VerificationStatus } from '../../rows.js';
import type { Column } from './bulk.js';

/**
 * The explorer's tables (schema.ts) as the writer fills them and the reader reads them: the
 * columns in insert order, the select lists, and the mapping to the API's row shapes, whose
 * number-or-string choices (seed 002) are kept here.
 */

const col = (name: string, type: string, expr?: Column['expr']): Column => (expr ? { name, type, expr } : { name, type });

export const BLOCK_COLUMNS = [col('height', 'bigint'), col('seq', 'bigint'), col('hash', 'text'), col('parent_hash', 'text'), col('proposer', 'text'), col('timestamp_ms', 'bigint'), col('tx_count', 'integer'), col('round', 'bigint'), col('state_root', 'text'), col('created_at', 'timestamptz')];

export const TX_COLUMNS = [
  col('hash', 'text'),
  col('block_height', 'bigint'),
  col('block_seq', 'bigint'),
  col('tx_index', 'integer'),
  col('sender', 'text'),
  col('type', 'text'),
  col('recipient', 'text'),
  col('amount', 'numeric'),
  col('fee', 'numeric'),
  col('status', 'text'),
  col('error_reason', 'text'),
  col('timestamp_ms', 'bigint'),
  col('raw_payload', 'json'),
  col('created_at', 'timestamptz'),
];

export const ADDRESS_TX_COLUMNS = [col('address', 'text'), col('block_seq', 'bigint'), col('tx_index', 'integer'), col('tx_hash', 'text')];

export const ADDRESS_COLUMNS = [col('address', 'text'), col('first_seen_ms', 'bigint'), col('last_seen_ms', 'bigint'), col('tx_count', 'bigint'), col('sent_count', 'bigint'), col('did', 'text'), col('created_at', 'timestamptz'), col('updated_at', 'timestamptz')];

export const VALIDATOR_COLUMNS = [col('address', 'text'), col('blocks_proposed', 'bigint'), col('last_proposed_height', 'bigint')];

export const DID_COLUMNS = [col('did', 'text'), col('controller', 'text'), col('public_key', 'text'), col('active', 'boolean'), col('created_ms', 'bigint'), col('updated_ms', 'bigint'), col('tx_hash', 'text'), col('block_seq', 'bigint'), col('tx_index', 'integer'), col('created_at', 'timestamptz')];

export const CREDENTIAL_COLUMNS = [col('credential_id', 'text'), col('issuer_did', 'text'), col('subject_did', 'text'), col('credential_type', 'text'), col('hash', 'text'), col('issued_ms', 'bigint'), col('revoked', 'boolean'), col('revoked_ms', 'bigint'), col('tx_hash', 'text'), col('block_seq', 'bigint'), col('tx_index', 'integer')];

export const ISSUER_COLUMNS = [col('issuer_did', 'text'), col('credentials_issued', 'bigint'), col('active_credentials', 'bigint'), col('revoked_credentials', 'bigint'), col('first_issued_ms', 'bigint'), col('last_issued_ms', 'bigint'), col('first_block_seq', 'bigint'), col('first_tx_index', 'integer')];

export const VERIFICATION_COLUMNS = [
  col('request_id', 'text'),
  col('requester_did', 'text'),
  col('subject_did', 'text'),
  col('purpose', 'text'),
  // a text[] per row cannot travel inside an array parameter: it goes as JSON text
  col('claim_types', 'text', (v) => `ARRAY(SELECT json_array_elements_text(${v}::json))`),
  col('fee', 'numeric'),
  col('status', 'text'),
  col('verified', 'boolean'),
  col('answers', 'integer'),
  col('request_height', 'bigint'),
  col('deadline_height', 'bigint'),
  col('final_height', 'bigint'),
  col('consensus_round', 'bigint'),
  col('request_ms', 'bigint'),
  col('final_ms', 'bigint'),
  col('tx_hash', 'text'),
  col('block_seq', 'bigint'),
  col('tx_index', 'integer'),
  col('changed_seq', 'bigint'),
];

/** A place in the chain: the transaction's (or the block's) seq and index. */
export interface Position {
  block_seq: number;
  tx_index: number;
}

export type DidState = DidRow & Position;
export type CredentialState = CredentialRow & Position;
export type IssuerState = IssuerStats & { first_block_seq: number; first_tx_index: number };
export type VerificationState = VerificationRow & Position & { changed_seq: number };

const iso = (v: unknown): string => (v instanceof Date ? v : new Date(v as string)).toISOString();
const str = (v: unknown): string => String(v);
const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
type Raw = Record<string, unknown>;

/** numeric as text, so that no engine turns an amount into a float */
export const TX_SELECT = 'hash, block_height, block_seq, tx_index, sender, type, recipient, amount::text AS amount, fee::text AS fee, status, error_reason, timestamp_ms, raw_payload::text AS raw_payload, created_at';

export function txFrom(r: Raw): TxRow {
  return {
    hash: r.hash as string,
    block_height: r.block_height as number,
    tx_index: r.tx_index as number,
    sender: r.sender as string,
    type: r.type as string,
    recipient: (r.recipient as string | null) ?? null,
    amount: r.amount as string,
    fee: r.fee as string,
    status: r.status as string,
    timestamp_ms: str(r.timestamp_ms),
    raw_payload: parseJson(r.raw_payload as string) as Record<string, unknown>,
    ...(r.error_reason !== null && r.error_reason !== undefined ? { error_reason: r.error_reason as string } : {}),
    created_at: iso(r.created_at),
  };
}

export const BLOCK_SELECT = 'height, hash, parent_hash, proposer, timestamp_ms, tx_count, round, state_root, created_at';

export function blockFrom(r: Raw): BlockRow {
  return {
    height: str(r.height),
    hash: r.hash as string,
    parent_hash: r.parent_hash as string,
    proposer: r.proposer as string,
    timestamp_ms: str(r.timestamp_ms),
    tx_count: r.tx_count as number,
    round: str(r.round),
    state_root: r.state_root as string,
    created_at: iso(r.created_at),
  };
}

export const ADDRESS_SELECT = 'address, first_seen_ms, last_seen_ms, tx_count, did, created_at, updated_at';

export function addressFrom(r: Raw): AddressRecord {
  return { address: r.address as string, first_seen: str(r.first_seen_ms), last_seen: str(r.last_seen_ms), tx_count: r.tx_count as number, did: (r.did as string | null) ?? null, created_at: iso(r.created_at), updated_at: iso(r.updated_at) };
}

export const DID_SELECT = 'did, controller, public_key, active, created_ms, updated_ms, tx_hash, block_seq, tx_index, created_at';

export function didFrom(r: Raw): DidState {
  return {
    did: r.did as string,
    controller: r.controller as string,
    public_key: (r.public_key as string | null) ?? null,
    active: r.active as boolean,
    created_ms: str(r.created_ms),
    updated_ms: str(r.updated_ms),
    tx_hash: r.tx_hash as string,
    created_at: iso(r.created_at),
    block_seq: r.block_seq as number,
    tx_index: r.tx_index as number,
  };
}

export function didRow(s: DidState): DidRow {
  const { block_seq: _s, tx_index: _i, ...row } = s;
  return row;
}

export function didValues(s: DidState): unknown[] {
  return [s.did, s.controller, s.public_key, s.active, Number(s.created_ms), Number(s.updated_ms), s.tx_hash, s.block_seq, s.tx_index, s.created_at];
}

export const CREDENTIAL_SELECT = 'credential_id, issuer_did, subject_did, credential_type, hash, issued_ms, revoked, revoked_ms, tx_hash, block_seq, tx_index';

export function credentialFrom(r: Raw): CredentialState {
  return {
    credential_id: r.credential_id as string,
    issuer_did: r.issuer_did as string,
    subject_did: r.subject_did as string,
    credential_type: r.credential_type as string,
    hash: r.hash as string,
    issued_ms: str(r.issued_ms),
    revoked: r.revoked as boolean,
    revoked_ms: strOrNull(r.revoked_ms),
    tx_hash: r.tx_hash as string,
    block_seq: r.block_seq as number,
    tx_index: r.tx_index as number,
  };
}

export function credentialRow(s: CredentialState): CredentialRow {
  const { block_seq: _s, tx_index: _i, ...row } = s;
  return row;
}

export function credentialValues(s: CredentialState): unknown[] {
  return [s.credential_id, s.issuer_did, s.subject_did, s.credential_type, s.hash, Number(s.issued_ms), s.revoked, s.revoked_ms === null ? null : Number(s.revoked_ms), s.tx_hash, s.block_seq, s.tx_index];
}

export const ISSUER_SELECT = 'issuer_did, credentials_issued, active_credentials, revoked_credentials, first_issued_ms, last_issued_ms, first_block_seq, first_tx_index';

export function issuerFrom(r: Raw): IssuerState {
  return {
    issuer_did: r.issuer_did as string,
    credentials_issued: r.credentials_issued as number,
    active_credentials: r.active_credentials as number,
    revoked_credentials: r.revoked_credentials as number,
    first_issued: str(r.first_issued_ms),
    last_issued: str(r.last_issued_ms),
    first_block_seq: r.first_block_seq as number,
    first_tx_index: r.first_tx_index as number,
  };
}

export function issuerRow(s: IssuerState): IssuerStats {
  const { first_block_seq: _s, first_tx_index: _i, ...row } = s;
  return row;
}

export function issuerValues(s: IssuerState): unknown[] {
  return [s.issuer_did, s.credentials_issued, s.active_credentials, s.revoked_credentials, Number(s.first_issued), Number(s.last_issued), s.first_block_seq, s.first_tx_index];
}

export const VERIFICATION_SELECT =
  'request_id, requester_did, subject_did, purpose, claim_types, fee::text AS fee, status, verified, answers, request_height, deadline_height, final_height, consensus_round, request_ms, final_ms, tx_hash, block_seq, tx_index, changed_seq';

export function verificationFrom(r: Raw): VerificationState {
  return {
    request_id: r.request_id as string,
    requester_did: r.requester_did as string,
    subject_did: r.subject_did as string,
    purpose: r.purpose as string,
    claim_types: r.claim_types as string[],
    fee: r.fee as string,
    status: r.status as VerificationStatus,
    verified: (r.verified as boolean | null) ?? null,
    answers: r.answers as number,
    request_height: r.request_height as number,
    deadline_height: r.deadline_height as number,
    final_height: (r.final_height as number | null) ?? null,
    consensus_round: (r.consensus_round as number | null) ?? null,
    request_ms: str(r.request_ms),
    final_ms: strOrNull(r.final_ms),
    tx_hash: r.tx_hash as string,
    block_seq: r.block_seq as number,
    tx_index: r.tx_index as number,
    changed_seq: r.changed_seq as number,
  };
}

export function verificationRow(s: VerificationState): VerificationRow {
  const { block_seq: _s, tx_index: _i, changed_seq: _c, ...row } = s;
  return row;
}

export function verificationValues(s: VerificationState): unknown[] {
  return [
    s.request_id,
    s.requester_did,
    s.subject_did,
    s.purpose,
    JSON.stringify(s.claim_types),
    s.fee,
    s.status,
    s.verified,
    s.answers,
    s.request_height,
    s.deadline_height,
    s.final_height,
    s.consensus_round,
    Number(s.request_ms),
    s.final_ms === null ? null : Number(s.final_ms),
    s.tx_hash,
    s.block_seq,
    s.tx_index,
    s.changed_seq,
  ];
}
