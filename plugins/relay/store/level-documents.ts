import { invalid } from '../../../node/errors.js';
import { Core, IdGen, MAX_TIME, Tx, int, join, part, under } from './level-core.js';
import type { DeliveryLog, DocumentRepo, LogEntry } from './types.js';

/** Per-tenant JSON documents `d/<tenant>·<kind>·<id>` and global lookups `i/<name>·<key>`. */
export class LevelDocumentRepo implements DocumentRepo {
  constructor(private readonly c: Core) {}

  async get<T>(tenantId: string, kind: string, id: string): Promise<T | undefined> {
    const text = await this.c.s.d.get(join(part('tenantId', tenantId), part('kind', kind), part('id', id)));
    return text === undefined ? undefined : (JSON.parse(text) as T);
  }

  /** in id order */
  async list<T>(tenantId: string, kind: string): Promise<T[]> {
    const texts = await this.c.s.d.values(under(part('tenantId', tenantId), part('kind', kind))).all();
    return texts.map((text) => JSON.parse(text) as T);
  }

  async put(tenantId: string, kind: string, id: string, value: unknown): Promise<void> {
    const key = join(part('tenantId', tenantId), part('kind', kind), part('id', id));
    let text: string | undefined;
    try {
      text = JSON.stringify(value);
    } catch (err) {
      throw invalid('RELAY_BAD_DOCUMENT', `a document must be JSON: ${(err as Error).message}`);
    }
    if (text === undefined) throw invalid('RELAY_BAD_DOCUMENT', 'a document is a JSON value, not undefined or a function');
    const tx = new Tx();
    tx.put(this.c.s.d, key, text);
    return this.c.write(() => this.c.commit(tx), 'grouped');
  }

  async delete(tenantId: string, kind: string, id: string): Promise<void> {
    const tx = new Tx();
    tx.del(this.c.s.d, join(part('tenantId', tenantId), part('kind', kind), part('id', id)));
    return this.c.write(() => this.c.commit(tx), 'grouped');
  }

  async index(name: string, key: string): Promise<{ tenantId: string; id: string } | undefined> {
    return this.c.s.i.get(join(part('name', name), part('key', key)));
  }

  async putIndex(name: string, key: string, target: { tenantId: string; id: string } | null): Promise<void> {
    const k = join(part('name', name), part('key', key));
    const tx = new Tx();
    if (target === null) tx.del(this.c.s.i, k);
    else tx.put(this.c.s.i, k, { tenantId: part('tenantId', target.tenantId), id: part('id', target.id) });
    return this.c.write(() => this.c.commit(tx), 'grouped');
  }
}

const LEVELS: ReadonlySet<string> = new Set(['info', 'warn', 'error']);
/** log entries deleted per batch by `prune` (the lock is released between batches) */
const PRUNE_CHUNK = 1000;

/**
 * The delivery log: `l/<tenant>·<logId>`, `lr/<tenant>·<recipient>·<logId>` for the recipient
 * filter, and `lt/<logId>` for pruning across tenants. A log id starts with the entry's `at`, so
 * key order is time order: `list` reads newest first and `prune` reads from the oldest.
 */
export class LevelDeliveryLog implements DeliveryLog {
  private readonly ids = new IdGen('log_', false);

  constructor(private readonly c: Core) {}

  async append(entries: readonly Omit<LogEntry, 'id'>[]): Promise<void> {
    const { s } = this.c;
    const tx = new Tx();
    for (const e of entries) {
      const tenantId = part('tenantId', e.tenantId);
      const recipient = e.recipient === null ? null : part('recipient', e.recipient);
      int('at', e.at, MAX_TIME);
      if (!LEVELS.has(e.level)) throw invalid('RELAY_BAD_LOG', 'a log level is info, warn or error');
      if (typeof e.message !== 'string') throw invalid('RELAY_BAD_LOG', 'a log message is a string');
      const id = this.ids.next(e.at);
      tx.put(s.l, join(tenantId, id), { id, tenantId, at: e.at, level: e.level, message: e.message, recipient });
      if (recipient !== null) tx.put(s.lr, join(tenantId, recipient, id), '');
      tx.put(s.lt, id, { t: tenantId, r: recipient });
    }
    return this.c.write(() => this.c.commit(tx), 'grouped');
  }

  async list(tenantId: string, opts: { recipient?: string; limit: number }): Promise<LogEntry[]> {
    part('tenantId', tenantId);
    const limit = int('limit', opts.limit);
    if (limit === 0) return [];
    if (opts.recipient === undefined) return this.c.s.l.values({ ...under(tenantId), reverse: true, limit }).all();
    const prefix = join(tenantId, part('recipient', opts.recipient));
    const keys = await this.c.s.lr.keys({ ...under(prefix), reverse: true, limit }).all();
    const entries = await this.c.s.l.getMany(keys.map((k) => join(tenantId, k.slice(prefix.length + 1))));
    return entries.filter((e): e is LogEntry => e !== undefined);
  }

  /** Deletes every entry with `at < before`; returns how many. */
  async prune(before: number): Promise<number> {
    int('before', before, MAX_TIME);
    const bound = `log_${before.toString(16).padStart(12, '0')}`;
    const { s } = this.c;
    let total = 0;
    for (;;) {
      const n = await this.c.write(async () => {
        const old = await s.lt.iterator({ lt: bound, limit: PRUNE_CHUNK }).all();
        const tx = new Tx();
        for (const [id, { t, r }] of old) {
          tx.del(s.l, join(t, id));
          if (r !== null) tx.del(s.lr, join(t, r, id));
          tx.del(s.lt, id);
        }
        await this.c.commit(tx);
        return old.length;
      }, 'unsynced');
      total += n;
      if (n < PRUNE_CHUNK) return total;
    }
  }
}
