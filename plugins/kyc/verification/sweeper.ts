import type { Logger } from '../../../node/logging.js';

/**
 * Expires sessions whose expiresAt has passed, then deletes the images of final sessions past the
 * evidence retention (retention.ts), every `intervalMs` (plugins.kyc.sweepIntervalMs).
 * Runs never overlap; stop() waits for a run under way, so the database can close after it.
 */
export class Sweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly sessions: { expireDue(now: number): Promise<number> },
    private readonly opts: { intervalMs: number; now: () => number; log: Pick<Logger, 'info' | 'warn'> },
    private readonly retention?: { purgeDue(now: number): Promise<number> },
  ) {}

  start(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => void this.sweep(), this.opts.intervalMs);
    this.timer.unref();
  }

  /** One pass now (also what the timer runs); a pass already under way is joined, not repeated. */
  sweep(): Promise<void> {
    if (this.running) return this.running;
    const run = (async () => {
      try {
        const n = await this.sessions.expireDue(this.opts.now());
        if (n > 0) this.opts.log.info({ expired: n }, 'verification sessions expired');
        const purged = (await this.retention?.purgeDue(this.opts.now())) ?? 0;
        if (purged > 0) this.opts.log.info({ sessions: purged }, 'verification images deleted after the retention period');
      } catch (err) {
        this.opts.log.warn({ err }, 'verification session sweep failed; retried at the next interval');
      } finally {
        this.running = undefined;
      }
    })();
    this.running = run;
    return run;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
