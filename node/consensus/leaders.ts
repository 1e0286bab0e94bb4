import type { Block } from '../protocol/block.js';
import { toHex } from '../protocol/bytes.js';
import type { BlockTree } from './tree.js';
import type { Validator } from './types.js';
import type { ValidatorSet } from './validators.js';

/**
 * Leader election with reputation (docs/consensus.md, "Leaders").
 *
 * Plain round-robin hands a dead validator every n-th round, and each of those costs a full
 * round timeout; a 3-chain also needs three consecutive good rounds, so one dead validator in
 * four cut commits to one per cycle of about a timeout. Here the leader of a round on a branch
 * is drawn, round-robin, from the validators that were *active* in the recent history of that
 * branch: they proposed one of its last W blocks, or signed the QC one of them carries. A
 * validator that stops voting drops out after W blocks without it, and comes back as soon as a
 * QC in the window carries its signature again.
 *
 * The history is the certified ancestry of the block a proposal extends, not this node's
 * committed head: every node that judges a given proposal reads the same blocks, whatever it has
 * committed so far, so they all agree on its leader. It runs on across an epoch's start, so a
 * validator that is down stays out of the rotation in the next epoch; a block of an earlier epoch
 * counts by its proposer only, as its QC's signer bitmap indexes another set.
 */

/** Blocks of history that decide who is active: one per validator, and at least 4. */
export function reputationWindow(validators: number): number {
  return Math.max(4, validators);
}

/**
 * The indices (canonical order) of the validators that proposed a block of `window` (newest
 * first) or signed the QC it carries, for blocks above `epochStartHeight` (the set's own). Everyone
 * counts as active while the window is not full (a chain younger than it), so a short history
 * never narrows the rotation.
 */
export function activeValidators(set: ValidatorSet, window: readonly Block[], epochStartHeight: number): number[] {
  const all = set.validators.map((_, i) => i);
  if (window.length < reputationWindow(set.size)) return all;
  const seen = new Set<number>();
  for (const b of window) {
    const proposer = set.indexOf(b.header.proposer);
    if (proposer !== undefined) seen.add(proposer);
    if (b.header.height <= epochStartHeight) continue;
    for (const i of set.signersOf(b.header.justify.signers) ?? []) seen.add(i);
  }
  const active = all.filter((i) => seen.has(i));
  // With more than 2/3 of the weight active, an active validator is up whenever a quorum is, so
  // the rotation reaches a live leader. A window of the epoch's own blocks always holds a quorum
  // of signers; one reaching back past the epoch's start may not, and then it narrows nothing.
  return set.isQuorum(set.weightOf(active)) ? active : all;
}

/** The leader of `round` given the active validators: round-robin over them. */
export function electLeader(set: ValidatorSet, active: readonly number[], round: number): Validator {
  return set.at(active[round % active.length]!)!;
}

const MEMO_LIMIT = 256;

/**
 * One epoch's leaders: walks a branch of the block tree, then the last committed blocks (kept
 * here, since the tree starts at the committed head), and remembers each branch tip's active set.
 * No I/O: the engine loads the committed blocks at start and hands over each commit.
 */
export class LeaderSchedule {
  private committed: Block[];
  private readonly memo = new Map<string, number[]>();
  readonly window: number;

  constructor(
    private readonly set: ValidatorSet,
    /** the height of the epoch's start block: the set's own blocks are above it */
    private readonly startHeight: number,
    private readonly tree: () => BlockTree,
    /** the last committed blocks, oldest first, ending at the tree's root (an ended epoch's schedule hands them on) */
    committed: readonly Block[] = [],
  ) {
    this.window = reputationWindow(set.size);
    this.committed = committed.slice(-this.window);
  }

  /** The committed blocks this schedule reads, oldest first. */
  get recentCommitted(): readonly Block[] {
    return this.committed;
  }

  /** Newly committed blocks, oldest first, ending at the tree's root (only the last `window` are kept). */
  committedBlocks(blocks: readonly Block[]): void {
    this.committed = [...this.committed, ...blocks].slice(-this.window);
  }

  /** The active validators on the branch ending at block `hash`; undefined when the block is not in the tree. */
  activeAt(hash: Uint8Array): number[] | undefined {
    const key = toHex(hash);
    const known = this.memo.get(key);
    if (known) return known;
    const history = this.history(hash);
    if (!history) return undefined;
    const active = activeValidators(this.set, history, this.startHeight);
    if (this.memo.size >= MEMO_LIMIT) this.memo.delete(this.memo.keys().next().value!);
    this.memo.set(key, active);
    return active;
  }

  /** The leader of `round` for a proposal extending block `parentHash`; undefined when that block is not in the tree. */
  leaderAfter(parentHash: Uint8Array, round: number): Validator | undefined {
    const active = this.activeAt(parentHash);
    return active && electLeader(this.set, active, round);
  }

  /** The last `window` blocks ending at `hash`, newest first (genesis excluded: nobody proposed it). */
  private history(hash: Uint8Array): Block[] | undefined {
    const tree = this.tree();
    let b = tree.get(hash);
    if (!b) return undefined;
    const out: Block[] = [];
    while (b !== tree.root && out.length < this.window) {
      out.push(b);
      b = tree.get(b.header.parentHash)!;
    }
    for (let i = this.committed.length - 1; i >= 0 && out.length < this.window; i--) out.push(this.committed[i]!);
    return out.filter((x) => x.header.height > 0);
  }
}
