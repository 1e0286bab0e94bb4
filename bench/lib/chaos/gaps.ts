import type { RpcClient } from '../../../node/client/index.js';
import { percentile } from '../stats.js';

export interface GapSummary {
  /** new heads seen (a poll may see several blocks at once: they count as one) */
  commits: number;
  blocks: number;
  p50_ms: number | null;
  /** the longest time without a commit, including one still running when the meter stopped */
  max_ms: number | null;
}

/**
 * Follows one node's canonical head (polled every `pollMs`: without plugins a node has no
 * subscription) and records the time between polls that saw it move. The first gap runs from
 * start(), the moment of a kill.
 */
export class CommitGapMeter {
  private readonly gaps: number[] = [];
  private startSeq = 0;
  private seq = 0;
  private last = 0;
  private stopped = false;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly client: RpcClient,
    private readonly pollMs = 20,
  ) {}

  async start(): Promise<void> {
    this.last = performance.now();
    this.startSeq = this.seq = (await this.client.canonHead())?.seq ?? 0;
    this.loop = this.run();
  }

  async stop(): Promise<GapSummary> {
    this.stopped = true;
    await this.loop;
    const open = performance.now() - this.last;
    const sorted = [...this.gaps].sort((a, b) => a - b);
    const r = (v: number) => Math.round(v);
    return {
      commits: this.gaps.length,
      blocks: this.seq - this.startSeq,
      p50_ms: sorted.length > 0 ? r(percentile(sorted, 50)) : null,
      max_ms: r(Math.max(open, sorted.at(-1) ?? 0)),
    };
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        const seq = (await this.client.canonHead())?.seq ?? 0;
        if (seq > this.seq) {
          const now = performance.now();
          this.gaps.push(now - this.last);
          this.last = now;
          this.seq = seq;
        }
      } catch {
        // a busy node may time out a poll: the gap just reads longer
      }
      await new Promise((r) => setTimeout(r, this.pollMs));
    }
  }
}
