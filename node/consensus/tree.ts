import type { Block } from '../protocol/block.js';
import { toHex } from '../protocol/bytes.js';

/**
 * The block tree above the last committed block (the root). Every block in it descends from the
 * root; a block enters only when its parent is already in. Committing a block makes it the new
 * root and drops everything that does not descend from it.
 */
export class BlockTree {
  private readonly blocks = new Map<string, Block>();
  private rootBlock: Block;

  constructor(root: Block) {
    this.rootBlock = root;
    this.blocks.set(toHex(root.hash), root);
  }

  get root(): Block {
    return this.rootBlock;
  }

  get size(): number {
    return this.blocks.size;
  }

  get(hash: Uint8Array): Block | undefined {
    return this.blocks.get(toHex(hash));
  }

  has(hash: Uint8Array): boolean {
    return this.blocks.has(toHex(hash));
  }

  /** Adds a block whose parent is in the tree; false when the parent is missing. */
  add(block: Block): boolean {
    if (!this.has(block.header.parentHash)) return false;
    this.blocks.set(toHex(block.hash), block);
    return true;
  }

  parent(block: Block): Block | undefined {
    return block === this.rootBlock ? undefined : this.get(block.header.parentHash);
  }

  /** The uncommitted blocks from just above the root up to `hash`, oldest first. */
  pathFromRoot(hash: Uint8Array): Block[] {
    const out: Block[] = [];
    let b = this.get(hash);
    while (b && b !== this.rootBlock) {
      out.push(b);
      b = this.get(b.header.parentHash);
    }
    return out.reverse();
  }

  /** Makes `hash` the root; returns the hashes removed (the old path and every orphaned branch). */
  commitTo(hash: Uint8Array): Uint8Array[] {
    const newRoot = this.get(hash);
    if (!newRoot) return [];
    const keep = new Set<string>([toHex(newRoot.hash)]);
    // Blocks are kept when their parent is kept; sort by height so parents come first.
    const sorted = [...this.blocks.values()].sort((a, b) => a.header.height - b.header.height);
    for (const b of sorted) if (keep.has(toHex(b.header.parentHash)) && b.header.height > newRoot.header.height) keep.add(toHex(b.hash));
    const removed: Uint8Array[] = [];
    for (const [k, b] of this.blocks) {
      if (keep.has(k)) continue;
      this.blocks.delete(k);
      removed.push(b.hash);
    }
    this.rootBlock = newRoot;
    return removed;
  }

  /** How many transactions the uncommitted blocks from the root to `hash` carry. */
  transactionsOnPath(hash: Uint8Array): number {
    let n = 0;
    for (const b of this.pathFromRoot(hash)) n += b.transactions.length;
    return n;
  }
}
