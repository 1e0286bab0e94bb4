import type { Block, QuorumCertificate } from '../../protocol/block.js';
import { toHex } from '../../protocol/bytes.js';
import * as rules from '../safety.js';
import type { TimeoutCertificate } from '../types.js';
import type { EngineCore, EngineSteps } from './core.js';

/**
 * Verified certificates: a QC raises the high QC, goes on to the lock and commit rules when its
 * block is here (else waits for the block, which is fetched) and moves the round; a TC moves the
 * round past a round that timed out.
 */
export class Certifying {
  constructor(
    private readonly c: EngineCore,
    private readonly steps: Pick<EngineSteps, 'processCertified' | 'advance' | 'requestSync' | 'anyPeer'>,
  ) {}

  /** A verified QC: raise the high QC, lock and commit if its block is known, and move rounds. */
  async processQc(qc: QuorumCertificate, source: Uint8Array | undefined): Promise<void> {
    const c = this.c;
    c.divergence.certified(qc.blockHash);
    // written with the lock processCertified takes, or just below when it takes none
    c.stageSafety(rules.updateHighQc(c.safety, qc));
    const b2 = c.tree.get(qc.blockHash);
    if (b2) {
      this.noteCertified(b2);
      const ep = c.ep;
      await this.steps.processCertified(b2, qc);
      if (c.ep !== ep) return;
    }
    await c.flushSafety();
    if (!b2 && qc.round > 0 && qc.height > c.tree.root.header.height) {
      c.pendingQcs.set(toHex(qc.blockHash), qc);
      this.steps.requestSync(source ?? this.steps.anyPeer(), qc.blockHash, qc.height);
    }
    this.steps.advance(qc.round + 1, 'qc');
  }

  /** A verified TC: raise the high TC, take its high QC, and move to the round after it. */
  async processTc(tc: TimeoutCertificate): Promise<void> {
    const c = this.c;
    await c.setSafety(rules.updateHighTc(c.safety, tc));
    const ep = c.ep;
    await this.processQc(tc.highQc, undefined);
    if (c.ep === ep) this.steps.advance(tc.round + 1, 'tc');
  }

  /** The first time this node learns a QC for a block it holds: 'certified' with the wait since the block arrived. */
  private noteCertified(b: Block): void {
    const latencyMs = this.c.times.markCertified(b.hash, this.c.clock.now());
    if (latencyMs !== undefined) this.c.emit('certified', { block: b, latencyMs });
  }
}
