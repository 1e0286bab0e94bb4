import type SDK from '@hyperledger/identus-sdk';

/**
 * An in-memory `Pluto.Store` for the Identus SDK's Pluto (the SDK ships none). The SDK uses the
 * tables `credentials`, `credential-metadata`, `dids`, `keys`, `messages`, `didkeyLink` and
 * `didLink`, and only plain equality, `$and` and `$or` selectors (an empty `$or` matches nothing).
 */

type Row = Record<string, unknown> & { uuid: string };
type Selector = Record<string, unknown>;

function matches(row: Row, selector: Selector | undefined): boolean {
  if (!selector) return true;
  return Object.entries(selector).every(([key, value]) => {
    if (key === '$and') return (value as Selector[]).every((s) => matches(row, s));
    if (key === '$or') return (value as Selector[]).some((s) => matches(row, s));
    if (value !== null && typeof value === 'object' && '$eq' in value) return row[key] === (value as { $eq: unknown }).$eq;
    return row[key] === value;
  });
}

export class MemoryStore implements SDK.Pluto.Store {
  readonly tables = new Map<string, Row[]>();

  private rows(table: string): Row[] {
    let rows = this.tables.get(table);
    if (!rows) this.tables.set(table, (rows = []));
    return rows;
  }

  async query<T extends SDK.Model>(table: string, query?: { selector?: Selector }): Promise<T[]> {
    return this.rows(table)
      .filter((row) => matches(row, query?.selector))
      .map((row) => ({ ...row }) as unknown as T);
  }

  async insert<T extends SDK.Model>(table: string, model: T): Promise<void> {
    const rows = this.rows(table);
    const row = { ...(model as unknown as Row) };
    if (rows.some((r) => r.uuid === row.uuid)) throw new Error(`duplicate uuid ${row.uuid} in ${table}`);
    rows.push(row);
  }

  async update<T extends SDK.Model>(table: string, model: T): Promise<void> {
    const rows = this.rows(table);
    const row = model as unknown as Row;
    const at = rows.findIndex((r) => r.uuid === row.uuid);
    if (at === -1) throw new Error(`no ${row.uuid} in ${table}`);
    rows[at] = { ...rows[at], ...row };
  }

  async delete(table: string, uuid: string): Promise<void> {
    const rows = this.rows(table);
    const at = rows.findIndex((r) => r.uuid === uuid);
    if (at !== -1) rows.splice(at, 1);
  }
}
