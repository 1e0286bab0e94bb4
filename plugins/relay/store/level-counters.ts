import { BufferedCounters } from './buffered-counters.js';
import { Core, SEP, Tx, pad } from './level-core.js';

/** Per-minute counters `c/<tenant>·<name>·<minute 10>` -> total (buffered-counters.ts). */
export class LevelCounters extends BufferedCounters {
  constructor(
    private readonly c: Core,
    flushMs: number,
    onError: (err: unknown) => void,
  ) {
    super(flushMs, onError);
  }

  protected get closed(): boolean {
    return this.c.closed;
  }

  protected minuteText(minute: number): string {
    return pad(minute, 10);
  }

  protected async stored(tenantId: string, name: string, first: number, last: number): Promise<Array<[number, number]>> {
    const prefix = [tenantId, name, ''].join(SEP);
    const out: Array<[number, number]> = [];
    for await (const [k, n] of this.c.s.c.iterator({ gte: prefix + pad(first, 10), lte: prefix + pad(last, 10) })) out.push([Number(k.slice(prefix.length)), n]);
    return out;
  }

  /** Unsynced: the counts of the last seconds may be lost anyway (docs/relay.md, "Durability"). */
  protected persist(batch: ReadonlyMap<string, number>): Promise<void> {
    return this.c.write(async () => {
      const keys = [...batch.keys()];
      const stored = await this.c.s.c.getMany(keys);
      const tx = new Tx();
      keys.forEach((k, j) => tx.put(this.c.s.c, k, (stored[j] ?? 0) + batch.get(k)!));
      await this.c.commit(tx);
    }, 'unsynced');
  }
}
