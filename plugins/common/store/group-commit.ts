import type { AbstractBatchOperation, AbstractLevel } from 'abstract-level';
import type { LedgerError } from '../../../node/errors.js';

type Op = AbstractBatchOperation<any, any, any>;

interface Group {
  ops: Op[];
  done: Promise<void>;
  resolve: () => void;
  reject: (err: LedgerError) => void;
}

function group(): Group {
  let resolve!: () => void;
  let reject!: (err: LedgerError) => void;
  const done = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // a waiter may be gone (its write failed before awaiting); the rejection is not lost with it
  done.catch(() => undefined);
  return { ops: [], done, resolve, reject };
}

export interface GroupCommitOptions {
  /** what the waiters of a failed batch get: an `unavailable` error with the store's stable code */
  failure: (err: Error) => LedgerError;
  /** runs after a failed batch, before any later write is queued (a cache computed on top of it is void) */
  onFail?: () => void;
}

/**
 * Group commit on a LevelDB store: one synced batch (`sync: true`, an fsync of the write-ahead
 * log) in flight at a time; the writes queued while it runs go together in the next one, so a
 * burst costs one fsync per batch, not one per write. `add` resolves once the batch holding its
 * ops is synced, so an answer awaited on it is on disk. A failed batch fails its waiters and the
 * batch queued behind it (whose writes may have been prepared on top of it); then `onFail` runs.
 * Used by the relay's store and the webhook outbox (docs/relay.md and docs/webhooks.md, "Durability").
 */
export class GroupCommit {
  private queued: Group | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly db: AbstractLevel<any, any, any>,
    private readonly opts: GroupCommitOptions,
  ) {}

  add(ops: readonly Op[]): Promise<void> {
    this.queued ??= group();
    this.queued.ops.push(...ops);
    const { done } = this.queued;
    this.running ??= this.run();
    return done;
  }

  /** Resolves once nothing is queued or being written (whatever the outcome). */
  async drained(): Promise<void> {
    while (this.running) await this.running;
  }

  get idle(): boolean {
    return this.running === null;
  }

  private async run(): Promise<void> {
    // let the writer that started this run finish its turn before the batch is cut
    await Promise.resolve();
    while (this.queued) {
      const g = this.queued;
      this.queued = null;
      try {
        // `sync` is a classic-level batch option (abstract-level's types do not list it)
        await this.db.batch(g.ops as never, { sync: true } as never);
        g.resolve();
      } catch (err) {
        const failure = this.opts.failure(err as Error);
        g.reject(failure);
        // queued while this batch ran: it may have been prepared on top of it
        (this.queued as Group | null)?.reject(failure);
        this.queued = null;
        this.opts.onFail?.();
      }
    }
    this.running = null;
  }
}
