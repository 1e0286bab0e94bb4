/**
 * Membership and non-membership proofs. A proof is the path from the root to where the key's path
 * ends: the sibling hashes on the way down, and the leaf found there, if any. The verifier is pure
 * and needs nothing but the root.
 */
import { hash as blake3 } from './hash.js';
import { bytesEqual } from '../../protocol/bytes.js';
import { HASH_LEN, MAX_DEPTH, bitAt, corruptNode, internalHash, isEmptyHash, leafHash, loadNode, type TreeNodeReader } from './node.js';

export interface TreeProof {
  /** siblings[i]: the hash of the child not taken at depth i on the key's path, from the root down */
  siblings: Uint8Array[];
  /**
   * The leaf where the key's path ends: the key's own leaf (membership) or another key's leaf
   * that shares the path (non-membership). Null when the path ends in an empty subtree.
   */
  leaf: { keyHash: Uint8Array; valueHash: Uint8Array } | null;
}

/** Walks from `root` toward blake3(key) and returns the proof for it, whether or not the key is present. */
export async function proveKey(reader: TreeNodeReader, root: Uint8Array, key: Uint8Array): Promise<TreeProof> {
  const keyHash = blake3(key);
  const siblings: Uint8Array[] = [];
  let hash = root;
  for (let depth = 0; ; depth++) {
    if (isEmptyHash(hash)) return { siblings, leaf: null };
    const node = await loadNode(reader, hash);
    if (node.kind === 'leaf') {
      return { siblings, leaf: { keyHash: Uint8Array.from(node.keyHash), valueHash: Uint8Array.from(node.valueHash) } };
    }
    if (depth >= MAX_DEPTH) throw corruptNode(hash, `internal node at depth ${depth}`);
    const right = bitAt(keyHash, depth) === 1;
    siblings.push(Uint8Array.from(right ? node.left : node.right));
    hash = right ? node.right : node.left;
  }
}

/** blake3(value) of the key in the tree at `root`, or null if the key is absent. */
export async function getValueHash(reader: TreeNodeReader, root: Uint8Array, key: Uint8Array): Promise<Uint8Array | null> {
  const { leaf } = await proveKey(reader, root, key);
  return leaf !== null && bytesEqual(leaf.keyHash, blake3(key)) ? leaf.valueHash : null;
}

function isHash(b: unknown): b is Uint8Array {
  return b instanceof Uint8Array && b.length === HASH_LEN;
}

function sharesPrefix(a: Uint8Array, b: Uint8Array, bits: number): boolean {
  for (let i = 0; i < bits; i++) if (bitAt(a, i) !== bitAt(b, i)) return false;
  return true;
}

/**
 * True iff `proof` shows that, in the tree with this root, `key` maps to `value`, or is absent when
 * `value` is null. Malformed proofs give false, never an exception.
 */
export function verifyProof(root: Uint8Array, key: Uint8Array, value: Uint8Array | null, proof: TreeProof): boolean {
  if (!isHash(root) || typeof proof !== 'object' || proof === null || !Array.isArray(proof.siblings)) return false;
  const { siblings, leaf } = proof;
  if (siblings.length > MAX_DEPTH || !siblings.every(isHash)) return false;
  if (leaf !== null && (typeof leaf !== 'object' || !isHash(leaf.keyHash) || !isHash(leaf.valueHash))) return false;
  const keyHash = blake3(key);
  if (value !== null) {
    if (leaf === null || !bytesEqual(leaf.keyHash, keyHash) || !bytesEqual(leaf.valueHash, blake3(value))) return false;
  } else if (leaf !== null) {
    // another key's leaf proves absence only if it sits on this key's path
    if (bytesEqual(leaf.keyHash, keyHash) || !sharesPrefix(leaf.keyHash, keyHash, siblings.length)) return false;
  }
  let hash = leaf === null ? new Uint8Array(HASH_LEN) : leafHash(leaf.keyHash, leaf.valueHash);
  for (let depth = siblings.length - 1; depth >= 0; depth--) {
    const sibling = siblings[depth]!;
    hash = bitAt(keyHash, depth) === 1 ? internalHash(sibling, hash) : internalHash(hash, sibling);
  }
  return bytesEqual(hash, root);
}
