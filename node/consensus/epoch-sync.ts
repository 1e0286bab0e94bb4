import { toHex } from '../protocol/bytes.js';
import type { Clock } from './pacemaker.js';
import type { ConsensusMessage } from './types.js';

/** messages of the next epoch kept while this node finishes the current one */
const MAX_FUTURE_MESSAGES = 256;
/** a proof holds a whole block: at most one per peer and epoch this often */
const PROOF_INTERVAL_MS = 1_000;

/**
 * Bookkeeping for peers in other epochs (docs/consensus.md, "Epochs"): the next epoch's messages
 * kept for later, when to ask a peer that is ahead for the proof that ends ours, and how often
 * to send our proofs to peers that are behind. The engine does the sending and the crossing.
 */
export class EpochSync {
  private future: Array<{ from: Uint8Array; msg: ConsensusMessage }> = [];
  /** the peer seen furthest ahead, and when we last asked anyone */
  private ahead: { peer: Uint8Array; epoch: number } | undefined;
  private askedAt = -Infinity;
  private readonly proofsSent = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    private readonly askDelayMs: number,
    /** send an epoch-request to `peer` if this node is still in `epoch` */
    private readonly ask: (peer: Uint8Array, epoch: number) => void,
  ) {}

  /**
   * A message from a later epoch than `current`: keep it if it is for the next one, and ask its
   * sender how `current` ended. Not at once: at a handover the QC that ends the epoch is usually
   * a moment behind the first messages of the next one.
   */
  aheadOf(current: number, from: Uint8Array, msg: ConsensusMessage): void {
    if (msg.epoch === current + 1 && this.future.length < MAX_FUTURE_MESSAGES) this.future.push({ from, msg });
    if (!this.ahead || msg.epoch >= this.ahead.epoch) this.ahead = { peer: from, epoch: msg.epoch };
    const now = this.clock.now();
    if (now - this.askedAt < this.askDelayMs) return;
    this.askedAt = now;
    this.clock.setTimer(this.askDelayMs, () => this.ask(from, current));
  }

  /** This node entered `epoch`: the messages kept for it, and ask on at once if peers are further. */
  entered(epoch: number): Array<{ from: Uint8Array; msg: ConsensusMessage }> {
    const early = this.future.filter((f) => f.msg.epoch === epoch);
    this.future = [];
    if (this.ahead && this.ahead.epoch > epoch) {
      this.askedAt = this.clock.now();
      this.ask(this.ahead.peer, epoch);
    }
    return early;
  }

  /** Whether to send our proof of `epoch` to `to` now. */
  mayProve(to: Uint8Array, epoch: number): boolean {
    const key = `${toHex(to)}:${epoch}`;
    const now = this.clock.now();
    if (now - (this.proofsSent.get(key) ?? -Infinity) < PROOF_INTERVAL_MS) return false;
    if (this.proofsSent.size > 1_024) this.proofsSent.clear();
    this.proofsSent.set(key, now);
    return true;
  }
}
