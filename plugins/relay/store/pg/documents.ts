import { LedgerError, invalid } from '../../../../node/errors.js';
import { IdGen, MAX_TIME, int, part } from '../shared.js';
import type { DeliveryLog, DocumentRepo, LogEntry } from '../types.js';
import { PgCore, text } from './core.js';

/**
 * Per-tenant JSON documents, keyed (tenant, kind, id) and kept as the JSON text written, and the
 * global lookups (name, key) -> a tenant's document. Writes of one document or one lookup apply in
 * call order within an instance; between instances the last write wins.
 */
export class PgDocumentRepo implements DocumentRepo {
  constructor(private readonly c: PgCore) {}

  async get<T>(tenantId: string, kind: string, id: string): Promise<T | undefined> {
    const key = [part('tenantId', tenantId), part('kind', kind), part('id', id)];
    const { rows } = await this.c.run(() => this.c.db.query<{ value: string }>('SELECT value FROM relay_documents WHERE tenant_id = $1 AND kind = $2 AND id = $3', key));
    return rows[0] === undefined ? undefined : (JSON.parse(rows[0].value) as T);
  }

  /** in id order */
  async list<T>(tenantId: string, kind: string): Promise<T[]> {
    const key = [part('tenantId', tenantId), part('kind', kind)];
    const { rows } = await this.c.run(() => this.c.db.query<{ value: string }>('SELECT value FROM relay_documents WHERE tenant_id = $1 AND kind = $2 ORDER BY id', key));
    return rows.map((r) => JSON.parse(r.value) as T);
  }

  async put(tenantId: string, kind: string, id: string, value: unknown): Promise<void> {
    const key = [part('tenantId', tenantId), part('kind', kind), part('id', id)];
    let json: string | undefined;
    try {
      json = JSON.stringify(value);
    } catch (err) {
      throw invalid('RELAY_BAD_DOCUMENT', `a document must be JSON: ${(err as Error).message}`);
    }
    if (json === undefined) throw invalid('RELAY_BAD_DOCUMENT', 'a document is a JSON value, not undefined or a function');
    const sql = 'INSERT INTO relay_documents (tenant_id, kind, id, value) VALUES ($1, $2, $3, $4) ON CONFLICT (tenant_id, kind, id) DO UPDATE SET value = EXCLUDED.value';
    await this.c.ordered(`document:${key.join('\x00')}`, () => this.c.db.query(sql, [...key, json]));
  }

  async delete(tenantId: string, kind: string, id: string): Promise<void> {
    const key = [part('tenantId', tenantId), part('kind', kind), part('id', id)];
    const sql = 'DELETE FROM relay_documents WHERE tenant_id = $1 AND kind = $2 AND id = $3';
    await this.c.ordered(`document:${key.join('\x00')}`, () => this.c.db.query(sql, key));
  }

  async index(name: string, key: string): Promise<{ tenantId: string; id: string } | undefined> {
    const k = [part('name', name), part('key', key)];
    const sql = 'SELECT tenant_id, document_id FROM relay_lookups WHERE name = $1 AND key = $2';
    const { rows } = await this.c.run(() => this.c.db.query<{ tenant_id: string; document_id: string }>(sql, k));
    return rows[0] && { tenantId: rows[0].tenant_id, id: rows[0].document_id };
  }

  async putIndex(name: string, key: string, target: { tenantId: string; id: string } | null): Promise<void> {
    const k = [part('name', name), part('key', key)];
    const to = target === null ? null : [part('tenantId', target.tenantId), part('id', target.id)];
    const upsert = 'INSERT INTO relay_lookups (name, key, tenant_id, document_id) VALUES ($1, $2, $3, $4) ON CONFLICT (name, key) DO UPDATE SET tenant_id = EXCLUDED.tenant_id, document_id = EXCLUDED.document_id';
    const write = () => (to === null ? this.c.db.query('DELETE FROM relay_lookups WHERE name = $1 AND key = $2', k) : this.c.db.query(upsert, [...k, ...to]));
    await this.c.ordered(`lookup:${k.join('\x00')}`, write);
  }
}

const LEVELS: ReadonlySet<string> = new Set(['info', 'warn', 'error']);
/** log entries deleted per statement by `prune` */
const PRUNE_CHUNK = 1000;
const ID_ATTEMPTS = 5;

interface LogRow {
  id: string;
  tenant_id: string;
  at: number;
  level: LogEntry['level'];
  message: string;
  recipient: string | null;
}

const logEntry = (r: LogRow): LogEntry => ({ id: r.id, tenantId: r.tenant_id, at: r.at, level: r.level, message: r.message, recipient: r.recipient });

/**
 * The delivery log. A log id starts with the entry's `at` (as in the LevelDB store), so id order
 * is time order: `list` reads newest first, entries of one `at` in append order.
 */
export class PgDeliveryLog implements DeliveryLog {
  private readonly ids = new IdGen('log_', false);

  constructor(private readonly c: PgCore) {}

  async append(entries: readonly Omit<LogEntry, 'id'>[]): Promise<void> {
    const rows = entries.map((e) => {
      const tenantId = part('tenantId', e.tenantId);
      const recipient = e.recipient === null ? null : part('recipient', e.recipient);
      int('at', e.at, MAX_TIME);
      if (!LEVELS.has(e.level)) throw invalid('RELAY_BAD_LOG', 'a log level is info, warn or error');
      if (typeof e.message !== 'string') throw invalid('RELAY_BAD_LOG', 'a log message is a string');
      return { id: '', tenantId, at: e.at, level: e.level, message: text('message', e.message)!, recipient };
    });
    const sql = `INSERT INTO relay_log (id, tenant_id, at, level, message, recipient)
      SELECT * FROM unnest($1::text[], $2::text[], $3::int8[], $4::text[], $5::text[], $6::text[]) ON CONFLICT (id) DO NOTHING RETURNING id`;
    await this.c.run(async () => {
      // an id another instance took gets a new one (very unlikely: they differ in 40 bits past the ms)
      let todo = rows;
      for (let attempt = 0; todo.length > 0; attempt++) {
        if (attempt === ID_ATTEMPTS) throw new LedgerError('RELAY_ID_TAKEN', `no free log id after ${ID_ATTEMPTS} attempts`, 'internal');
        for (const r of todo) r.id = this.ids.next(r.at);
        const { rows: stored } = await this.c.db.query<{ id: string }>(sql, [
          todo.map((r) => r.id),
          todo.map((r) => r.tenantId),
          todo.map((r) => r.at),
          todo.map((r) => r.level),
          todo.map((r) => r.message),
          todo.map((r) => r.recipient),
        ]);
        const done = new Set(stored.map((r) => r.id));
        todo = todo.filter((r) => !done.has(r.id));
      }
    });
  }

  async list(tenantId: string, opts: { recipient?: string; limit: number }): Promise<LogEntry[]> {
    part('tenantId', tenantId);
    const limit = int('limit', opts.limit);
    const recipient = opts.recipient === undefined ? null : part('recipient', opts.recipient);
    if (limit === 0) return this.c.run(async () => []);
    const sql = `SELECT id, tenant_id, at, level, message, recipient FROM relay_log
      WHERE tenant_id = $1 AND ($2::text IS NULL OR recipient = $2) ORDER BY id DESC LIMIT $3`;
    const { rows } = await this.c.run(() => this.c.db.query<LogRow>(sql, [tenantId, recipient, limit]));
    return rows.map(logEntry);
  }

  /** Deletes every entry with `at < before`, a chunk per statement; returns how many. */
  async prune(before: number): Promise<number> {
    int('before', before, MAX_TIME);
    const bound = `log_${before.toString(16).padStart(12, '0')}`;
    const sql = `DELETE FROM relay_log WHERE id IN (SELECT id FROM relay_log WHERE id < $1 ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED)`;
    let total = 0;
    for (;;) {
      const { rowCount } = await this.c.run(() => this.c.db.query(sql, [bound, PRUNE_CHUNK]));
      total += rowCount;
      if (rowCount < PRUNE_CHUNK) return total;
    }
  }
}
