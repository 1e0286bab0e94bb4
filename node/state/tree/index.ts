/**
 * The authenticated state tree: a persistent, content-addressed compressed sparse Merkle tree over
 * BLAKE3 whose root is every block's `state_root`. The normative hashing and shape rules are at the
 * top of node.ts and in docs/state-tree.md.
 */
export {
  EMPTY_ROOT,
  HASH_LEN,
  NODE_LEN,
  decodeNode,
  encodeInternal,
  encodeLeaf,
  hashNode,
  internalHash,
  leafHash,
  type TreeNode,
  type TreeNodeReader,
} from './node.js';
export { updateTree, type TreeChange, type TreeUpdate } from './update.js';
export { getValueHash, proveKey, verifyProof, type TreeProof } from './proof.js';
export { CachedNodeReader, MemoryNodeStore, overlayReader, type TreeNodes } from './store.js';
