import type { AbstractBatchOperation } from 'abstract-level';
import { unavailable, type LedgerError } from '../../../node/errors.js';
import type { BinarySublevel } from '../../../node/state/db.js';

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

/**
 * Group commit: one synced LevelDB batch (`sync: true`, an fsync of the write-ahead log) in flight
 * at a time; the writes queued while it runs go together in the next one. `add` resolves once the
 * batch holding its ops is synced, so an answer awaited on it is on disk. A failed batch fails its
 * waiters and the batch queued behind it (whose stored counts were computed on top of it); then
 * `onFail` runs, before any later write is queued.
 */
export class GroupCommit {
  private queued: Group | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly db: BinarySublevel,
    private readonly onFail: () => void,
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
        const failure = unavailable('RELAY_STORE_SYNC_FAILED', `the relay store could not write and sync its batch: ${(err as Error).message}`, { retryAfterSeconds: 1 });
        g.reject(failure);
        // queued while this batch ran: its counts were computed on top of it
        (this.queued as Group | null)?.reject(failure);
        this.queued = null;
        this.onFail();
      }
    }
    this.running = null;
  }
}
