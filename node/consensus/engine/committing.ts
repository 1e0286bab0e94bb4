import type { Block, QuorumCertificate } from '../../protocol/block.js';
import { toHex } from '../../protocol/bytes.js';
import { errorCode } from '../divergence.js';
import { clipAtBoundary } from '../epochs.js';
import * as rules from '../safety.js';
import type { EngineCore, EngineSteps } from './core.js';

/**
 * The lock and the 3-chain commit rule on a certified block, and the commit itself: the app gets
 * the blocks, the tree, leader schedule and pools drop what the commit settled, and a commit that
 * reaches the epoch's boundary block ends the epoch.
 */
export class Committing {
  constructor(
    private readonly c: EngineCore,
    private readonly steps: Pick<EngineSteps, 'endEpoch'>,
  ) {}

  /** b2 is certified by qc2: lock b2's justify, and commit b0 if b0 <- b1 <- b2 have consecutive rounds. */
  async processCertified(b2: Block, qc2: QuorumCertificate): Promise<void> {
    const c = this.c;
    const b1 = c.tree.parent(b2);
    if (!b1) return;
    await c.setSafety(rules.updateLock(c.safety, b2.header.justify));
    const b0 = c.tree.parent(b1);
    if (!b0 || b0 === c.tree.root) return;
    if (rules.threeChainCommits(b0.header.round, b1.header.round, b2.header.round)) await this.commit(b0, b1.header.justify, { b2, qc2 });
  }

  /** Commits the path to b0, which b0's child certifies with `qc`; b2 and its QC complete the 3-chain. */
  private async commit(b0: Block, qc: QuorumCertificate, chain: { b2: Block; qc2: QuorumCertificate }): Promise<void> {
    const c = this.c;
    const { blocks, ends } = clipAtBoundary(c.tree.pathFromRoot(b0.hash), c.ep.info.lastHeight);
    if (blocks.length === 0) return;
    const last = blocks[blocks.length - 1]!;
    // Past a boundary, the commit stops at it; the block above it on the 3-chain certifies it.
    const above = ends ? c.tree.pathFromRoot(chain.b2.hash).filter((b) => b.header.height > last.header.height) : [];
    const certifying = ends ? above[0]!.header.justify : qc;
    try {
      await c.o.app.commit(blocks, certifying);
    } catch (err) {
      c.divergence.halt('commit-failed', { height: last.header.height, hash: toHex(last.hash), code: errorCode(err), error: (err as Error).message });
      throw err;
    }
    const removed = c.tree.commitTo(last.hash);
    c.leaders.committedBlocks(blocks);
    await c.o.store.deletePendingBlocks([...removed, last.hash]);
    const { latencyMs, qcToCommitMs } = c.times.committed(last.hash, c.clock.now(), [...removed, ...blocks.map((b) => b.hash)]);
    const rootHeight = last.header.height;
    c.orphans.pruneTo(rootHeight);
    for (const [k, qc] of c.pendingQcs) if (qc.height <= rootHeight) c.pendingQcs.delete(k);
    c.divergence.pruneTo(rootHeight);
    c.m.committedBlocks += blocks.length;
    if (latencyMs !== undefined) c.m.lastCommitLatencyMs = latencyMs;
    c.emit('commit', { blocks, qc: certifying, latencyMs, qcToCommitMs });
    if (ends) await this.steps.endEpoch(last, { blocks: [last, ...above], qc: chain.qc2 });
  }
}
