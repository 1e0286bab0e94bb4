import { blake3 } from '../crypto/hash.js';
import { ADDRESS_LENGTH, formatAddress } from './address.js';
import { ByteReader, ByteWriter, fromHex, toHex, utf8 } from './bytes.js';
import { merkleRoot } from './merkle.js';
import { decodeTransaction, encodeTransaction, transactionHash, transactionHashBytes, type Transaction } from './transaction.js';

export const BLOCK_DOMAIN = utf8('ledger-block-v1');

/**
 * A quorum certificate: an aggregate of votes from validators holding more than two thirds of the
 * voting weight, for one block in one round. `signers` is a bitmap over the validator set in its
 * canonical order (bit i = byte i>>3, mask 1<<(i&7)). The genesis QC has no signers.
 */
export interface QuorumCertificate {
  round: number;
  height: number;
  blockHash: Uint8Array;
  signers: Uint8Array;
  signature: Uint8Array;
}

export interface BlockHeader {
  height: number;
  round: number;
  parentHash: Uint8Array;
  stateRoot: Uint8Array;
  transactionsRoot: Uint8Array;
  timestampMs: number;
  proposer: Uint8Array;
  /** the QC of the parent block, carried by the proposal (chained HotStuff) */
  justify: QuorumCertificate;
}

export interface Block {
  header: BlockHeader;
  hash: Uint8Array;
  transactions: Transaction[];
}

export function writeQc(w: ByteWriter, qc: QuorumCertificate): ByteWriter {
  return w
    .u64(BigInt(qc.round))
    .u64(BigInt(qc.height))
    .bytes(qc.blockHash)
    .u16(qc.signers.length)
    .bytes(qc.signers)
    .u16(qc.signature.length)
    .bytes(qc.signature);
}

export function readQc(r: ByteReader): QuorumCertificate {
  return { round: Number(r.u64()), height: Number(r.u64()), blockHash: r.bytes(32), signers: r.bytes(r.u16()), signature: r.bytes(r.u16()) };
}

export function encodeHeader(h: BlockHeader): Uint8Array {
  const w = new ByteWriter()
    .u64(BigInt(h.height))
    .u64(BigInt(h.round))
    .bytes(h.parentHash)
    .bytes(h.stateRoot)
    .bytes(h.transactionsRoot)
    .u64(BigInt(h.timestampMs))
    .bytes(h.proposer);
  return writeQc(w, h.justify).finish();
}

function readHeader(r: ByteReader): BlockHeader {
  return {
    height: Number(r.u64()),
    round: Number(r.u64()),
    parentHash: r.bytes(32),
    stateRoot: r.bytes(32),
    transactionsRoot: r.bytes(32),
    timestampMs: Number(r.u64()),
    proposer: r.bytes(ADDRESS_LENGTH),
    justify: readQc(r),
  };
}

export function blockHash(h: BlockHeader): Uint8Array {
  const header = encodeHeader(h);
  const bytes = new Uint8Array(BLOCK_DOMAIN.length + header.length);
  bytes.set(BLOCK_DOMAIN);
  bytes.set(header, BLOCK_DOMAIN.length);
  return blake3(bytes);
}

export function transactionsRoot(chainId: string, txs: Transaction[]): Uint8Array {
  return merkleRoot(txs.map((tx) => transactionHashBytes(chainId, tx)));
}

export function encodeBlock(b: Block): Uint8Array {
  const w = new ByteWriter().bytes(encodeHeader(b.header)).u64(BigInt(b.transactions.length));
  for (const tx of b.transactions) {
    const bytes = encodeTransaction(tx);
    w.u16(bytes.length).bytes(bytes);
  }
  return w.finish();
}

/** Decodes and recomputes the hash: a stored or received block is never trusted for its hash. */
export function decodeBlock(bytes: Uint8Array): Block {
  const r = new ByteReader(bytes);
  const header = readHeader(r);
  const count = Number(r.u64());
  const transactions: Transaction[] = [];
  for (let i = 0; i < count; i++) transactions.push(decodeTransaction(r.bytes(r.u16())));
  r.end();
  return { header, hash: blockHash(header), transactions };
}

/** The RPC Block shape of seed 002. */
export interface BlockJson {
  height: number;
  round: number;
  hash: string;
  parent_hash: string;
  state_root: string;
  transactions_root: string;
  timestamp_ms: number;
  tx_count: number;
  proposer: string;
  transactions: string[];
}

export function blockToJson(chainId: string, b: Block): BlockJson {
  return {
    height: b.header.height,
    round: b.header.round,
    hash: toHex(b.hash),
    parent_hash: toHex(b.header.parentHash),
    state_root: toHex(b.header.stateRoot),
    transactions_root: toHex(b.header.transactionsRoot),
    timestamp_ms: b.header.timestampMs,
    tx_count: b.transactions.length,
    proposer: formatAddress(b.header.proposer),
    transactions: b.transactions.map((tx) => transactionHash(chainId, tx)),
  };
}
