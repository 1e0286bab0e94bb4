import type { Block } from '../protocol/block.js';
import { bytesEqual, toHex } from '../protocol/bytes.js';

/** A proposal's signature, which is also its leader's vote. */
export interface ProposalVote {
  signature: Uint8Array;
  /** already verified here (a relayed proposal); one straight from its leader is checked in the aggregate */
  verified: boolean;
}

export interface Orphan {
  block: Block;
  /** the peer it came from, who is asked for its ancestors */
  from: Uint8Array;
  /** set when it came as a proposal: its leader is checked, and its vote counted, once the parent is here */
  proposal?: ProposalVote;
}

/**
 * Authenticated blocks whose parent is not in the tree yet, keyed by the missing parent. Bounded:
 * past `max`, new orphans are refused (sync brings them again once the gap closes).
 */
export class OrphanPool {
  private readonly byParent = new Map<string, Orphan[]>();
  private readonly hashes = new Set<string>();

  constructor(private readonly max = 4096) {}

  get size(): number {
    return this.hashes.size;
  }

  has(hash: Uint8Array): boolean {
    return this.hashes.has(toHex(hash));
  }

  /** Keeps `block` until its parent arrives; false when the pool is full. */
  add(block: Block, from: Uint8Array, proposal?: ProposalVote): boolean {
    const key = toHex(block.header.parentHash);
    const list = this.byParent.get(key) ?? [];
    const held = list.find((o) => bytesEqual(o.block.hash, block.hash));
    if (held) {
      held.proposal ??= proposal;
      return true;
    }
    if (this.hashes.size >= this.max) return false;
    list.push(proposal ? { block, from, proposal } : { block, from });
    this.byParent.set(key, list);
    this.hashes.add(toHex(block.hash));
    return true;
  }

  /** The lowest block the pool waits for that is not an orphan itself: the next one to fetch. */
  lowestMissingParent(): { hash: Uint8Array; height: number } | undefined {
    let best: { hash: Uint8Array; height: number } | undefined;
    for (const [key, list] of this.byParent) {
      if (this.hashes.has(key)) continue;
      const child = list[0]!.block;
      const height = child.header.height - 1;
      if (!best || height < best.height) best = { hash: child.header.parentHash, height };
    }
    return best;
  }

  /** Removes and returns the orphans waiting for `parent`. */
  takeChildren(parent: Uint8Array): Orphan[] {
    const key = toHex(parent);
    const children = this.byParent.get(key) ?? [];
    this.byParent.delete(key);
    for (const o of children) this.hashes.delete(toHex(o.block.hash));
    return children;
  }

  /** Forgets orphans at or below a committed height: they can never join the tree. */
  pruneTo(height: number): void {
    for (const [k, list] of this.byParent) {
      const keep = list.filter((o) => o.block.header.height > height);
      for (const o of list) if (!keep.includes(o)) this.hashes.delete(toHex(o.block.hash));
      if (keep.length === 0) this.byParent.delete(k);
      else this.byParent.set(k, keep);
    }
  }
}
