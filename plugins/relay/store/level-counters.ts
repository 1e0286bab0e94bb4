import { invalid } from '../../../node/errors.js';
import { Core, MAX_TIME, Mutex, SEP, Tx, int, join, pad, part } from './level-core.js';
import type { Counters } from './types.js';

const MINUTE = 60_000;
/** the most buckets one `series` call may ask for */
const MAX_BUCKETS = 100_000;

/**
 * Per-minute counters `c/<tenant>·<name>·<minute 10>` -> total. `add` only counts in memory; the
 * counts reach LevelDB on `flush()`, on `close()` and every `flushMs` (5 s) from an unref'd timer.
 * So a process killed with SIGKILL loses at most the last few seconds of throughput counts: an
 * accepted trade-off for a statistic that would otherwise cost a write per message.
 * `series` and `flush` run under one lock, so a series never counts a flushing minute twice or
 * not at all.
 */
export class LevelCounters implements Counters {
  private unflushed = new Map<string, number>();
  private readonly lock = new Mutex();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly c: Core,
    flushMs: number,
    onError: (err: unknown) => void,
  ) {
    this.timer = setInterval(() => {
      this.flush().catch(onError);
    }, flushMs);
    this.timer.unref();
  }

  /** Counts `n` (default 1) for the minute of `at`. After `close()` counts are dropped. */
  add(tenantId: string, name: string, at: number, n = 1): void {
    part('tenantId', tenantId);
    part('name', name);
    int('at', at, MAX_TIME);
    if (typeof n !== 'number' || !Number.isFinite(n)) throw invalid('RELAY_BAD_NUMBER', 'a counter adds a finite number');
    if (this.c.closed || n === 0) return;
    const k = join(tenantId, name, pad(Math.floor(at / MINUTE), 10));
    this.unflushed.set(k, (this.unflushed.get(k) ?? 0) + n);
  }

  async series(tenantId: string, name: string, from: number, to: number, bucketMs: number): Promise<number[]> {
    part('tenantId', tenantId);
    part('name', name);
    int('from', from, MAX_TIME);
    int('to', to, MAX_TIME);
    if (int('bucketMs', bucketMs) === 0) throw invalid('RELAY_BAD_NUMBER', 'bucketMs must be positive');
    if (to <= from) return [];
    const buckets = Math.ceil((to - from) / bucketMs);
    if (buckets > MAX_BUCKETS) throw invalid('RELAY_TOO_MANY_BUCKETS', `a series has at most ${MAX_BUCKETS} buckets`);
    const out = new Array<number>(buckets).fill(0);
    const firstMinute = Math.floor(from / MINUTE);
    const lastMinute = Math.floor((to - 1) / MINUTE);
    // a minute counts in the bucket holding its start (or `from`, for the minute `from` falls in)
    const place = (minute: number, n: number): void => {
      if (minute < firstMinute || minute > lastMinute) return;
      out[Math.floor((Math.max(minute * MINUTE, from) - from) / bucketMs)]! += n;
    };
    const prefix = join(tenantId, name) + SEP;
    return this.lock.run(async () => {
      const range = { gte: prefix + pad(firstMinute, 10), lte: prefix + pad(lastMinute, 10) };
      for await (const [k, n] of this.c.s.c.iterator(range)) place(Number(k.slice(prefix.length)), n);
      for (const [k, n] of this.unflushed) if (k.startsWith(prefix)) place(Number(k.slice(prefix.length)), n);
      return out;
    });
  }

  /** Adds the counts made since the last flush to the stored totals, in one batch. */
  flush(): Promise<void> {
    return this.lock.run(async () => {
      if (this.unflushed.size === 0) return;
      const batch = this.unflushed;
      this.unflushed = new Map();
      try {
        const keys = [...batch.keys()];
        const stored = await this.c.s.c.getMany(keys);
        const tx = new Tx();
        keys.forEach((k, j) => tx.put(this.c.s.c, k, (stored[j] ?? 0) + batch.get(k)!));
        await this.c.commit(tx);
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
