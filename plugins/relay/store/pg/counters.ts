import { invalid } from '../../../../node/errors.js';
import { MAX_TIME, Mutex, SEP, int, part } from '../shared.js';
import type { Counters } from '../types.js';
import { PgCore, closedError } from './core.js';

const MINUTE = 60_000;
/** the most buckets one `series` call may ask for */
const MAX_BUCKETS = 100_000;

/**
 * Per-minute counters in `relay_counters`. As in the LevelDB store, `add` only counts in memory;
 * the counts reach Postgres on `flush()`, on `close()` and every `flushMs` (5 s). A flush adds
 * them to the stored totals (an upsert that adds), so the counts of every instance sum. A series
 * holds the stored totals plus this instance's unflushed counts (not another instance's). `series`
 * and `flush` run under one lock, so a series never counts a flushing minute twice or not at all.
 */
export class PgCounters implements Counters {
  private unflushed = new Map<string, number>();
  private readonly lock = new Mutex();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly c: PgCore,
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
    const k = [tenantId, name, Math.floor(at / MINUTE)].join(SEP);
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
    const prefix = tenantId + SEP + name + SEP;
    const sql = 'SELECT minute, n FROM relay_counters WHERE tenant_id = $1 AND name = $2 AND minute BETWEEN $3 AND $4';
    return this.c.run(() =>
      this.lock.run(async () => {
        const { rows } = await this.c.db.query<{ minute: number; n: number }>(sql, [tenantId, name, firstMinute, lastMinute]);
        for (const r of rows) place(Number(r.minute), Number(r.n));
        for (const [k, n] of this.unflushed) if (k.startsWith(prefix)) place(Number(k.slice(prefix.length)), n);
        return out;
      }),
    );
  }

  /** Adds the counts made since the last flush to the stored totals, in one statement. */
  flush(): Promise<void> {
    return this.lock.run(async () => {
      if (this.unflushed.size === 0) return;
      if (this.c.ended) throw closedError();
      const batch = this.unflushed;
      this.unflushed = new Map();
      // sorted, so two instances' flushes lock the rows they share in the same order
      const keys = [...batch.keys()].sort().map((k) => k.split(SEP));
      try {
        await this.c.db.query(
          `INSERT INTO relay_counters (tenant_id, name, minute, n) SELECT * FROM unnest($1::text[], $2::text[], $3::int8[], $4::float8[])
           ON CONFLICT (tenant_id, name, minute) DO UPDATE SET n = relay_counters.n + EXCLUDED.n`,
          [keys.map((k) => k[0]), keys.map((k) => k[1]), keys.map((k) => Number(k[2])), keys.map((k) => batch.get(k.join(SEP))!)],
        );
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
