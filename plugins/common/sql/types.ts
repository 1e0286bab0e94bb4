/**
 * The SQL the plugins speak, whatever runs it: a Postgres server through `pg` (postgres.ts), or
 * Postgres compiled to WASM in this process. Queries use Postgres's dialect and `$1` parameters.
 * int8 columns come back as numbers: the plugins keep millisecond times and counts in them, far
 * below 2^53.
 */

export interface SqlResult<R> {
  rows: R[];
  /** rows inserted, updated or deleted by the statement */
  rowCount: number;
}

export interface SqlClient {
  query<R = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<SqlResult<R>>;
  /** runs a script of several statements, without parameters (a migration) */
  exec(script: string): Promise<void>;
}

export interface SqlDatabase extends SqlClient {
  /** which engine answers, for health and logs: `postgres` or `pglite` */
  readonly engine: string;
  /** runs `fn` in one transaction on one connection: committed when it resolves, rolled back when it throws */
  transaction<T>(fn: (tx: SqlClient) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
