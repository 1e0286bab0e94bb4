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

/** The list form of a transaction row: the detail fields stay on /txs/<hash>. */
export function txListRow(row: TxRow): Omit<TxRow, 'error_reason' | 'created_at'> {
  const { error_reason: _e, created_at: _c, ...rest } = row;
  return rest;
}
