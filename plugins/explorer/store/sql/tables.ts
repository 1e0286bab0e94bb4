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

/**
 * How a field of a row travels: `read` from what the engine returns, `write` into the array
 * parameter, `select` when the engine must cast it (numeric as text, so no engine makes it a float).
 */
interface Codec {
  read?(v: unknown): unknown;
  write?(v: unknown): unknown;
  select?(name: string): string;
  expr?: Column['expr'];
}

/** block time in a bigint column, a string in the rows (seed 002) */
const ms: Codec = { read: strOrNull, write: (v) => (v === null || v === undefined ? null : Number(v)) };
const timestamp: Codec = { read: iso };
const decimal: Codec = { select: (name) => `${name}::text AS ${name}` };
// a text[] per row cannot travel inside an array parameter: it goes as JSON text
const textArray: Codec = { write: (v) => JSON.stringify(v), expr: (v) => `ARRAY(SELECT json_array_elements_text(${v}::json))` };

interface Field extends Column {
  /** the row's property, when not the column's name */
  field: string;
  codec: Codec;
}

const field = (name: string, type: string, codec: Codec = {}, as = name): Field => ({ ...col(name, type, codec.expr), field: as, codec });

/** A table of rows keyed by one column, changed in place and upserted whole. */
export interface KeyedTable<T> {
  name: string;
  key: string;
  columns: readonly Field[];
  select: string;
  from(r: Raw): T;
  values(row: T): unknown[];
}

function keyed<T>(name: string, key: string, columns: Field[]): KeyedTable<T> {
  return {
    name,
    key,
    columns,
    select: columns.map((c) => c.codec.select?.(c.name) ?? c.name).join(', '),
    from: (r) => Object.fromEntries(columns.map((c) => [c.field, c.codec.read ? c.codec.read(r[c.name]) : (r[c.name] ?? null)])) as T,
    values: (row) => columns.map((c) => {
      const v = (row as Record<string, unknown>)[c.field];
      return c.codec.write ? c.codec.write(v) : v;
    }),
  };
}

const position = [field('block_seq', 'bigint'), field('tx_index', 'integer')];

export const DIDS = keyed<DidState>('explorer.dids', 'did', [
  ...['did', 'controller', 'public_key'].map((n) => field(n, 'text')),
  field('active', 'boolean'),
  field('created_ms', 'bigint', ms),
  field('updated_ms', 'bigint', ms),
  field('tx_hash', 'text'),
  field('created_at', 'timestamptz', timestamp),
  ...position,
]);

export const CREDENTIALS = keyed<CredentialState>('explorer.credentials', 'credential_id', [
  ...['credential_id', 'issuer_did', 'subject_did', 'credential_type', 'hash'].map((n) => field(n, 'text')),
  field('issued_ms', 'bigint', ms),
  field('revoked', 'boolean'),
  field('revoked_ms', 'bigint', ms),
  field('tx_hash', 'text'),
  ...position,
]);

export const ISSUERS = keyed<IssuerState>('explorer.issuers', 'issuer_did', [
  field('issuer_did', 'text'),
  ...['credentials_issued', 'active_credentials', 'revoked_credentials'].map((n) => field(n, 'bigint')),
  field('first_issued_ms', 'bigint', ms, 'first_issued'),
  field('last_issued_ms', 'bigint', ms, 'last_issued'),
  field('first_block_seq', 'bigint'),
  field('first_tx_index', 'integer'),
]);

export const VERIFICATIONS = keyed<VerificationState>('explorer.verification_requests', 'request_id', [
  ...['request_id', 'requester_did', 'subject_did', 'purpose'].map((n) => field(n, 'text')),
  field('claim_types', 'text', textArray),
  field('fee', 'numeric', decimal),
  field('status', 'text'),
  field('verified', 'boolean'),
  field('answers', 'integer'),
  ...['request_height', 'deadline_height', 'final_height', 'consensus_round'].map((n) => field(n, 'bigint')),
  field('request_ms', 'bigint', ms),
  field('final_ms', 'bigint', ms),
  field('tx_hash', 'text'),
  ...position,
  field('changed_seq', 'bigint'),
]);

export const DID_SELECT = DIDS.select;
export const didFrom = DIDS.from;
export const CREDENTIAL_SELECT = CREDENTIALS.select;
export const credentialFrom = CREDENTIALS.from;
export const ISSUER_SELECT = ISSUERS.select;
export const issuerFrom = ISSUERS.from;
export const VERIFICATION_SELECT = VERIFICATIONS.select;
export const verificationFrom = VERIFICATIONS.from;

/** The rows as the API shows them, without the SQL index's own fields. */
export function didRow(s: DidState): DidRow {
  const { block_seq: _s, tx_index: _i, ...row } = s;
  return row;
}

export function credentialRow(s: CredentialState): CredentialRow {
  const { block_seq: _s, tx_index: _i, ...row } = s;
  return row;
}

export function issuerRow(s: IssuerState): IssuerStats {
  const { first_block_seq: _s, first_tx_index: _i, ...row } = s;
  return row;
}

export function verificationRow(s: VerificationState): VerificationRow {
  const { block_seq: _s, tx_index: _i, changed_seq: _c, ...row } = s;
  return row;
}
