/**
 * The pacemaker: how long a round may last before this validator times out. The timeout is the
 * base, or a multiple of how long recent rounds took when that is longer (a busy network's
 * leaders are slow, not dead); it grows by `multiplier` per consecutive round that ended without
 * a QC and resets when a QC shows progress. After firing, it fires again every `retransmitMs`
 * until the round changes, so a timeout lost on the wire is sent again. The clock is injected so
 * tests can drive time.
 */

export interface TimerHandle {
  cancel(): void;
}

export interface Clock {
  now(): number;
  setTimer(ms: number, fn: () => void): TimerHandle;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(ms, fn) {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return { cancel: () => clearTimeout(t) };
  },
};

/** A clock that only moves when told to: `advance(ms)` fires the timers that fall due, in order. */
export class ManualClock implements Clock {
  private t = 0;
  private seq = 0;
  private timers = new Map<number, { at: number; fn: () => void }>();

  constructor(start = 0) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  setTimer(ms: number, fn: () => void): TimerHandle {
    const id = this.seq++;
    this.timers.set(id, { at: this.t + Math.max(0, ms), fn });
    return { cancel: () => this.timers.delete(id) };
  }

  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      let next: [number, { at: number; fn: () => void }] | undefined;
      for (const e of this.timers) if (e[1].at <= end && (!next || e[1].at < next[1].at)) next = e;
      if (!next) break;
      this.timers.delete(next[0]);
      this.t = next[1].at;
      next[1].fn();
    }
    this.t = end;
  }

  get pending(): number {
    return this.timers.size;
  }
}

export interface PacemakerConfig {
  /** the first round timeout; keep it well above idleBlockIntervalMs */
  baseTimeoutMs: number;
  multiplier: number;
  maxTimeoutMs: number;
  /** how often a fired timeout is sent again while the round does not change */
  retransmitMs: number;
  /** a round's timeout is at least this many times the p95 of the recent rounds that ended with a QC; 0: off */
  adaptiveFactor?: number;
}

/** How many rounds ended by a QC the adaptive timeout looks back over, and the fewest it needs. */
export const ROUND_SAMPLES = 64;
export const MIN_ROUND_SAMPLES = 8;

/**
 * Everything scales with the first timeout: backoff by 1.5 per round ended by TC up to 10 times
 * the base, and a fired timeout sent again every half base. docs/consensus.md ("Pacemaker") has
 * the measurements these come from.
 */
export function pacemakerConfig(baseTimeoutMs: number): PacemakerConfig {
  return { baseTimeoutMs, multiplier: 1.5, maxTimeoutMs: 10 * baseTimeoutMs, retransmitMs: Math.round(baseTimeoutMs / 2), adaptiveFactor: 4 };
}

export const DEFAULT_PACEMAKER: PacemakerConfig = pacemakerConfig(2_000);

/**
 * max(base, adaptiveFactor × p95 of `recentRoundsMs`) × multiplier^failures, capped. The recent
 * rounds count once there are MIN_ROUND_SAMPLES of them.
 */
export function roundTimeoutMs(cfg: PacemakerConfig, consecutiveFailures: number, recentRoundsMs: readonly number[] = []): number {
  let first = cfg.baseTimeoutMs;
  if (cfg.adaptiveFactor && recentRoundsMs.length >= MIN_ROUND_SAMPLES) {
    const sorted = [...recentRoundsMs].sort((a, b) => a - b);
    first = Math.max(first, cfg.adaptiveFactor * sorted[Math.ceil(0.95 * sorted.length) - 1]!);
  }
  return Math.min(cfg.maxTimeoutMs, Math.round(first * cfg.multiplier ** consecutiveFailures));
}

export type RoundEntry = 'qc' | 'tc' | 'start' | 'epoch';

export class Pacemaker {
  private current = 0;
  private failures = 0;
  private timer: TimerHandle | undefined;
  private enteredAt: number | undefined;
  /** how long the last rounds that ended with a QC lasted here, ms (a ring of ROUND_SAMPLES) */
  private readonly rounds: number[] = [];
  private nextSample = 0;

  constructor(
    private readonly cfg: PacemakerConfig,
    private readonly clock: Clock,
    private readonly onTimeout: (round: number) => void,
  ) {}

  get round(): number {
    return this.current;
  }

  get consecutiveFailures(): number {
    return this.failures;
  }

  /** The timeout a round entered now would get, before any failure. */
  get timeoutMs(): number {
    return roundTimeoutMs(this.cfg, 0, this.rounds);
  }

  /** Enter `round` (ignored unless it is higher); a QC resets the backoff, a TC grows it. */
  enter(round: number, via: RoundEntry): boolean {
    if (round <= this.current) return false;
    const now = this.clock.now();
    // a round this node saw from its start to its QC; a jump (catching up) says nothing about its length
    if (via === 'qc' && round === this.current + 1 && this.enteredAt !== undefined) this.sample(now - this.enteredAt);
    this.enteredAt = now;
    if (via === 'qc') this.failures = 0;
    else if (via === 'tc') this.failures++;
    this.current = round;
    this.arm(roundTimeoutMs(this.cfg, this.failures, this.rounds));
    return true;
  }

  /** A new epoch: rounds run on from its start block, which may lie below the current round. */
  restart(round: number): void {
    this.current = round;
    this.failures = 0;
    this.enteredAt = this.clock.now();
    this.arm(roundTimeoutMs(this.cfg, 0, this.rounds));
  }

  private sample(ms: number): void {
    if (this.rounds.length < ROUND_SAMPLES) this.rounds.push(ms);
    else this.rounds[this.nextSample] = ms;
    this.nextSample = (this.nextSample + 1) % ROUND_SAMPLES;
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }

  private arm(ms: number): void {
    this.timer?.cancel();
    const round = this.current;
    this.timer = this.clock.setTimer(ms, () => {
      if (round !== this.current) return;
      this.arm(this.cfg.retransmitMs);
      this.onTimeout(round);
    });
  }
}
