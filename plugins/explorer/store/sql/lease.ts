import type { SqlClient } from '../../../common/sql/types.js';

/**
 * Which of several explorer instances on one Postgres index writes: the one holding the lease
 * row `explorer.index_writer`, renewed well within its time to live. Times are the database's
 * clock (`now()`), so instances need not agree on theirs. An instance that stops releases the
 * lease and another takes it at its next try; one that dies holds it until it expires.
 *
 * The lease only keeps the others from doing the work twice: what keeps the index exact is the
 * writer's check of the cursor in each batch's transaction (writer.ts), which refuses a batch
 * if anyone else moved it, whatever an instance believes about its lease.
 */
export class WriterLease {
  constructor(
    private readonly db: SqlClient,
    /** this instance, as the row names it: host, pid and a random part */
    readonly holder: string,
    private readonly ttlMs: number,
  ) {}

  /** Takes the lease if it is free or expired, or renews it if held; true when this instance holds it. */
  async acquire(): Promise<boolean> {
    const { rows } = await this.db.query(
      "UPDATE explorer.index_writer SET holder = $1, expires_at = now() + $2 * interval '1 millisecond' WHERE holder = $1 OR expires_at < now() RETURNING holder",
      [this.holder, this.ttlMs],
    );
    return rows.length === 1;
  }

  /** Lets another instance take the lease at once. */
  async release(): Promise<void> {
    await this.db.query("UPDATE explorer.index_writer SET expires_at = '-infinity' WHERE holder = $1", [this.holder]);
  }
}
