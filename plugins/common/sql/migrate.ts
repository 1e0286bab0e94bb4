import type { SqlDatabase } from './types.js';

/**
 * Versioned schema migrations, run at start. Each component (`relay`, `explorer`) keeps its own
 * numbered list; `schema_migrations` records what ran. The whole run holds a transaction-scoped
 * advisory lock named after the component, so two instances starting at once apply each step
 * once: the second waits, then finds it done. A migration is one transaction with its record, so
 * a crash leaves it either applied and recorded or not at all.
 */

export interface Migration {
  /** 1, 2, 3, … in order; never renumbered once released */
  version: number;
  /** what it does, kept in schema_migrations */
  name: string;
  sql: string;
}

export interface MigrationReport {
  applied: number[];
  /** the schema's version after the run */
  version: number;
}

export async function migrate(db: SqlDatabase, component: string, migrations: readonly Migration[]): Promise<MigrationReport> {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`${component} migration ${i} has version ${m.version}, not ${i + 1}`);
  });
  return db.transaction(async (tx) => {
    // hashtext gives the lock a stable int4 key per component
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`ledger:migrate:${component}`]);
    await tx.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      component text NOT NULL, version int NOT NULL, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (component, version))`);
    const { rows } = await tx.query<{ version: number }>('SELECT coalesce(max(version), 0) AS version FROM schema_migrations WHERE component = $1', [component]);
    const current = Number(rows[0]?.version ?? 0);
    if (current > migrations.length) {
      throw new Error(`the ${component} schema is at version ${current}, newer than this build knows (${migrations.length}): run the newer build, or a fresh database`);
    }
    const applied: number[] = [];
    for (const m of migrations.slice(current)) {
      await tx.exec(m.sql);
      await tx.query('INSERT INTO schema_migrations (component, version, name) VALUES ($1, $2, $3)', [component, m.version, m.name]);
      applied.push(m.version);
    }
    return { applied, version: Math.max(current, migrations.length) };
  });
}
