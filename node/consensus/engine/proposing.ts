import { LedgerError } from '../../errors.js';
import { bytesEqual } from '../../protocol/bytes.js';
import { voteDigest } from '../crypto.js';
import type { TimerHandle } from '../pacemaker.js';
import { proposalDelay, type PacingState } from '../pacing.js';
import * as rules from '../safety.js';
import type { Proposal } from '../types.js';
import type { EngineCore, EngineSteps } from './core.js';

/**
 * The leader's side of a round: wait as pacing.ts says (for transactions, the least interval
 * between blocks, or the idle interval), build the block on the high QC and send it. The
 * leader's signature on the block is its own vote.
 */
export class Proposing {
  private idleTimer: TimerHandle | undefined;
  /** the pending check of a leader waiting for transactions */
  private waiting: (() => void) | undefined;

  constructor(
    private readonly c: EngineCore,
    private readonly steps: Pick<EngineSteps, 'onVote'>,
  ) {}

  /** Stop waiting to propose (the node halted or stopped). */
  cancel(): void {
    this.idleTimer?.cancel();
    this.waiting = undefined;
  }

  /** A transaction became ready: a leader waiting for one checks now instead of at its next poll. */
  transactionsReady(): void {
    const check = this.waiting;
    if (!check) return;
    this.idleTimer?.cancel();
    check();
  }

  scheduleProposal(round: number): void {
    const c = this.c;
    this.cancel();
    if (!c.isValidator || c.proposedRound >= round) return;
    const leader = c.leaders.leaderAfter(c.safety.highQc.blockHash, round);
    if (!leader || !c.isMe(leader.address)) return;
    const scheduled = c.clock.now();
    const poll = c.o.pollIntervalMs ?? 20;
    // The poll is a fallback: the node calls transactionsReady() when the mempool admits one.
    const check = () => {
      this.waiting = undefined;
      if (!c.running || c.pacemaker.round !== round) return;
      const wait = proposalDelay(this.pacingState(scheduled), c.pacing);
      if (wait === 0) return c.enqueue(() => this.propose(round));
      this.waiting = check;
      this.idleTimer = c.clock.setTimer(Math.min(poll, wait), check);
    };
    check();
  }

  private pacingState(scheduled: number): PacingState {
    const c = this.c;
    const head = c.safety.highQc;
    const now = c.clock.now();
    const seen = c.times.seenAt(head.blockHash);
    const onPath = c.tree.transactionsOnPath(head.blockHash);
    return {
      sinceParentMs: seen === undefined ? Infinity : now - seen,
      sinceScheduledMs: now - scheduled,
      readyTransactions: c.o.app.hasReadyTransactions() ? Math.max(1, c.o.app.pendingTransactionCount() - onPath) : 0,
      uncommittedTransactions: onPath > 0,
      pastBoundary: c.ep.isPastBoundary(head.height + 1),
    };
  }

  async propose(round: number): Promise<void> {
    const c = this.c;
    if (c.haltReport || c.pacemaker.round !== round || c.proposedRound >= round || round <= c.safety.lastVotedRound) return;
    const justify = c.safety.highQc;
    const parent = c.tree.get(justify.blockHash);
    if (!parent) return; // still syncing it; the round will time out
    if (!c.isMe(c.leaders.leaderAfter(parent.hash, round)!.address)) return;
    const tc = justify.round + 1 === round ? undefined : c.safety.highTc;
    if (justify.round + 1 !== round && tc?.round !== round - 1) return;
    const height = parent.header.height + 1;
    const block = await c.o.app.buildBlock({ parent, round, height, justify, proposer: c.me, empty: c.ep.isPastBoundary(height) });
    const shape = rules.proposalShapeError(block, tc);
    if (shape || !bytesEqual(block.header.proposer, c.me) || block.header.round !== round) {
      throw new LedgerError('BAD_BUILT_BLOCK', `the app built a block that does not fit the proposal: ${shape ?? 'wrong round or proposer'}`, 'internal');
    }
    if (c.pacemaker.round !== round || c.proposedRound >= round) return;
    await c.setSafety(rules.recordVote(c.safety, round));
    c.proposedRound = round;
    const signature = c.o.self.crypto.sign(voteDigest(c.o.chainId, c.ep.epoch, round, block.header.height, block.hash));
    await c.o.store.putPendingBlock(block);
    c.tree.add(block);
    c.times.markSeen(block.hash, c.clock.now());
    c.emit('block', block);
    const proposal: Proposal = { block, tc, signature };
    c.proposalsSeen.set(round, proposal);
    c.m.proposals++;
    c.emit('proposal', proposal);
    c.o.transport.broadcast(c.msg({ type: 'proposal', proposal }));
    await this.steps.onVote({ round, height: block.header.height, blockHash: block.hash, voter: c.me, signature }, true);
  }
}
