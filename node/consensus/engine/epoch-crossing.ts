import { LedgerError } from '../../errors.js';
import type { Block } from '../../protocol/block.js';
import { bytesEqual, toHex } from '../../protocol/bytes.js';
import { EpochContext, epochProofError } from '../epochs.js';
import { EpochSync } from '../epoch-sync.js';
import { LeaderSchedule } from '../leaders.js';
import * as rules from '../safety.js';
import { BlockTree } from '../tree.js';
import type { ConsensusMessage, EpochProof } from '../types.js';
import type { EngineCore, EngineSteps } from './core.js';

/**
 * Crossing from one epoch to the next: at the commit of the boundary block (keep the proof, start
 * over on the boundary with the new set), and for peers in other epochs (send a node behind the
 * proof that ended its epoch; ask a node ahead for the proof that ends ours, and take it in).
 */
export class EpochCrossing {
  private readonly epochSync: EpochSync;

  constructor(
    private readonly c: EngineCore,
    private readonly steps: Pick<EngineSteps, 'handle' | 'receiveBlocks' | 'processQc' | 'scheduleProposal'>,
  ) {
    this.epochSync = new EpochSync(c.clock, c.relayMs, (peer, epoch) => {
      if (c.running && c.ep.epoch === epoch) c.o.transport.send(peer, c.msg({ type: 'epoch-request' }));
    });
  }

  /**
   * The boundary block has committed: keep the proof, drop the blocks above it and start the
   * next epoch on it. The app now reports the new set, computed by the boundary block.
   */
  async endEpoch(boundary: Block, proof: EpochProof): Promise<void> {
    const c = this.c;
    const ended = c.ep;
    await c.o.store.putEpochProof(ended.epoch, proof);
    const info = await c.o.app.currentEpoch();
    if (info.epoch !== ended.epoch + 1 || !bytesEqual(info.start.hash, boundary.hash)) {
      throw new LedgerError('EPOCH_MISMATCH', `epoch ${ended.epoch} ended at ${toHex(boundary.hash)} but the app reports epoch ${info.epoch} from ${toHex(info.start.hash)}`, 'internal');
    }
    // The blocks above the boundary were only there to commit it.
    const above = (await c.o.store.pendingBlocks()).map((b) => b.hash);
    await c.o.store.deletePendingBlocks(above);
    c.times.forget(above);
    c.tree = new BlockTree(boundary);
    c.m.pairingChecks += ended.verifier.checks;
    c.ep = new EpochContext(info, c.o.chainId, c.o.self);
    c.leaders = new LeaderSchedule(c.ep.set, info.start.height, () => c.tree, c.leaders.recentCommitted);
    await c.setSafety(rules.initialSafety(c.ep.startQc, info.epoch));
    c.orphans.pruneTo(Number.MAX_SAFE_INTEGER);
    c.pendingQcs.clear();
    c.proposalsSeen.clear();
    c.ownTimeouts.clear();
    c.backup.clear();
    c.proposedRound = 0;
    c.m.epoch = info.epoch;
    c.m.epochChanges++;
    c.emit('epoch', { epoch: info.epoch, validators: info.validators, boundary });
    c.pacemaker.restart(c.ep.startQc.round + 1);
    c.emit('round', { round: c.pacemaker.round, via: 'epoch' });
    this.steps.scheduleProposal(c.pacemaker.round);
    for (const f of this.epochSync.entered(info.epoch)) c.enqueue(() => this.steps.handle(f.from, f.msg));
  }

  /** A message of another epoch: an older one tells its sender how the epoch ended; a newer one means we are behind. */
  async otherEpoch(from: Uint8Array, msg: ConsensusMessage): Promise<void> {
    if (msg.epoch < this.c.ep.epoch) return this.sendProof(from, msg.epoch);
    this.epochSync.aheadOf(this.c.ep.epoch, from, msg);
  }

  async onEpochRequest(from: Uint8Array, epoch: number): Promise<void> {
    if (epoch < this.c.ep.epoch) await this.sendProof(from, epoch);
  }

  private async sendProof(to: Uint8Array, epoch: number): Promise<void> {
    if (!this.epochSync.mayProve(to, epoch)) return;
    const proof = await this.c.o.store.loadEpochProof(epoch);
    if (proof) this.c.o.transport.send(to, { type: 'epoch-proof', epoch, proof });
  }

  /**
   * How our epoch ended, from any peer: its QC must verify under our set. The blocks then go in
   * like synced ones (the boundary may need its own ancestors first) and the QC commits the
   * boundary, which moves this node into the next epoch.
   */
  async onEpochProof(from: Uint8Array, epoch: number, proof: EpochProof): Promise<void> {
    const c = this.c;
    if (epoch !== c.ep.epoch) return;
    const bad = epochProofError(proof, c.ep.info.lastHeight);
    if (bad || !c.verifier.verifyQc(proof.qc)) return c.drop('bad-epoch-proof', from);
    if (await this.steps.receiveBlocks(proof.blocks, from)) await this.steps.processQc(proof.qc, from);
  }
}
