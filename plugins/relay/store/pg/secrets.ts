import type { ResealedSecrets, ServiceKeySecret } from '../../../../node/config/service-key-secret.js';
import { migrate } from '../../../common/sql/migrate.js';
import { openPostgres } from '../../../common/sql/postgres.js';
import type { SqlClient, SqlDatabase } from '../../../common/sql/types.js';
import { move, resealed, type SecretSlots, type StoredSecret } from '../secrets.js';
import { fromBytea } from './core.js';
import { RELAY_MIGRATIONS } from './schema.js';

/**
 * The relay's secrets in Postgres: `relay_secrets.sealed` holds the envelope (JSON text),
 * `value` the plaintext bytes of a row from before secrets were sealed (schema.ts, migration 2).
 * Every instance on the database shares them, so every one needs the same service-key secret.
 */

const TABLE = 'relay_secrets';
const SHARED = 'Every relay instance on this Postgres needs the same service-key secret';
const PLACE = { table: TABLE, hint: SHARED } as const;

type Row = { name: string; value: Uint8Array | null; sealed: string | null };

function storedOf(row: Row | undefined): StoredSecret | undefined {
  if (row === undefined) return undefined;
  return row.sealed !== null ? { sealed: JSON.parse(row.sealed) as unknown } : { plaintext: fromBytea(row.value)! };
}

/**
 * VACUUM FULL writes the table anew and drops its old file, with the replaced plaintext in it, as
 * a LevelDB compaction does; the table holds a few rows, so it takes no time. It needs the
 * table's owner (another user gets a warning from Postgres and nothing is done).
 */
const vacuum = (db: SqlClient): Promise<void> => db.exec(`VACUUM FULL ${TABLE}`);

export function pgSecretSlots(db: SqlDatabase): SecretSlots {
  return {
    ...PLACE,
    async get(name) {
      const { rows } = await db.query<Row>(`SELECT name, value, sealed FROM ${TABLE} WHERE name = $1`, [name]);
      return storedOf(rows[0]);
    },
    async add(name, sealed) {
      await db.query(`INSERT INTO ${TABLE} (name, sealed) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`, [name, JSON.stringify(sealed)]);
    },
    async replace(name, sealed, log) {
      // an instance starting at the same time may have sealed it first: its envelope stays
      const { rowCount } = await db.query(`UPDATE ${TABLE} SET sealed = $2, value = NULL WHERE name = $1 AND sealed IS NULL`, [name, JSON.stringify(sealed)]);
      if (rowCount === 0) return false;
      await vacuum(db).catch((err: unknown) => log?.warn({ err, table: TABLE }, `VACUUM FULL ${TABLE} failed: the replaced plaintext stays in the table's file until Postgres reuses its space`));
      return true;
    },
  };
}

/**
 * `ledger service-keys rotate` for a relay on Postgres (`url`): moves every row of relay_secrets
 * from `from` to `to`. The preparation opens every row and writes nothing; `commit` does it
 * again in one transaction that locks the table against writers, and writes. A row already
 * under `to` is left as it is: the rotate of another node sharing the database moved it, or
 * this one was cut short after its commit.
 */
export async function resealPostgresSecrets(url: string, from: ServiceKeySecret, to: ServiceKeySecret, unavailableCode: string): Promise<ResealedSecrets> {
  const db = openPostgres(url, { unavailableCode, max: 1 });
  const m = move(from, to);
  const run = (write: boolean) =>
    db.transaction(async (tx) => {
      // SHARE ROW EXCLUSIVE: relays may read, none may insert or seal a row meanwhile
      if (write) await tx.query(`LOCK TABLE ${TABLE} IN SHARE ROW EXCLUSIVE MODE`);
      const { rows } = await tx.query<Row>(`SELECT name, value, sealed FROM ${TABLE} ORDER BY name`);
      for (const row of rows) {
        const next = await resealed(PLACE, row.name, storedOf(row)!, m, true);
        if (write && next) await tx.query(`UPDATE ${TABLE} SET sealed = $2, value = NULL WHERE name = $1`, [row.name, JSON.stringify(next)]);
      }
      return rows.map((row) => `${TABLE}/${row.name}`);
    });
  try {
    // a relay of this build may not have started on the database yet: the sealed column comes first
    await migrate(db, 'relay', RELAY_MIGRATIONS);
    const rows = await run(false);
    return {
      rows,
      ops: [],
      commit: async () => void (await run(true)),
      compact: () => vacuum(db),
      close: () => db.close(),
    };
  } catch (err) {
    await db.close();
    throw err;
  }
}
