/**
 * Batch updates of the state tree. Pure with respect to storage: it reads nodes through a
 * TreeNodeReader and returns the new root and the nodes to persist; it writes nothing, so consensus
 * can compute roots of uncommitted blocks speculatively.
 *
 * A batch is applied in one pass: changes are sorted by key hash and split bit by bit down the
 * tree, so nodes shared by many changes are read and rewritten once. Because the shape of the tree
 * depends only on its set of entries (see node.ts), the root does not depend on the order of the
 * changes or on how they are split into batches.
 */
import { invalid } from '../../errors.js';
import { hash as blake3 } from './hash.js';
import { toHex } from '../../protocol/bytes.js';
import {
  EMPTY_ROOT,
  HASH_LEN,
  MAX_DEPTH,
  bitAt,
  corruptNode,
  encodeInternal,
  encodeLeaf,
  hashNode,
  isEmptyHash,
  loadNode,
  peekNode,
  type TreeNode,
  type TreeNodeReader,
} from './node.js';

export interface TreeChange {
  /** the state key; the tree places it at blake3(key) */
  key: Uint8Array;
  /** the new value, or null to delete the key (deleting an absent key does nothing) */
  value: Uint8Array | null;
}

export interface TreeUpdate {
  root: Uint8Array;
  /** nodes of the new tree that the caller must persist: lowercase hex hash -> encoded node */
  nodes: Map<string, Uint8Array>;
}

interface Op {
  keyHash: Uint8Array;
  /** null deletes */
  valueHash: Uint8Array | null;
}

interface Entry {
  keyHash: Uint8Array;
  valueHash: Uint8Array;
}

/** A subtree's hash and, when known without a read, what it is. */
interface Sub {
  hash: Uint8Array;
  kind: 'empty' | 'leaf' | 'internal' | 'unknown';
}

const EMPTY: Sub = { hash: EMPTY_ROOT, kind: 'empty' };

/** A result that is a promise only when a node had to be read from storage. */
type Step<T> = T | Promise<T>;

/** Applies `changes` to the tree at `root`. Throws DUPLICATE_TREE_KEY if a key appears twice. */
export async function updateTree(reader: TreeNodeReader, root: Uint8Array, changes: readonly TreeChange[]): Promise<TreeUpdate> {
  if (root.length !== HASH_LEN) throw invalid('BAD_TREE_ROOT', `a state root is ${HASH_LEN} bytes, got ${root.length}`);
  const ops = toSortedOps(changes);
  const nodes = new Map<string, Uint8Array>();
  if (ops.length === 0) return { root: Uint8Array.from(root), nodes };
  const updater = new Updater(reader, ops, nodes);
  const sub = await updater.update(Uint8Array.from(root), 'unknown', 0, 0, ops.length);
  return { root: isEmptyHash(sub.hash) ? new Uint8Array(HASH_LEN) : Uint8Array.from(sub.hash), nodes };
}

function toSortedOps(changes: readonly TreeChange[]): Op[] {
  const ops = changes.map((c) => ({ keyHash: blake3(c.key), valueHash: c.value === null ? null : blake3(c.value) }));
  ops.sort((a, b) => Buffer.compare(a.keyHash, b.keyHash));
  for (let i = 1; i < ops.length; i++) {
    if (Buffer.compare(ops[i - 1]!.keyHash, ops[i]!.keyHash) === 0) {
      throw invalid('DUPLICATE_TREE_KEY', 'a key appears more than once in one state tree update', {
        keyHash: toHex(ops[i]!.keyHash),
      });
    }
  }
  return ops;
}

/** First index in [lo, hi) whose key hash has bit `depth` set; items are sorted by key hash. */
function splitAt(items: readonly { keyHash: Uint8Array }[], depth: number, lo: number, hi: number): number {
  let i = lo;
  while (i < hi && bitAt(items[i]!.keyHash, depth) === 0) i++;
  return i;
}

class Updater {
  constructor(
    private readonly reader: TreeNodeReader,
    private readonly ops: readonly Op[],
    private readonly out: Map<string, Uint8Array>,
  ) {}

  /**
   * Applies ops[lo, hi), all of which lie under this subtree, to the subtree at `depth`. Nodes the
   * reader has at hand are walked synchronously, and only a read that needs I/O makes a promise:
   * a block's update touches thousands of cached nodes, and a promise and an array per node were
   * most of the update's cost and among the largest allocations a validator makes.
   */
  update(hash: Uint8Array, kind: Sub['kind'], depth: number, lo: number, hi: number): Step<Sub> {
    if (kind === 'empty' || isEmptyHash(hash)) return this.build(depth, this.inserts(lo, hi, null));
    const node = peekNode(this.reader, hash);
    if (node) return this.updateNode(hash, node, depth, lo, hi);
    return loadNode(this.reader, hash).then((n) => this.updateNode(hash, n, depth, lo, hi));
  }

  private updateNode(hash: Uint8Array, node: TreeNode, depth: number, lo: number, hi: number): Step<Sub> {
    if (node.kind === 'leaf') return this.build(depth, this.inserts(lo, hi, { keyHash: node.keyHash, valueHash: node.valueHash }));
    if (depth >= MAX_DEPTH) throw corruptNode(hash, `internal node at depth ${depth}`);
    const mid = splitAt(this.ops, depth, lo, hi);
    const left = lo < mid ? this.update(node.left, 'unknown', depth + 1, lo, mid) : ({ hash: node.left, kind: 'unknown' } as Sub);
    let right: Step<Sub>;
    try {
      right = mid < hi ? this.update(node.right, 'unknown', depth + 1, mid, hi) : ({ hash: node.right, kind: 'unknown' } as Sub);
    } catch (err) {
      if (left instanceof Promise) left.catch(() => undefined); // the error below is the one reported
      throw err;
    }
    if (left instanceof Promise || right instanceof Promise) return Promise.all([left, right]).then(([l, r]) => this.rewrite(hash, node, l, r));
    return this.rewrite(hash, node, left, right);
  }

  private rewrite(hash: Uint8Array, node: { left: Uint8Array; right: Uint8Array }, left: Sub, right: Sub): Step<Sub> {
    if (Buffer.compare(left.hash, node.left) === 0 && Buffer.compare(right.hash, node.right) === 0) {
      return { hash, kind: 'internal' };
    }
    return this.join(left, right);
  }

  /**
   * The parent of two rewritten children. A lone leaf moves up (its hash does not depend on its
   * depth), which keeps the shape canonical after deletions.
   */
  private join(left: Sub, right: Sub): Step<Sub> {
    const leftEmpty = left.kind === 'empty' || isEmptyHash(left.hash);
    const rightEmpty = right.kind === 'empty' || isEmptyHash(right.hash);
    if (leftEmpty && rightEmpty) return EMPTY;
    if (leftEmpty || rightEmpty) {
      const only = leftEmpty ? right : left;
      const parent = (kind: Sub['kind']): Sub => (kind === 'leaf' ? { hash: only.hash, kind } : this.internal(left, right));
      if (only.kind !== 'unknown') return parent(only.kind);
      const node = peekNode(this.reader, only.hash);
      if (node) return parent(node.kind);
      return loadNode(this.reader, only.hash).then((n) => parent(n.kind));
    }
    return this.internal(left, right);
  }

  private internal(left: Sub, right: Sub): Sub {
    return { hash: this.emit(encodeInternal(left.hash, right.hash)), kind: 'internal' };
  }

  /** The entries that remain: inserts and updates from ops[lo, hi), plus `existing` unless an op touches its key. */
  private inserts(lo: number, hi: number, existing: Entry | null): Entry[] {
    const entries: Entry[] = [];
    let pending = existing;
    for (let i = lo; i < hi; i++) {
      const op = this.ops[i]!;
      if (pending !== null) {
        const cmp = Buffer.compare(pending.keyHash, op.keyHash);
        if (cmp === 0) pending = null;
        else if (cmp < 0) {
          entries.push(pending);
          pending = null;
        }
      }
      if (op.valueHash !== null) entries.push({ keyHash: op.keyHash, valueHash: op.valueHash });
    }
    if (pending !== null) entries.push(pending);
    return entries;
  }

  /** The canonical subtree at `depth` over sorted entries that share their first `depth` bits. */
  private build(depth: number, entries: readonly Entry[], lo = 0, hi = entries.length): Sub {
    if (hi === lo) return EMPTY;
    if (hi - lo === 1) {
      const e = entries[lo]!;
      return { hash: this.emit(encodeLeaf(e.keyHash, e.valueHash)), kind: 'leaf' };
    }
    const mid = splitAt(entries, depth, lo, hi);
    const left = this.build(depth + 1, entries, lo, mid);
    const right = this.build(depth + 1, entries, mid, hi);
    return { hash: this.emit(encodeInternal(left.hash, right.hash)), kind: 'internal' };
  }

  private emit(encoded: Uint8Array): Uint8Array {
    const hash = hashNode(encoded);
    this.out.set(toHex(hash), encoded);
    return hash;
  }
}
