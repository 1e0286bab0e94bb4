import type { AbstractBatchOperation, AbstractSublevel } from 'abstract-level';
import type { BinarySublevel } from '../../../node/state/db.js';

/**
 * The KYC plugin's storage primitive: named tables of JSON values (or bytes) under the plugin's
 * namespace, and a `Batch` that writes to several tables at once, so a record and its index
 * entries change atomically. Every key is a UTF-8 string; a composite key joins its parts with
 * `SEP` (\x00), which no key part may contain, so `prefix(a)` ranges over every `a SEP …` key.
 *
 * One table per entity and per index: docs/kyc.md, "Storage", lists them. The repositories
 * (accounts, sessions, webhooks, issuance, offers) each own their tables and index rules.
 */

export const SEP = '\x00';

type Sub<V> = AbstractSublevel<BinarySublevel, any, string, V>;
type Op = AbstractBatchOperation<any, string, any>;

export const key = (...parts: Array<string | number>): string => parts.join(SEP);

/** `[gt, lt]` of every key `parts… SEP <anything>`. */
export function prefix(...parts: Array<string | number>): { gt: string; lt: string } {
  const p = key(...parts, '');
  return { gt: p, lt: `${p}\uffff` };
}

/** A time as a fixed-width key part, so keys sort by it (13 digits of ms: good until the year 2286). */
export const timeKey = (ms: number): string => String(Math.max(0, Math.floor(ms))).padStart(13, '0');

export class Table<V> {
  constructor(readonly db: Sub<V>) {}

  get(k: string): Promise<V | undefined> {
    return this.db.get(k);
  }

  async getMany(keys: string[]): Promise<Array<V | undefined>> {
    return keys.length === 0 ? [] : this.db.getMany(keys);
  }

  put(k: string, v: V): Promise<void> {
    return this.db.put(k, v);
  }

  del(k: string): Promise<void> {
    return this.db.del(k);
  }

  /** Entries in key order (reverse: newest first for time-keyed tables). */
  async *entries(range: { gt?: string; lt?: string; gte?: string; lte?: string; reverse?: boolean; limit?: number } = {}): AsyncGenerator<[string, V]> {
    for await (const entry of this.db.iterator(range)) yield entry as [string, V];
  }

  async *keys(range: { gt?: string; lt?: string; gte?: string; lte?: string; reverse?: boolean; limit?: number } = {}): AsyncGenerator<string> {
    for await (const k of this.db.keys(range)) yield k;
  }
}

/** Writes to several tables as one LevelDB batch. */
export class Batch {
  private readonly ops: Op[] = [];

  constructor(private readonly root: BinarySublevel) {}

  put<V>(table: Table<V>, k: string, v: V): this {
    this.ops.push({ type: 'put', key: k, value: v, sublevel: table.db });
    return this;
  }

  del<V>(table: Table<V>, k: string): this {
    this.ops.push({ type: 'del', key: k, sublevel: table.db });
    return this;
  }

  get size(): number {
    return this.ops.length;
  }

  async write(): Promise<void> {
    if (this.ops.length === 0) return;
    await this.root.batch(this.ops as any);
  }
}

/** The plugin's namespace as tables. */
export class PluginDb {
  private readonly tables = new Map<string, Table<any>>();

  constructor(readonly root: BinarySublevel) {}

  /** The JSON table `name` (created on first use; the same object after). */
  json<V>(name: string): Table<V> {
    return this.table<V>(name, 'json');
  }

  /** A table of raw bytes (document images, secrets). */
  bytes(name: string): Table<Uint8Array> {
    return this.table<Uint8Array>(name, 'view');
  }

  batch(): Batch {
    return new Batch(this.root);
  }

  private table<V>(name: string, valueEncoding: 'json' | 'view'): Table<V> {
    const existing = this.tables.get(name);
    if (existing) return existing as Table<V>;
    const t = new Table<V>(this.root.sublevel<string, V>(name, { keyEncoding: 'utf8', valueEncoding }) as Sub<V>);
    this.tables.set(name, t);
    return t;
  }
}
