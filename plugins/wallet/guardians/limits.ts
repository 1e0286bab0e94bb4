import type { ThrottleRule } from '../../common/http/throttle.js';
import { KeyedSerial } from '../../common/http/router.js';
import { key, type PluginDb, type Table } from '../../common/store/tables.js';

/**
 * Sliding-window counters kept in the wallet's store, so that restarting the node hands nobody a
 * fresh allowance (the in-memory Throttle of plugins/common forgets everything at a restart).
 *
 * Table `recovery-limits` (json): <rule> SEP <subject> -> {hits, expiresAt}. `hits` are the
 * times (Unix ms) of the subject's counted attempts inside the window, oldest first, at most the
 * rule's `max`: a refused attempt is not recorded, so a record never grows past it. `expiresAt`
 * is when the newest hit leaves the window; `sweep` deletes the records past it.
 */

interface Hits {
  hits: number[];
  expiresAt: number;
}

const TABLE = 'recovery-limits';

export class StoredThrottle {
  private readonly table: Table<Hits>;
  private readonly serial = new KeyedSerial();

  constructor(
    db: PluginDb,
    /** names the rule's records, so several rules share the table */
    private readonly rule: string,
    private readonly limit: ThrottleRule,
    private readonly now: () => number,
  ) {
    this.table = db.json<Hits>(TABLE);
  }

  /** Counts an attempt by `subject` unless it is over the limit: then the seconds it must wait (0: counted). */
  take(subject: string): Promise<number> {
    const k = key(this.rule, subject);
    return this.serial.run(k, async () => {
      const now = this.now();
      const live = ((await this.table.get(k))?.hits ?? []).filter((at) => at > now - this.limit.windowMs);
      if (live.length >= this.limit.max) return Math.max(1, Math.ceil((live[live.length - this.limit.max]! + this.limit.windowMs - now) / 1000));
      live.push(now);
      await this.table.put(k, { hits: live, expiresAt: now + this.limit.windowMs });
      return 0;
    });
  }

  /** Deletes every rule's records whose window has passed; how many. */
  static async sweep(db: PluginDb, now: number): Promise<number> {
    const table = db.json<Hits>(TABLE);
    const batch = db.batch();
    for await (const [k, r] of table.entries()) if (r.expiresAt <= now) batch.del(table, k);
    const n = batch.size;
    await batch.write();
    return n;
  }
}
