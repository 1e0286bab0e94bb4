import { mkdir } from 'node:fs/promises';
import { PGlite, types, type Transaction } from '@electric-sql/pglite';
import { unavailable } from '../../../node/errors.js';
import type { SqlClient, SqlDatabase } from './types.js';

/**
 * A SqlDatabase on PGlite: Postgres compiled to WASM, in this process, with its files in a
 * folder (or in memory when `dataDir` is undefined). One session: queries and transactions take
 * turns, as PGlite runs one at a time. int8 comes back as a number, as postgres.ts does.
 */

export interface PgliteOptions {
  /** the error code once the database is closed or failed, e.g. EXPLORER_PGLITE_UNAVAILABLE */
  unavailableCode: string;
}

const parsers = { [types.INT8]: (text: string) => Number(text) };

export async function openPglite(dataDir: string | undefined, opts: PgliteOptions): Promise<SqlDatabase> {
  if (dataDir !== undefined) await mkdir(dataDir, { recursive: true });
  let db: PGlite;
  try {
    // relaxed durability only skips PGlite's own sync of an in-browser filesystem; files on disk are written as Postgres writes them
    db = await PGlite.create(dataDir, { parsers, relaxedDurability: true });
  } catch (err) {
    throw unavailable(opts.unavailableCode, `PGlite cannot open ${dataDir ?? 'an in-memory database'}: ${(err as Error).message}`, { retryAfterSeconds: 5 });
  }
  const closedError = () => unavailable(opts.unavailableCode, 'the PGlite database is closed', { retryAfterSeconds: 5 });
  const guard = async <T>(run: () => Promise<T>): Promise<T> => {
    if (db.closed) throw closedError();
    return run();
  };
  const client = (c: PGlite | Transaction): SqlClient => ({
    query: <R>(text: string, params?: readonly unknown[]) =>
      guard(async () => {
        const r = await c.query<R>(text, params as unknown[] | undefined);
        return { rows: r.rows, rowCount: r.affectedRows ?? 0 };
      }),
    exec: (script) => guard(async () => void (await c.exec(script))),
  });
  return {
    engine: 'pglite',
    ...client(db),
    transaction: <T>(fn: (tx: SqlClient) => Promise<T>) => guard(() => db.transaction((tx) => fn(client(tx)))),
    close: async () => {
      if (!db.closed) await db.close();
    },
  };
}
