import type { SqlClient } from '../../../common/sql/types.js';

/**
 * Many rows in one statement: each column travels as one array parameter and `unnest` turns the
 * arrays back into rows, so a batch of blocks costs a statement per table, not per row. Table and
 * column names come from this code, never from input; every value is a parameter.
 */

export interface Column {
  name: string;
  /** the column's SQL type, for the array's cast */
  type: string;
  /** how the unnested value becomes the column's, when the array cannot carry it as it is (a text[] column goes as JSON text) */
  expr?: (value: string) => string;
}

export interface BulkWrite {
  table: string;
  columns: readonly Column[];
  /** with conflict: the key, and how to update (`SET …`, may use `excluded` and the table as `t`) */
  conflict?: { key: string; update: string };
  returning?: string;
}

/** Inserts `rows` (each in `columns` order); nothing when there are none. */
export async function bulkInsert<R = Record<string, unknown>>(tx: SqlClient, w: BulkWrite, rows: readonly unknown[][]): Promise<R[]> {
  if (rows.length === 0) return [];
  const arrays = w.columns.map((_, i) => rows.map((r) => r[i] ?? null));
  const names = w.columns.map((c) => c.name);
  const values = w.columns.map((c) => (c.expr ? c.expr(`u.${c.name}`) : `u.${c.name}`));
  const unnest = w.columns.map((c, i) => `$${i + 1}::${c.type}[]`).join(', ');
  const conflict = w.conflict ? ` ON CONFLICT (${w.conflict.key}) DO UPDATE SET ${w.conflict.update}` : '';
  const returning = w.returning ? ` RETURNING ${w.returning}` : '';
  const text = `INSERT INTO ${w.table} AS t (${names.join(', ')}) SELECT ${values.join(', ')} FROM unnest(${unnest}) AS u(${names.join(', ')})${conflict}${returning}`;
  return (await tx.query<R>(text, arrays)).rows;
}

/** `SET a = excluded.a, b = excluded.b` for these columns */
export function replaceAll(columns: readonly Column[], key: string): string {
  return columns
    .filter((c) => c.name !== key)
    .map((c) => `${c.name} = excluded.${c.name}`)
    .join(', ');
}
