import { blake3 } from '../crypto/hash.js';
import { sign, verify } from '../crypto/ed25519.js';
import { invalid, LedgerError } from '../errors.js';
import { addressFromPublicKey } from './address.js';
import { findNonIntegerLiteral } from './json.js';
import { ByteReader, ByteWriter, concatBytes, toHex, U64_MAX, utf8 } from './bytes.js';
import { byteArrayFromJson, decodePayload, encodePayload, payloadFromJson, payloadToJson, type JsonForm, type Payload } from './payloads.js';
import { requestSigningBytes } from './verification.js';

/**
 * A signed transaction. Signing bytes (see docs/protocol.md):
 *   "ledger-tx-v1" || u16 len(chain_id) || chain_id || sender_pubkey[32] || u64 nonce || payload
 * The chain id inside the signed bytes means a transaction signed for one network never verifies
 * on another. A VerificationRequest is the exception: it is signed as the request (verification.ts). The hash is BLAKE3 over the signing bytes followed by the 64-byte signature.
 */

export const TX_DOMAIN = utf8('ledger-tx-v1');
/** the binary encoding (without chain id) is at most this long */
export const MAX_TX_BYTES = 4096;
/** the JSON text of one transaction is at most this long */
export const MAX_TX_JSON_BYTES = 16_384;

export interface UnsignedTransaction {
  senderPubkey: Uint8Array;
  nonce: bigint;
  payload: Payload;
}

export interface Transaction extends UnsignedTransaction {
  signature: Uint8Array;
}

function writeBody(w: ByteWriter, tx: UnsignedTransaction): ByteWriter {
  w.bytes(tx.senderPubkey).u64(tx.nonce);
  encodePayload(w, tx.payload);
  return w;
}

/** "ledger-tx-v1" || u16 len(chain_id) || chain_id: what the signing bytes put before the encoding */
const prefixes = new Map<string, Uint8Array>();

function signingPrefix(chainId: string): Uint8Array {
  let p = prefixes.get(chainId);
  if (!p) {
    p = new ByteWriter().bytes(TX_DOMAIN).str(chainId).finish();
    if (prefixes.size >= 16) prefixes.clear();
    prefixes.set(chainId, p);
  }
  return p;
}

/**
 * A transaction is never changed once built or decoded. Its encoding is kept from the bytes it
 * was decoded from, or made once, since the hash, the signature check, gossip and block encoding
 * all start from it.
 */
const encodings = new WeakMap<Transaction, Uint8Array>();

export function signingBytes(chainId: string, tx: UnsignedTransaction): Uint8Array {
  // A verification request is signed once, by the requester, as seed 002 asks: its signature is the
  // transaction's. The request names the chain and the nonce, so it binds both as signing bytes do.
  if (tx.payload.kind === 'VerificationRequest') {
    const r = tx.payload.request;
    if (r.chainId === chainId && BigInt(r.nonce) === tx.nonce) return requestSigningBytes(r);
  }
  const encoded = encodings.get(tx as Transaction);
  if (encoded) return concatBytes(signingPrefix(chainId), encoded.subarray(0, encoded.length - 64));
  return writeBody(new ByteWriter().bytes(TX_DOMAIN).str(chainId), tx).finish();
}

export function signTransaction(chainId: string, tx: UnsignedTransaction, seed: Uint8Array): Transaction {
  return { ...tx, signature: sign(seed, signingBytes(chainId, tx)) };
}

export function verifyTransactionSignature(chainId: string, tx: Transaction): boolean {
  return verify(tx.senderPubkey, signingBytes(chainId, tx), tx.signature);
}

/** The hash is needed at admission, gossip, block building, validation, commit and RPC: once per object. */
const hashes = new WeakMap<Transaction, { chainId: string; bytes: Uint8Array; hex: string }>();

function cachedHash(chainId: string, tx: Transaction): { bytes: Uint8Array; hex: string } {
  const hit = hashes.get(tx);
  if (hit && hit.chainId === chainId) return hit;
  const bytes = blake3(concatBytes(signingPrefix(chainId), encodeTransaction(tx)));
  const entry = { chainId, bytes, hex: toHex(bytes) };
  hashes.set(tx, entry);
  return entry;
}

/** BLAKE3(signing bytes ‖ signature); the bytes are shared, never modify them. */
export function transactionHashBytes(chainId: string, tx: Transaction): Uint8Array {
  return cachedHash(chainId, tx).bytes;
}

export function transactionHash(chainId: string, tx: Transaction): string {
  return cachedHash(chainId, tx).hex;
}

export function senderAddress(tx: UnsignedTransaction): string {
  return addressFromPublicKey(tx.senderPubkey);
}

/** Storage and block encoding: sender_pubkey || nonce || payload || signature. Shared: never modify it. */
export function encodeTransaction(tx: Transaction): Uint8Array {
  let bytes = encodings.get(tx);
  if (!bytes) {
    bytes = writeBody(new ByteWriter(), tx).bytes(tx.signature).finish();
    encodings.set(tx, bytes);
  }
  return bytes;
}

/** The caller hands `bytes` over: they become the transaction's encoding and must not change. */
export function decodeTransaction(bytes: Uint8Array): Transaction {
  if (bytes.length > MAX_TX_BYTES) throw new LedgerError('TX_TOO_LARGE', `transaction is ${bytes.length} bytes; the limit is ${MAX_TX_BYTES}`, 'limit');
  const r = new ByteReader(bytes);
  const tx = { senderPubkey: r.bytes(32), nonce: r.u64(), payload: decodePayload(r), signature: r.bytes(64) };
  r.end();
  encodings.set(tx, bytes);
  return tx;
}

export interface TransactionJson {
  sender_pubkey: number[];
  nonce: number | bigint;
  payload: Record<string, unknown>;
  signature: number[];
  chain_id?: string;
}

const TX_FIELDS = ['sender_pubkey', 'nonce', 'payload', 'signature', 'chain_id'];

/**
 * The ChainTransaction JSON form (seed 001). `chain_id` is an optional extension: when present it
 * must name this chain, which turns a cross-network replay into a precise error instead of a bad
 * signature.
 */
export function transactionFromJson(value: unknown): { tx: Transaction; chainId?: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid('MALFORMED_TRANSACTION', 'a transaction is a JSON object');
  const o = value as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    if (!TX_FIELDS.includes(key)) throw invalid('MALFORMED_TRANSACTION', `unknown transaction field ${JSON.stringify(key)}`);
  }
  for (const key of TX_FIELDS.slice(0, 4)) {
    if (!(key in o)) throw invalid('MALFORMED_TRANSACTION', `transaction is missing ${key}`);
  }
  // Integers only: `1.0`, `1e3` and `1e-400` (which a number would read as 0) are refused anywhere.
  const decimal = findNonIntegerLiteral(o);
  if (decimal) {
    const code = /(^|\.)amount$/.test(decimal.path) ? 'BAD_AMOUNT' : 'MALFORMED_TRANSACTION';
    throw invalid(code, `${decimal.path} must be an integer literal without fraction or exponent, got ${decimal.literal.slice(0, 40)}`, { path: decimal.path });
  }
  const nonce = o.nonce;
  const nonceBig = typeof nonce === 'bigint' ? nonce : typeof nonce === 'number' && Number.isSafeInteger(nonce) ? BigInt(nonce) : -1n;
  if (nonceBig < 0n || nonceBig > U64_MAX) throw invalid('MALFORMED_TRANSACTION', 'nonce must be a non-negative integer below 2^64');
  if (o.chain_id !== undefined && (typeof o.chain_id !== 'string' || o.chain_id.length === 0 || o.chain_id.length > 64)) {
    throw invalid('MALFORMED_TRANSACTION', 'chain_id must be a non-empty string of at most 64 characters');
  }
  const tx: Transaction = {
    senderPubkey: byteArrayFromJson(o.sender_pubkey, 32, 'sender_pubkey'),
    nonce: nonceBig,
    payload: payloadFromJson(o.payload),
    signature: byteArrayFromJson(o.signature, 64, 'signature'),
  };
  const encoded = encodeTransaction(tx).length;
  if (encoded > MAX_TX_BYTES) throw new LedgerError('TX_TOO_LARGE', `transaction encodes to ${encoded} bytes; the limit is ${MAX_TX_BYTES}`, 'limit');
  return o.chain_id === undefined ? { tx } : { tx, chainId: o.chain_id as string };
}

export function transactionToJson(tx: Transaction, form: JsonForm = 'standard', chainId?: string): TransactionJson {
  const out: TransactionJson = {
    sender_pubkey: Array.from(tx.senderPubkey),
    nonce: tx.nonce <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(tx.nonce) : tx.nonce,
    payload: payloadToJson(tx.payload, form),
    signature: Array.from(tx.signature),
  };
  if (chainId !== undefined) out.chain_id = chainId;
  return out;
}
