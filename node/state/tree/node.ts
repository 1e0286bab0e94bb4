/**
 * Nodes of the authenticated state tree: hashing rules, canonical encoding and validated decoding.
 *
 * NORMATIVE (mirrored in docs/state-tree.md; another implementation must reproduce roots byte-for-byte):
 *
 * - H = BLAKE3 with a 32-byte output.
 * - A state entry (stateKey, value) is placed at path keyHash = H(stateKey), read as 256 bits,
 *   most significant bit of byte 0 first. Bit 0 selects the left child, bit 1 the right child.
 * - valueHash = H(value). The tree commits to value hashes; values live in the state store.
 * - The empty subtree hashes to 32 zero bytes (EMPTY_ROOT).
 * - leaf hash     = H(0x00 || keyHash || valueHash)            (65-byte preimage)
 * - internal hash = H(0x01 || leftHash || rightHash)           (65-byte preimage)
 * - Shape (path compression): the subtree at depth d over a set S of entries whose key hashes share
 *   their first d bits is
 *     |S| = 0  -> empty (zero hash);
 *     |S| = 1  -> the leaf of that single entry, whatever d is;
 *     |S| >= 2 -> an internal node whose children are the subtrees at depth d+1 over the entries
 *                 whose bit d is 0 (left) and 1 (right). A child may be empty.
 *   The root is the subtree at depth 0 over all entries. The shape depends only on the set of
 *   entries, so the root does too. A leaf's hash does not depend on its depth.
 *
 * Stored encoding: a node is stored under its hash and its encoding IS its 65-byte hash preimage
 * (tag byte, then two 32-byte fields). An internal node with two empty children is never canonical.
 */
import { LedgerError } from '../../errors.js';
import { hash as blake3 } from './hash.js';
import { toHex } from '../../protocol/bytes.js';

export const HASH_LEN = 32;
export const NODE_LEN = 1 + 2 * HASH_LEN;
export const LEAF_TAG = 0x00;
export const INTERNAL_TAG = 0x01;
/** Deepest level a leaf can sit at: one per key-hash bit. */
export const MAX_DEPTH = 256;

/** 32 zero bytes: the root of the empty tree. Never mutate it. */
export const EMPTY_ROOT: Uint8Array = new Uint8Array(HASH_LEN);

export type TreeNode =
  | { kind: 'leaf'; keyHash: Uint8Array; valueHash: Uint8Array }
  | { kind: 'internal'; left: Uint8Array; right: Uint8Array };

export interface TreeNodeReader {
  /** The encoded node stored under this hash, or undefined if there is none. */
  getNode(hash: Uint8Array): Promise<Uint8Array | undefined>;
  /**
   * The encoded node when it is at hand without I/O (memory, a cache); undefined means "ask
   * getNode", not "absent". `key` is toHex(hash) when the caller already has it.
   */
  peekNode?(hash: Uint8Array, key?: string): Uint8Array | undefined;
}

/** Checks the bytes rather than comparing with EMPTY_ROOT, which a careless caller could mutate. */
export function isEmptyHash(hash: Uint8Array): boolean {
  for (let i = 0; i < hash.length; i++) if (hash[i] !== 0) return false;
  return true;
}

/** Bit `depth` of a key hash, most significant bit of byte 0 first. */
export function bitAt(keyHash: Uint8Array, depth: number): number {
  return (keyHash[depth >> 3]! >> (7 - (depth & 7))) & 1;
}

// Encoded nodes are carved out of shared 64 KiB slabs: a 65-byte Uint8Array is just over V8's
// on-heap limit, and allocating thousands of separate backing stores per block costs more than
// hashing them. Every node is a view of its own 65 bytes (mind byteOffset when converting).
const SLAB_NODES = 1008;
let slab = new Uint8Array(0);
let slabAt = 0;

function encode(tag: number, a: Uint8Array, b: Uint8Array): Uint8Array {
  if (slabAt === slab.length) {
    slab = new Uint8Array(SLAB_NODES * NODE_LEN);
    slabAt = 0;
  }
  const out = slab.subarray(slabAt, slabAt + NODE_LEN);
  slabAt += NODE_LEN;
  out[0] = tag;
  out.set(a, 1);
  out.set(b, 1 + HASH_LEN);
  return out;
}

export function encodeLeaf(keyHash: Uint8Array, valueHash: Uint8Array): Uint8Array {
  return encode(LEAF_TAG, keyHash, valueHash);
}

export function encodeInternal(left: Uint8Array, right: Uint8Array): Uint8Array {
  return encode(INTERNAL_TAG, left, right);
}

/** The hash of an encoded node: the encoding is the hash preimage. */
export function hashNode(encoded: Uint8Array): Uint8Array {
  return blake3(encoded);
}

export function leafHash(keyHash: Uint8Array, valueHash: Uint8Array): Uint8Array {
  return blake3(encodeLeaf(keyHash, valueHash));
}

export function internalHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  return blake3(encodeInternal(left, right));
}

export function corruptNode(hash: Uint8Array, reason: string): LedgerError {
  return new LedgerError('CORRUPT_TREE_NODE', `state tree node ${toHex(hash)} is corrupt: ${reason}`, 'internal', {
    hash: toHex(hash),
    reason,
  });
}

/**
 * Decodes and validates a stored node. The content is not re-hashed on every read (that would
 * double the cost of an update); a node whose bytes were altered still changes every root computed
 * through it, so divergence is caught by the state-root check, and proofs from it fail to verify.
 */
export function decodeNode(hash: Uint8Array, encoded: Uint8Array): TreeNode {
  if (encoded.length !== NODE_LEN) throw corruptNode(hash, `length ${encoded.length}, expected ${NODE_LEN}`);
  const a = encoded.subarray(1, 1 + HASH_LEN);
  const b = encoded.subarray(1 + HASH_LEN);
  switch (encoded[0]) {
    case LEAF_TAG:
      return { kind: 'leaf', keyHash: a, valueHash: b };
    case INTERNAL_TAG:
      if (isEmptyHash(a) && isEmptyHash(b)) throw corruptNode(hash, 'internal node with two empty children');
      return { kind: 'internal', left: a, right: b };
    default:
      throw corruptNode(hash, `unknown tag ${encoded[0]}`);
  }
}

/** A node the reader has at hand without I/O, decoded; undefined when it must be read (loadNode). */
export function peekNode(reader: TreeNodeReader, hash: Uint8Array): TreeNode | undefined {
  const encoded = reader.peekNode?.(hash);
  return encoded === undefined ? undefined : decodeNode(hash, encoded);
}

/** Reads a non-empty node; a missing node means the store lost data or the root is unknown. */
export async function loadNode(reader: TreeNodeReader, hash: Uint8Array): Promise<TreeNode> {
  const encoded = await reader.getNode(hash);
  if (encoded === undefined) {
    throw new LedgerError('MISSING_TREE_NODE', `state tree node ${toHex(hash)} is not in the store`, 'internal', {
      hash: toHex(hash),
    });
  }
  return decodeNode(hash, encoded);
}
