/**
 * How late the event loop runs, measured by a timer: each tick expects to fire `intervalMs` after
 * the previous one, and the lag is how much later it actually fired. Cheap (one timer, no
 * histogram) and it answers "now": a loop blocked right now shows as the next tick being overdue,
 * before that tick can run.
 */
export class EventLoopLagSampler {
  private timer: NodeJS.Timeout | undefined;
  private expected = 0;
  private last = 0;

  constructor(
    private readonly intervalMs = 100,
    private readonly now: () => number = () => performance.now(),
  ) {}

  start(): this {
    if (this.timer === undefined) this.schedule();
    return this;
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** The lag in ms: the last tick's delay, or how overdue the next tick already is, whichever is larger. */
  lagMs(): number {
    if (this.timer === undefined) return 0;
    return Math.max(this.last, this.now() - this.expected);
  }

  private schedule(): void {
    this.expected = this.now() + this.intervalMs;
    this.timer = setTimeout(() => {
      this.last = Math.max(0, this.now() - this.expected);
      this.schedule();
    }, this.intervalMs);
    // the sampler must never keep a process alive
    this.timer.unref();
  }
}
