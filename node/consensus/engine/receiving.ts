import type { Block } from '../../protocol/block.js';
import { bytesEqual, toHex } from '../../protocol/bytes.js';
import { voteDigest } from '../crypto.js';
import type { ProposalVote } from '../orphans.js';
import * as rules from '../safety.js';
import type { Proposal } from '../types.js';
import type { EngineCore, EngineSteps } from './core.js';

/**
 * Blocks coming in: a proposal's checks (its leader, signature, certificates, equivocation), then
 * any authenticated block validated by the app into the tree, or held as an orphan until its
 * parent arrives; each block added may then get this node's vote.
 */
export class Receiving {
  constructor(
    private readonly c: EngineCore,
    private readonly steps: Pick<EngineSteps, 'processQc' | 'processTc' | 'onVote' | 'maybeVote' | 'requestSync'>,
  ) {}

  async onProposal(from: Uint8Array, p: Proposal): Promise<void> {
    const c = this.c;
    const b = p.block;
    const round = b.header.round;
    // Whether the proposer leads this round depends on the branch it extends (leaders.ts), so it
    // is checked in receiveBlock once the parent is here; its key is needed now.
    const proposer = c.validators.indexOf(b.header.proposer);
    if (proposer === undefined) return c.drop('wrong-leader', from);
    const leader = c.validators.at(proposer)!;
    if (rules.proposalShapeError(b, p.tc)) return c.drop('malformed-proposal', from);
    const seen = c.proposalsSeen.get(round);
    if (seen && bytesEqual(seen.block.hash, b.hash)) return;
    // The transport authenticates `from`, so a proposal straight from its leader skips the pairing
    // check here: its signature counts as the leader's vote, which the next leader checks inside
    // the aggregate. A relayed proposal, and both sides of an equivocation, are checked one by one.
    const signed = (x: Proposal) => c.o.self.crypto.verify(voteDigest(c.o.chainId, c.ep.epoch, round, x.block.header.height, x.block.hash), x.signature, leader.blsPublicKey);
    const direct = bytesEqual(from, leader.address);
    if (!direct && !signed(p)) return c.drop('bad-signature', from);
    if (!seen) c.proposalsSeen.set(round, p);
    else if (signed(seen) && (!direct || signed(p))) await c.recordEvidence({ kind: 'double-proposal', epoch: c.ep.epoch, round, validator: leader.address, first: seen, second: p });
    if (!c.verifier.verifyQc(b.header.justify)) return c.drop('bad-qc', from);
    if (p.tc && !c.verifier.verifyTc(p.tc)) return c.drop('bad-tc', from);
    const ep = c.ep;
    if (p.tc) await this.steps.processTc(p.tc);
    if (c.ep === ep) await this.steps.processQc(b.header.justify, from);
    if (c.ep !== ep) return; // the QC ended the epoch: this block belongs to the old one
    await this.receiveBlock(b, from, { signature: p.signature, verified: !direct });
  }

  /**
   * Validates and adds a block whose signature or hash chain is already authenticated; then votes.
   * A proposal (`proposal` set) must come from its round's leader on the branch it extends, and
   * its signature counts as that leader's vote.
   */
  async receiveBlock(b: Block, from: Uint8Array, proposal?: ProposalVote): Promise<void> {
    const c = this.c;
    if (b.header.height <= c.tree.root.header.height) return;
    if (c.ep.isPastBoundary(b.header.height) && b.transactions.length > 0) return c.drop('transactions-past-boundary', from);
    if (proposal && c.tree.has(b.header.parentHash) && !this.isElected(b)) return c.drop('wrong-leader', from);
    if (!c.tree.has(b.hash)) {
      const parent = c.tree.get(b.header.parentHash);
      if (!parent) {
        // b's justify certifies its parent: a quorum may have accepted a block this node refused.
        c.divergence.certified(b.header.parentHash);
        if (c.haltReport) return;
        if (!c.orphans.add(b, from, proposal)) return c.drop('orphan-pool-full');
        // An orphan's parent that is itself an orphan is already on its way.
        if (!c.orphans.has(b.header.parentHash)) this.steps.requestSync(from, b.header.parentHash, b.header.height - 1);
        return;
      }
      try {
        await c.o.app.validateBlock(b, parent);
      } catch (err) {
        return c.refuse(b, err, from);
      }
      await c.o.store.putPendingBlock(b);
      c.tree.add(b);
      c.times.markSeen(b.hash, c.clock.now());
      c.emit('block', b);
      const ep = c.ep;
      await this.onBlockAdded(b);
      if (c.ep !== ep) return;
    }
    if (proposal && c.isMe(c.leaders.leaderAfter(b.hash, b.header.round + 1)!.address)) {
      // The leader's signature is its vote; the next leader counts it.
      await this.steps.onVote({ round: b.header.round, height: b.header.height, blockHash: b.hash, voter: b.header.proposer, signature: proposal.signature }, proposal.verified);
    }
    await this.steps.maybeVote(b);
  }

  /** Receives authenticated blocks in order; false when one of them ended the epoch (the rest belong to the old one). */
  async receiveBlocks(blocks: Block[], from: Uint8Array): Promise<boolean> {
    const ep = this.c.ep;
    for (const b of blocks) {
      await this.receiveBlock(b, from);
      if (this.c.ep !== ep) return false;
    }
    return true;
  }

  /** Whether b's proposer is the leader of its round on the branch b extends (its parent is in the tree). */
  private isElected(b: Block): boolean {
    const leader = this.c.leaders.leaderAfter(b.header.parentHash, b.header.round);
    return leader !== undefined && bytesEqual(leader.address, b.header.proposer);
  }

  /** The block's own QC, a QC that waited for it, and the orphans that waited for it. */
  private async onBlockAdded(b: Block): Promise<void> {
    const c = this.c;
    const ep = c.ep;
    await this.steps.processQc(b.header.justify, undefined);
    const key = toHex(b.hash);
    const qc = c.pendingQcs.get(key);
    if (qc && c.ep === ep) {
      c.pendingQcs.delete(key);
      await this.steps.processQc(qc, undefined);
    }
    for (const o of c.orphans.takeChildren(b.hash)) if (c.ep === ep) await this.receiveBlock(o.block, o.from, o.proposal);
  }
}
