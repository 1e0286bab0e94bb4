/**
 * A sliding-window counter per key, in memory: `hit` records an attempt, `retryAfter` says how
 * long a key must wait once it has `max` attempts inside `windowMs`. The plugins use it for
 * login-like routes (by account, by remote address). It does not survive a restart, and the
 * oldest keys are forgotten first past a bound, so it cannot grow without limit.
 */

export interface ThrottleRule {
  max: number;
  windowMs: number;
}

/** keys tracked at most; the oldest are forgotten first */
const MAX_KEYS = 100_000;

export class Throttle {
  private readonly hits = new Map<string, number[]>();

  constructor(
    private readonly rule: ThrottleRule,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds until `key` may try again; 0 when it may now. */
  retryAfter(key: string): number {
    const live = this.live(key);
    if (live.length < this.rule.max) return 0;
    return Math.max(1, Math.ceil((live[live.length - this.rule.max]! + this.rule.windowMs - this.now()) / 1000));
  }

  hit(key: string): void {
    const live = this.live(key);
    live.push(this.now());
    if (live.length > this.rule.max) live.splice(0, live.length - this.rule.max);
    this.hits.delete(key);
    this.hits.set(key, live);
    if (this.hits.size > MAX_KEYS) this.hits.delete(this.hits.keys().next().value!);
  }

  clear(key: string): void {
    this.hits.delete(key);
  }

  private live(key: string): number[] {
    const since = this.now() - this.rule.windowMs;
    return (this.hits.get(key) ?? []).filter((at) => at > since);
  }
}
