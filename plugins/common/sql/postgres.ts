import pg from 'pg';
import { unavailable } from '../../../node/errors.js';
import { redactUrl } from '../../../node/config/redact-url.js';
import type { SqlClient, SqlDatabase, SqlResult } from './types.js';

/**
 * A SqlDatabase on a Postgres server, through a `pg` pool. A connection that cannot be made or
 * is lost becomes a typed `*_UNAVAILABLE` error (503 on every surface), so a database that is
 * down is never answered as a 500. Errors of the SQL itself stay as they are: they are bugs.
 */

const INT8 = 20;
const types = { getTypeParser: (oid: number, format?: 'text' | 'binary') => (oid === INT8 ? Number : pg.types.getTypeParser(oid, format as 'text')) };

/** Postgres's connection-level failures, by SQLSTATE class: 08 connection, 57P admin shutdown, 53 resources */
const CONNECTION_FAILURE = /^(08|57P|53)/;
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH']);

export interface PostgresOptions {
  /** connections in the pool; default 10 */
  max?: number;
  /** the error code for a database that cannot be reached, e.g. RELAY_POSTGRES_UNAVAILABLE */
  unavailableCode: string;
  /** ms to wait for a connection; default 2000 */
  connectTimeoutMs?: number;
  /** errors of idle connections (the server went away), which would otherwise crash the process */
  onError?: (err: Error) => void;
}

export function isConnectionFailure(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown };
  if (typeof e?.code === 'string' && (NETWORK_CODES.has(e.code) || CONNECTION_FAILURE.test(e.code))) return true;
  return typeof e?.message === 'string' && /Connection terminated|connection timeout|Client has encountered a connection error|timeout exceeded when trying to connect/i.test(e.message);
}

export function openPostgres(url: string, opts: PostgresOptions): SqlDatabase {
  const pool = new pg.Pool({ connectionString: url, max: opts.max ?? 10, connectionTimeoutMillis: opts.connectTimeoutMs ?? 2000, types });
  pool.on('error', (err) => opts.onError?.(err));
  const where = redactUrl(url);
  const wrap = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (err) {
      if (isConnectionFailure(err)) throw unavailable(opts.unavailableCode, `Postgres at ${where} cannot be reached: ${(err as Error).message}`, { retryAfterSeconds: 5 });
      throw err;
    }
  };
  const query = <R>(client: pg.Pool | pg.PoolClient, text: string, params?: readonly unknown[]): Promise<SqlResult<R>> =>
    wrap(async () => {
      const r = await client.query(text, params as unknown[] | undefined);
      return { rows: r.rows as R[], rowCount: r.rowCount ?? 0 };
    });
  const client = (c: pg.Pool | pg.PoolClient): SqlClient => ({
    query: (text, params) => query(c, text, params),
    // without parameters pg uses the simple protocol, which takes several statements
    exec: async (script) => void (await query(c, script)),
  });
  return {
    engine: 'postgres',
    ...client(pool),
    async transaction<T>(fn: (tx: SqlClient) => Promise<T>): Promise<T> {
      const conn = await wrap(() => pool.connect());
      let broken = false;
      try {
        await query(conn, 'BEGIN');
        const out = await fn(client(conn));
        await query(conn, 'COMMIT');
        return out;
      } catch (err) {
        try {
          await conn.query('ROLLBACK');
        } catch {
          broken = true; // the connection is gone; the pool must not reuse it
        }
        throw err;
      } finally {
        conn.release(broken);
      }
    },
    close: () => pool.end(),
  };
}
