/**
 * The pacemaker: how long a round may last before this validator times out. The timeout grows
 * by `multiplier` per consecutive round that ended without a QC and resets when a QC shows
 * progress. After firing, it fires again every `retransmitMs` until the round changes, so a
 * timeout lost on the wire is sent again. The clock is injected so tests can drive time.
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
}

/**
 * Everything scales with the first timeout: backoff by 1.5 per round ended by TC up to 10 times
 * the base, and a fired timeout sent again every half base. docs/consensus.md ("Pacemaker") has
 * the measurements these come from.
 */
export function pacemakerConfig(baseTimeoutMs: number): PacemakerConfig {
  return { baseTimeoutMs, multiplier: 1.5, maxTimeoutMs: 10 * baseTimeoutMs, retransmitMs: Math.round(baseTimeoutMs / 2) };
}

export const DEFAULT_PACEMAKER: PacemakerConfig = pacemakerConfig(2_000);

/** base × multiplier^failures, capped. */
export function roundTimeoutMs(cfg: PacemakerConfig, consecutiveFailures: number): number {
  return Math.min(cfg.maxTimeoutMs, Math.round(cfg.baseTimeoutMs * cfg.multiplier ** consecutiveFailures));
}

export type RoundEntry = 'qc' | 'tc' | 'start' | 'epoch';

export class Pacemaker {
  private current = 0;
  private failures = 0;
  private timer: TimerHandle | undefined;

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

  /** Enter `round` (ignored unless it is higher); a QC resets the backoff, a TC grows it. */
  enter(round: number, via: RoundEntry): boolean {
    if (round <= this.current) return false;
    if (via === 'qc') this.failures = 0;
    else if (via === 'tc') this.failures++;
    this.current = round;
    this.arm(roundTimeoutMs(this.cfg, this.failures));
    return true;
  }

  /** A new epoch: rounds run on from its start block, which may lie below the current round. */
  restart(round: number): void {
    this.current = round;
    this.failures = 0;
    this.arm(roundTimeoutMs(this.cfg, 0));
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
