import type { RateVerdict } from './types.js';

/**
 * The per-DID envelope limit of one instance (`rate_limit_per_did_per_min`): a fixed one-minute
 * window per DID, in memory. A restart forgives the current minute, which is the right trade for
 * a limit that guards CPU, not money. Idle DIDs are dropped so a flood of distinct senders cannot
 * grow the map without bound. Several instances share their windows in Redis instead.
 */

const WINDOW_MS = 60_000;

export class RateWindows {
  private windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly opts: { now?: () => number; maxKeys?: number } = {}) {}

  private now(): number {
    return this.opts.now?.() ?? Date.now();
  }

  hit(did: string, limitPerMin: number): RateVerdict {
    const now = this.now();
    let w = this.windows.get(did);
    if (!w || now - w.start >= WINDOW_MS) {
      if (!w && this.windows.size >= (this.opts.maxKeys ?? 100_000)) this.sweep(now);
      w = { start: now, count: 0 };
      this.windows.set(did, w);
    }
    const retryAfter = this.secondsLeft(w.start, now);
    if (w.count >= limitPerMin) return { allowed: false, retryAfter, count: w.count };
    w.count++;
    return { allowed: true, retryAfter, count: w.count };
  }

  /** seconds until `did`'s current window ends (at least 1) */
  retryAfter(did: string): number {
    const now = this.now();
    return this.secondsLeft(this.windows.get(did)?.start ?? now, now);
  }

  private secondsLeft(start: number, now: number): number {
    return Math.max(1, Math.ceil((start + WINDOW_MS - now) / 1000));
  }

  /** envelopes counted for `did` in the current minute */
  current(did: string): number {
    const w = this.windows.get(did);
    return w && this.now() - w.start < WINDOW_MS ? w.count : 0;
  }

  private sweep(now: number): void {
    for (const [did, w] of this.windows) if (now - w.start >= WINDOW_MS) this.windows.delete(did);
  }
}
