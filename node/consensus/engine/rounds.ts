import { timeoutDigest } from '../crypto.js';
import type { RoundEntry } from '../pacemaker.js';
import * as rules from '../safety.js';
import type { Timeout } from '../types.js';
import type { EngineCore, EngineSteps } from './core.js';

/**
 * Moving through rounds: entering one (by QC, TC or start), and leaving one by timeout, this
 * node's own (signed once per round, sent again while the round lasts) and other validators'.
 */
export class Rounds {
  constructor(
    private readonly c: EngineCore,
    private readonly steps: Pick<EngineSteps, 'processQc' | 'processTc' | 'scheduleProposal'>,
  ) {}

  advance(round: number, via: RoundEntry): void {
    const c = this.c;
    if (!c.pacemaker.enter(round, via)) return;
    c.ep.votes.prune(round - 1);
    c.ep.timeouts.prune(round - 1);
    for (const r of c.proposalsSeen.keys()) if (r < round - 16) c.proposalsSeen.delete(r);
    for (const r of c.ownTimeouts.keys()) if (r < round) c.ownTimeouts.delete(r);
    c.backup.prune(round);
    c.emit('round', { round, via });
    this.steps.scheduleProposal(round);
  }

  /** The pacemaker timed `round` out: sign a timeout (once per round) and send it. */
  async localTimeout(round: number): Promise<void> {
    const c = this.c;
    if (!c.isValidator || c.haltReport || round !== c.pacemaker.round) return;
    let t = c.ownTimeouts.get(round);
    if (!t) {
      if (!rules.safeToTimeout(c.safety, round)) return;
      await c.setSafety(rules.recordTimeout(c.safety, round));
      const highQc = c.safety.highQc;
      t = { round, highQc, voter: c.me, signature: c.o.self.crypto.sign(timeoutDigest(c.o.chainId, c.ep.epoch, round, highQc.round)) };
      c.ownTimeouts.set(round, t);
      c.m.timeouts++;
      c.emit('timeout', { round });
    }
    c.o.transport.broadcast(c.msg({ type: 'timeout', timeout: t }));
    await this.onTimeout(c.me, t, true);
  }

  async onTimeout(from: Uint8Array, t: Timeout, trusted: boolean): Promise<void> {
    const c = this.c;
    if (c.validators.indexOf(t.voter) === undefined) return c.drop('non-validator');
    if (!trusted && !c.verifier.verifyQc(t.highQc)) return c.drop('bad-qc', from);
    const ep = c.ep;
    if (!trusted) await this.steps.processQc(t.highQc, from);
    if (c.ep !== ep) return;
    if (t.round < c.pacemaker.round) {
      // The sender is behind: hand it the TC that moved us on, if we have one.
      const tc = c.safety.highTc;
      if (!trusted && tc && tc.round >= t.round) c.o.transport.send(from, c.msg({ type: 'tc', tc }));
      return;
    }
    const res = c.ep.timeouts.add(t, trusted);
    for (let i = 0; i < res.rejected; i++) c.drop('bad-timeout', from);
    if (res.tc) {
      c.verifier.rememberTc(res.tc);
      c.m.tcsFormed++;
      c.emit('tc', res.tc);
      return this.steps.processTc(res.tc);
    }
    // More than 1/3 gave up on this round: at least one honest validator did, so join it.
    if (c.isValidator && !c.ownTimeouts.has(t.round) && c.validators.isValidity(c.ep.timeouts.weight(t.round))) {
      if (t.round > c.pacemaker.round) this.advance(t.round, 'tc');
      await this.localTimeout(t.round);
    }
  }
}
