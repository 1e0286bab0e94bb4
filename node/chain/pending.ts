import type { ExecutedTx } from '../execution/block.js';
import { LedgerError } from '../errors.js';
import { layeredReader, type StateChange, type StateReader } from '../execution/overlay.js';
import { bytesEqual, toHex } from '../protocol/bytes.js';
import type { Block } from '../protocol/block.js';
import { overlayReader, type TreeNodeReader } from '../state/tree/index.js';

/** A block that was executed speculatively but is not committed yet. */
export interface PendingBlock {
  block: Block;
  executed: ExecutedTx[];
  changes: StateChange[];
  treeNodes: Map<string, Uint8Array>;
}

/** The committed side the pending blocks layer over. */
export interface CommittedBase {
  state: StateReader;
  nodes: TreeNodeReader;
  /** the hash of the committed head, where every pending branch must start */
  headHash(): Uint8Array | undefined;
}

/**
 * Speculative state of the uncommitted part of the block tree. Proposals build on, and validators
 * check against, the state after their parent, which may itself be uncommitted: readers layer each
 * pending ancestor's writes over the committed store.
 *
 * A parent that is neither the committed head nor a pending block executed here has no known
 * state. That is refused (PARENT_STATE_UNKNOWN) rather than read from committed state, which
 * would be the state of some other block: after a restart, that silent fallback made every child
 * of a restored block fail its state root check.
 */
export class PendingBlocks {
  private readonly byHash = new Map<string, PendingBlock>();

  constructor(private readonly base: CommittedBase) {}

  add(p: PendingBlock): void {
    this.byHash.set(toHex(p.block.hash), p);
  }

  get(hash: Uint8Array): PendingBlock | undefined {
    return this.byHash.get(toHex(hash));
  }

  /**
   * Pending ancestors of `hash` (inclusive), nearest first. Committed blocks are pruned as soon as
   * they commit, so the walk ends where the committed chain begins.
   */
  ancestry(hash: Uint8Array): PendingBlock[] {
    const out: PendingBlock[] = [];
    let cursor = this.byHash.get(toHex(hash));
    while (cursor) {
      out.push(cursor);
      cursor = this.byHash.get(toHex(cursor.block.header.parentHash));
    }
    return out;
  }

  /**
   * State and tree nodes as they are after block `hash`: the committed head, or a pending block on
   * a branch from it; PARENT_STATE_UNKNOWN for any other block.
   */
  readersAfter(hash: Uint8Array): { state: StateReader; nodes: TreeNodeReader } {
    const head = this.base.headHash();
    const chain = this.ancestry(hash);
    const oldest = chain[chain.length - 1];
    const known = head !== undefined && (bytesEqual(hash, head) || (oldest !== undefined && bytesEqual(oldest.block.header.parentHash, head)));
    if (!known) {
      throw new LedgerError('PARENT_STATE_UNKNOWN', `the state after block ${toHex(hash)} is not known here: it is neither the committed head nor a block executed on top of it`, 'internal', {
        block: toHex(hash),
        head: toHex(head ?? new Uint8Array(0)),
      });
    }
    let state = this.base.state;
    let nodes = this.base.nodes;
    for (const p of chain.reverse()) {
      state = layeredReader(state, p.changes);
      nodes = overlayReader(nodes, p.treeNodes);
    }
    return { state, nodes };
  }

  /** Hashes of the transactions already in the pending chain ending at `hash`. */
  includedTxHashes(hash: Uint8Array): Set<string> {
    const out = new Set<string>();
    for (const p of this.ancestry(hash)) for (const e of p.executed) out.add(toHex(e.hash));
    return out;
  }

  /** Drops everything at or below the committed height: committed now, or on a dead fork. */
  prune(committedHeight: number): void {
    for (const [hash, p] of this.byHash) if (p.block.header.height <= committedHeight) this.byHash.delete(hash);
  }

  get size(): number {
    return this.byHash.size;
  }
}
