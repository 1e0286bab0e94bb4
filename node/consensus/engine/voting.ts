import type { Block } from '../../protocol/block.js';
import { bytesEqual } from '../../protocol/bytes.js';
import { voteDigest } from '../crypto.js';
import * as rules from '../safety.js';
import type { Vote } from '../types.js';
import type { EngineCore, EngineSteps } from './core.js';

/**
 * Votes: this node's vote for a block it holds, sent to the block's collectors, and the votes it
 * collects itself, aggregated into a QC (at once as the next leader, late as the backup).
 */
export class Voting {
  constructor(
    private readonly c: EngineCore,
    private readonly steps: Pick<EngineSteps, 'processQc'>,
  ) {}

  async maybeVote(b: Block): Promise<void> {
    const c = this.c;
    const round = b.header.round;
    if (!c.isValidator || c.haltReport || round !== c.pacemaker.round || !c.tree.has(b.hash)) return;
    if (!rules.safeToVote(c.safety, b, (h) => this.lookup(h)).ok) return;
    await c.setSafety(rules.recordVote(c.safety, round));
    const vote: Vote = { round, height: b.header.height, blockHash: b.hash, voter: c.me, signature: c.o.self.crypto.sign(voteDigest(c.o.chainId, c.ep.epoch, round, b.header.height, b.hash)) };
    c.m.votesSent++;
    // To the next leader, and to the block's proposer, which relays the QC if the next one is down.
    for (const to of this.voteCollectors(b)) {
      if (c.isMe(to)) await this.onVote(vote, true);
      else c.o.transport.send(to, c.msg({ type: 'vote', vote }));
    }
  }

  private lookup(hash: Uint8Array): { round: number; parentHash: Uint8Array } | undefined {
    const b = this.c.tree.get(hash);
    return b && { round: b.header.round, parentHash: b.header.parentHash };
  }

  /**
   * Who collects the votes for block b: the leader of the next round on b's branch, which
   * aggregates them, broadcasts the QC and proposes on it, and b's proposer as a backup. The backup
   * only holds the votes: if no proposal for the next round shows up within a third of the round
   * timeout (the next leader may be down), it aggregates them and relays the QC. Aggregating at
   * once would cost every replica a second pairing check per round for a QC it gets anyway.
   */
  private voteCollectors(b: Block): Uint8Array[] {
    const next = this.c.leaders.leaderAfter(b.hash, b.header.round + 1)!.address;
    const current = b.header.proposer;
    return bytesEqual(next, current) ? [next] : [next, current];
  }

  async onVote(vote: Vote, trusted: boolean, from?: Uint8Array): Promise<void> {
    const c = this.c;
    const b = c.tree.get(vote.blockHash);
    // A vote for a block not here yet: this node may be the next leader, still fetching it.
    const next = b ? c.isMe(this.voteCollectors(b)[0]!) : true;
    if (!next && !(b && c.isMe(b.header.proposer))) return c.drop('vote-not-for-me');
    if (vote.round + 1 < c.pacemaker.round) return;
    if (!next) return c.backup.hold({ vote, trusted, from });
    await this.collectVote(vote, trusted, from);
  }

  private async collectVote(vote: Vote, trusted: boolean, from: Uint8Array | undefined): Promise<void> {
    const c = this.c;
    const res = c.ep.votes.add(vote, trusted);
    for (let i = 0; i < res.rejected; i++) c.drop('bad-vote', from);
    if (res.evidence) await c.recordEvidence(res.evidence);
    if (!res.qc) return;
    c.verifier.rememberQc(res.qc);
    c.m.qcsFormed++;
    c.emit('qc', res.qc);
    // Everyone learns the QC now rather than with the next proposal, which still has to be built;
    // the proposal carries the same QC, so no replica checks it twice.
    c.o.transport.broadcast(c.msg({ type: 'qc', qc: res.qc }));
    await this.steps.processQc(res.qc, c.tree.get(res.qc.blockHash)?.header.proposer);
  }

  /** The backup collector's wait is over: relay the QC unless the next leader did its job. */
  async relayIfStalled(round: number): Promise<void> {
    const c = this.c;
    const held = c.backup.take(round);
    // The next leader is alive (it proposed), or the QC is known already: nothing to relay.
    if (c.proposalsSeen.has(round + 1) || c.pacemaker.round > round + 1 || c.safety.highQc.round >= round) return;
    for (const h of held) await this.collectVote(h.vote, h.trusted, h.from);
  }
}
