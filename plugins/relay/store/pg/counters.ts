import { BufferedCounters } from '../buffered-counters.js';
import { SEP } from '../shared.js';
import { PgCore, closedError } from './core.js';

/**
 * Per-minute counters in `relay_counters` (buffered-counters.ts). A flush adds the counts to the
 * stored totals (an upsert that adds), so the counts of every instance sum. A series holds the
 * stored totals plus this instance's unflushed counts (not another instance's).
 */
export class PgCounters extends BufferedCounters {
  constructor(
    private readonly c: PgCore,
    flushMs: number,
    onError: (err: unknown) => void,
  ) {
    super(flushMs, onError);
  }

  protected get closed(): boolean {
    return this.c.closed;
  }

  protected minuteText(minute: number): string {
    return String(minute);
  }

  protected override read<T>(fn: () => Promise<T>): Promise<T> {
    return this.c.run(fn);
  }

  protected async stored(tenantId: string, name: string, first: number, last: number): Promise<Array<[number, number]>> {
    const sql = 'SELECT minute, n FROM relay_counters WHERE tenant_id = $1 AND name = $2 AND minute BETWEEN $3 AND $4';
    const { rows } = await this.c.db.query<{ minute: number; n: number }>(sql, [tenantId, name, first, last]);
    return rows.map((r) => [Number(r.minute), Number(r.n)]);
  }

  protected async persist(batch: ReadonlyMap<string, number>): Promise<void> {
    if (this.c.ended) throw closedError();
    // sorted, so two instances' flushes lock the rows they share in the same order
    const keys = [...batch.keys()].sort().map((k) => k.split(SEP));
    await this.c.db.query(
      `INSERT INTO relay_counters (tenant_id, name, minute, n) SELECT * FROM unnest($1::text[], $2::text[], $3::int8[], $4::float8[])
       ON CONFLICT (tenant_id, name, minute) DO UPDATE SET n = relay_counters.n + EXCLUDED.n`,
      [keys.map((k) => k[0]), keys.map((k) => k[1]), keys.map((k) => Number(k[2])), keys.map((k) => batch.get(k.join(SEP))!)],
    );
  }
}
