import { MINUTE, Mutex, SEP, checkCount, seriesBuckets } from './shared.js';
import type { Counters } from './types.js';

/**
 * The per-minute counters of both store backends. `add` only counts in memory; the counts reach
 * the store on `flush()`, on `close()` and every `flushMs` (5 s) from an unref'd timer, so a
 * process killed with SIGKILL loses at most the last seconds of throughput counts: an accepted
 * trade-off for a statistic that would otherwise cost a write per message. `series` and `flush`
 * run under one lock, so a series never counts a flushing minute twice or not at all. A backend
 * says how it reads stored minutes and adds a batch to them.
 */
export abstract class BufferedCounters implements Counters {
  /** `tenant SEP name SEP minute` → count not yet flushed */
  protected unflushed = new Map<string, number>();
  private readonly lock = new Mutex();
  private readonly timer: NodeJS.Timeout;

  constructor(flushMs: number, onError: (err: unknown) => void) {
    this.timer = setInterval(() => {
      this.flush().catch(onError);
    }, flushMs);
    this.timer.unref();
  }

  /** true once the store is closed: counts are dropped */
  protected abstract get closed(): boolean;
  /** the minute as it is written in a key (LevelDB pads it, so that keys sort by time) */
  protected abstract minuteText(minute: number): string;
  /** the stored counts of the minutes from `first` to `last` */
  protected abstract stored(tenantId: string, name: string, first: number, last: number): Promise<Array<[minute: number, n: number]>>;
  /** adds `batch` to the stored counts, all of it or none */
  protected abstract persist(batch: ReadonlyMap<string, number>): Promise<void>;
  /** how a read runs (Postgres tracks it for close) */
  protected read<T>(fn: () => Promise<T>): Promise<T> {
    return fn();
  }

  /** Counts `n` (default 1) for the minute of `at`. After `close()` counts are dropped. */
  add(tenantId: string, name: string, at: number, n = 1): void {
    if (!checkCount(tenantId, name, at, n) || this.closed) return;
    const k = [tenantId, name, this.minuteText(Math.floor(at / MINUTE))].join(SEP);
    this.unflushed.set(k, (this.unflushed.get(k) ?? 0) + n);
  }

  async series(tenantId: string, name: string, from: number, to: number, bucketMs: number): Promise<number[]> {
    const { out, firstMinute, lastMinute, place } = seriesBuckets(tenantId, name, from, to, bucketMs);
    if (out.length === 0) return out;
    const prefix = tenantId + SEP + name + SEP;
    return this.read(() =>
      this.lock.run(async () => {
        for (const [minute, n] of await this.stored(tenantId, name, firstMinute, lastMinute)) place(minute, n);
        for (const [k, n] of this.unflushed) if (k.startsWith(prefix)) place(Number(k.slice(prefix.length)), n);
        return out;
      }),
    );
  }

  /** Adds the counts made since the last flush to the stored totals, in one write. */
  flush(): Promise<void> {
    return this.lock.run(async () => {
      if (this.unflushed.size === 0) return;
      const batch = this.unflushed;
      this.unflushed = new Map();
      try {
        await this.persist(batch);
      } catch (err) {
        // keep them for the next flush
        for (const [k, n] of batch) this.unflushed.set(k, (this.unflushed.get(k) ?? 0) + n);
        throw err;
      }
    });
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
