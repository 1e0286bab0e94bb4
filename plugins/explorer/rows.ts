import type { ExplorerBlock } from '../../node/client/blocks.js';
import type { Block } from '../../node/protocol/block.js';
import { formatAddress } from '../../node/protocol/address.js';
import { toHex } from '../../node/protocol/bytes.js';
import { payloadToJson } from '../../node/protocol/payloads.js';
import type { Receipt } from '../../node/protocol/receipt.js';
import { addressFromPublicKey } from '../../node/protocol/address.js';
import type { Transaction } from '../../node/protocol/transaction.js';

/**
 * The explorer's rows, in seed 002's shapes: which fields are strings and which numbers is part
 * of the contract (heights and times of blocks are strings, a transaction's block_height a number).
 * `created_at` is when the indexer wrote the row (ISO 8601).
 */

/** the client's type (node/client/blocks.ts), so that the feed and its subscribers share one shape */
export type BlockRow = ExplorerBlock;

export interface TxRow {
  hash: string;
  block_height: number;
  tx_index: number;
  sender: string;
  type: string;
  recipient: string | null;
  amount: string;
  fee: string;
  status: string;
  timestamp_ms: string;
  raw_payload: Record<string, unknown>;
  /** only on failure: the receipt's reason */
  error_reason?: string;
  created_at: string;
}

/**
 * base58 addresses by the hex of their public key (64 digits) or address bytes (40): the same
 * senders and recipients recur, and base58 is slow.
 */
const addresses = new Map<string, string>();
const ADDRESS_CACHE_LIMIT = 10_000;

function remembered(bytes: Uint8Array, format: (bytes: Uint8Array) => string): string {
  const hex = toHex(bytes);
  let address = addresses.get(hex);
  if (address === undefined) {
    address = format(bytes);
    if (addresses.size >= ADDRESS_CACHE_LIMIT) addresses.clear();
    addresses.set(hex, address);
  }
  return address;
}

export function blockRow(block: Block, createdAt: string): BlockRow {
  const h = block.header;
  return {
    height: String(h.height),
    hash: toHex(block.hash),
    parent_hash: toHex(h.parentHash),
    proposer: remembered(h.proposer, formatAddress),
    timestamp_ms: String(h.timestampMs),
    tx_count: block.transactions.length,
    round: String(h.round),
    state_root: toHex(h.stateRoot),
    created_at: createdAt,
  };
}

/** The address a payload moves value to, if any. */
function recipientOf(tx: Transaction): string | null {
  return tx.payload.kind === 'Transfer' ? remembered(tx.payload.to, formatAddress) : null;
}

function amountOf(tx: Transaction): bigint {
  const p = tx.payload;
  if (p.kind === 'Transfer' || p.kind === 'Stake' || p.kind === 'Unstake') return p.amount;
  if (p.kind === 'VerificationRequest') return BigInt(p.request.fee);
  return p.kind === 'CredentialRequest' ? p.fee : 0n;
}

export function txRow(tx: Transaction, receipt: Receipt, block: Block, createdAt: string): TxRow {
  const failed = receipt.status.startsWith('failed: ');
  return {
    hash: receipt.tx_hash,
    block_height: block.header.height,
    tx_index: receipt.tx_index,
    sender: remembered(tx.senderPubkey, addressFromPublicKey),
    type: tx.payload.kind,
    recipient: recipientOf(tx),
    amount: amountOf(tx).toString(),
    fee: receipt.fee_paid.toString(),
    status: failed ? 'failed' : receipt.status,
    timestamp_ms: String(block.header.timestampMs),
    raw_payload: payloadToJson(tx.payload),
    ...(failed ? { error_reason: receipt.status.slice('failed: '.length) } : {}),
    created_at: createdAt,
  };
}

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

export interface DidRow {
  did: string;
  controller: string;
  /** hex of the DID's current key; null once deactivated */
  public_key: string | null;
  active: boolean;
  created_ms: string;
  updated_ms: string;
  /** the DidCreate transaction */
  tx_hash: string;
  created_at: string;
}

export interface CredentialRow {
  credential_id: string;
  issuer_did: string;
  subject_did: string;
  credential_type: string;
  hash: string;
  issued_ms: string;
  revoked: boolean;
  revoked_ms: string | null;
  /** the request transaction */
  tx_hash: string;
}

export interface IssuerStats {
  issuer_did: string;
  credentials_issued: number;
  active_credentials: number;
  revoked_credentials: number;
  first_issued: string;
  last_issued: string;
}

export const VERIFICATION_STATUSES = ['pending', 'final', 'expired'] as const;
export type VerificationStatus = (typeof VERIFICATION_STATUSES)[number];

export interface VerificationRow {
  request_id: string;
  requester_did: string;
  subject_did: string;
  /** the requester's stated purpose, signed into the request */
  purpose: string;
  claim_types: string[];
  /** smallest units, held until final (to the committee) or expired (back) */
  fee: string;
  status: VerificationStatus;
  /** null until final */
  verified: boolean | null;
  answers: number;
  request_height: number;
  deadline_height: number;
  /** the block that made the response final; null while pending or once expired */
  final_height: number | null;
  consensus_round: number | null;
  /** block times (Unix ms, as strings) of the request and of its final block */
  request_ms: string;
  final_ms: string | null;
  /** the VerificationRequest transaction */
  tx_hash: string;
}

/** The rows one block added, for the WebSocket feed. */
export interface Indexed {
  block: BlockRow;
  txs: TxRow[];
  dids: DidRow[];
  credentials: CredentialRow[];
  /** verification rows the block created or changed, as they stand after it */
  verifications: VerificationRow[];
}

/** The sender, and the recipient when there is another one. */
export function addressesOf(row: TxRow): string[] {
  return row.recipient && row.recipient !== row.sender ? [row.sender, row.recipient] : [row.sender];
}

/** The list form of a transaction row: the detail fields stay on /txs/<hash>. */
export function txListRow(row: TxRow): Omit<TxRow, 'error_reason' | 'created_at'> {
  const { error_reason: _e, created_at: _c, ...rest } = row;
  return rest;
}
