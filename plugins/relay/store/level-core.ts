import type { AbstractSublevel } from 'abstract-level';
import { LedgerError, unavailable } from '../../../node/errors.js';
import type { BinarySublevel } from '../../../node/state/db.js';
import { GroupCommit } from '../../common/store/group-commit.js';
import { Mutex, SEP } from './shared.js';
import type { KeylistEntry, LogEntry, Mediation, MessageProtocol, MessageRecord, MessageState } from './types.js';

// the level-* modules take the checks and ids both backends share from here
export { IdGen, MAX_TIME, Mutex, SEP, eachPart, int, part, parts } from './shared.js';

/**
 * What the LevelDB relay store's parts share: the child sublevels of the plugin's namespace, the
 * write lock, id generation and the atomic write (`Tx` + `commit`) that also keeps the stored
 * counts. The key layout (every key is UTF-8; `·` is the separator \x00, which no key part may
 * contain):
 *
 *   m/<msgId>                      MessageRecord
 *   b/<msgId>                      the body (bytes); kept until expiresAt unless purged on ack
 *   q/<recipient>·<msgId>          '' while the message is pending (queued, delivered, live-delivered)
 *   t/<tenant>·<msgId>             [state, protocol, recipient]: the tenant's listing, filterable
 *                                  without reading the records
 *   x/<expiresAt 13>·<msgId>       '' while the body is stored: the sweeper's index
 *   p/<expiresAt 13>·<msgId>       '' once the message is final (acknowledged, expired, failed),
 *                                  written by the move that made it final: prune's index, until
 *                                  prune deletes the record and every key above that refers to it
 *   n/<recipient>                  pending messages of the recipient
 *   sc/<tenant>·<state>            messages of the tenant in that state
 *   med/<id>                       Mediation; medDid/<recipientDid> -> id; medTenant/<tenant>·<id> -> ''
 *   key/<key>                      KeylistEntry; mk/<mediationId>·<key> -> KeylistEntry; kn/<mediationId> -> count
 *   d/<tenant>·<kind>·<id>         a document (JSON text)
 *   i/<name>·<key>                 {tenantId, id}
 *   l/<tenant>·<logId>             LogEntry; lr/<tenant>·<recipient>·<logId> -> ''; lt/<logId> -> {t, r} (for prune)
 *   c/<tenant>·<name>·<minute 10>  a counter's total for that minute
 *   ss/<name>                      a secret's envelope, sealed under the service-key secret (secrets.ts)
 *   s/<name>                       a secret in plaintext, as relays stored them before they were sealed:
 *                                  moved to ss/ on first read
 *
 * Counts are read-modify-written, so every write runs under one lock (`Core.write`) and goes to
 * LevelDB as one batch: a transition and the counts it changes are atomic.
 *
 * With `sync` (the default), a write resolves only once it is on disk, in one of three ways
 * (`WriteMode`, docs/relay.md "Durability"):
 * - `grouped`: the batch joins the group commit (plugins/common/store/group-commit.ts): the lock
 *   is released at once and the write resolves when the synced batch holding it completes. Only
 *   for writes whose reads no queued write can change (a new message, a document put): the queue
 *   holds only such writes, so a grouped write never reads what is queued, except stored counts,
 *   which the count cache holds (a count missing from it is read after the queue is written).
 * - `synced`: the queue is written first, then the batch is written with an fsync under the lock.
 * - `unsynced`: the queue is written first, then the batch without an fsync (the next synced
 *   batch, a few ms later, takes it to disk): for changes whose loss a power cut can only turn
 *   into a redelivery or a lost log line, never a lost message.
 */

export type WriteMode = 'grouped' | 'synced' | 'unsynced';

export type Sub<V> = AbstractSublevel<BinarySublevel, any, string, V>;

/** A message's listing entry: what `list` filters on. */
export type Summary = [MessageState, MessageProtocol, string];

export interface Subs {
  m: Sub<MessageRecord>;
  b: Sub<Uint8Array>;
  q: Sub<string>;
  t: Sub<Summary>;
  x: Sub<string>;
  p: Sub<string>;
  n: Sub<number>;
  sc: Sub<number>;
  med: Sub<Mediation>;
  medDid: Sub<string>;
  medTenant: Sub<string>;
  key: Sub<KeylistEntry>;
  mk: Sub<KeylistEntry>;
  kn: Sub<number>;
  d: Sub<string>;
  i: Sub<{ tenantId: string; id: string }>;
  l: Sub<LogEntry>;
  lr: Sub<string>;
  lt: Sub<{ t: string; r: string | null }>;
  c: Sub<number>;
  s: Sub<Uint8Array>;
  ss: Sub<unknown>;
}

const JSON_SUBS = ['m', 't', 'n', 'sc', 'med', 'key', 'mk', 'kn', 'i', 'l', 'lt', 'c', 'ss'] as const;
/** `d` holds JSON text, which the document repo writes and parses itself (to refuse what JSON cannot hold) */
const TEXT_SUBS = ['q', 'x', 'p', 'medDid', 'medTenant', 'lr', 'd'] as const;
const BYTE_SUBS = ['b', 's'] as const;

export function openSubs(db: BinarySublevel): Subs {
  const out: Record<string, Sub<unknown>> = {};
  for (const name of JSON_SUBS) out[name] = db.sublevel<string, unknown>(name, { keyEncoding: 'utf8', valueEncoding: 'json' });
  for (const name of TEXT_SUBS) out[name] = db.sublevel<string, unknown>(name, { keyEncoding: 'utf8', valueEncoding: 'utf8' });
  for (const name of BYTE_SUBS) out[name] = db.sublevel<string, unknown>(name, { keyEncoding: 'utf8', valueEncoding: 'view' });
  return out as unknown as Subs;
}

/** Every key whose first parts are `p`: [p·, p\x01). */
export function under(...p: string[]): { gte: string; lt: string } {
  const prefix = p.join(SEP);
  return { gte: prefix + SEP, lt: prefix + '\x01' };
}

export const join = (...p: string[]): string => p.join(SEP);
export const pad = (n: number, width: number): string => String(n).padStart(width, '0');

type Op = { type: 'put'; sublevel: Sub<any>; key: string; value: unknown } | { type: 'del'; sublevel: Sub<any>; key: string };

/** The writes of one atomic batch, with deltas for stored counts. */
export class Tx {
  readonly ops: Op[] = [];
  readonly deltas = new Map<Sub<number>, Map<string, number>>();

  put<V>(sub: Sub<V>, key: string, value: V): void {
    this.ops.push({ type: 'put', sublevel: sub, key, value });
  }

  del(sub: Sub<any>, key: string): void {
    this.ops.push({ type: 'del', sublevel: sub, key });
  }

  add(sub: Sub<number>, key: string, delta: number): void {
    let m = this.deltas.get(sub);
    if (!m) this.deltas.set(sub, (m = new Map()));
    m.set(key, (m.get(key) ?? 0) + delta);
  }

  get empty(): boolean {
    return this.ops.length === 0 && this.deltas.size === 0;
  }
}

/** cached stored counts per count sublevel, beyond which a cache is dropped and refilled */
const COUNT_CACHE_LIMIT = 10_000;

export interface CoreOptions {
  now: () => number;
  sync: boolean;
}

export class Core {
  readonly s: Subs;
  private readonly lock = new Mutex();
  /** stored counts read or written by `commit` (only `commit` uses it, under the lock) */
  private readonly counts = new Map<Sub<number>, Map<string, number>>();
  /** the group commit, when writes are synced */
  private readonly group: GroupCommit | null;
  /** bumped by a failed synced batch: counts computed before it are void */
  private failures = 0;
  /** the mode of the write running under the lock, and the batches a grouped write waits for */
  private mode: WriteMode = 'unsynced';
  private waits: Promise<void>[] = [];
  closed = false;

  constructor(
    readonly db: BinarySublevel,
    readonly opts: CoreOptions,
  ) {
    this.s = openSubs(db);
    this.group = opts.sync
      ? new GroupCommit(db, {
          failure: (err) => unavailable('RELAY_STORE_SYNC_FAILED', `the relay store could not write and sync its batch: ${err.message}`, { retryAfterSeconds: 1 }),
          // the queued batch behind a failed one holds counts computed on top of it
          onFail: () => this.dropCounts(),
        })
      : null;
  }

  private dropCounts(): void {
    this.failures++;
    for (const cache of this.counts.values()) cache.clear();
  }

  now(): number {
    return this.opts.now();
  }

  /**
   * Runs `fn` under the write lock, its commits written as `mode` says (see above; without `sync`
   * every mode is an unsynced batch, as the rest of the node writes); refused once the store is
   * closed. Resolves once the commits of `fn` are written, and with `sync`, on disk unless `unsynced`.
   */
  async write<T>(fn: () => Promise<T>, mode: WriteMode = 'synced'): Promise<T> {
    if (this.closed) throw new LedgerError('RELAY_STORE_CLOSED', 'the relay store is closed', 'internal');
    const group = this.group;
    if (!group) return this.lock.run(fn);
    const waits: Promise<void>[] = [];
    const out = await this.lock.run(async () => {
      if (mode !== 'grouped') await group.drained();
      this.mode = mode;
      this.waits = waits;
      try {
        return await fn();
      } finally {
        this.mode = 'unsynced';
        this.waits = [];
      }
    });
    await Promise.all(waits);
    return out;
  }

  /** Resolves once every write started before it has finished. */
  async idle(): Promise<void> {
    await this.lock.run(async () => undefined);
    await this.group?.drained();
  }

  /** Writes `tx` as one batch, with its count deltas applied. Call it inside `write`. */
  async commit(tx: Tx): Promise<void> {
    if (tx.empty) return;
    const { group, mode, waits } = this;
    const failures = this.failures;
    const ops = [...tx.ops];
    const pending: Array<[Sub<number>, Map<string, number>, string, number]> = [];
    for (const [sub, deltas] of tx.deltas) {
      let cache = this.counts.get(sub);
      if (!cache) this.counts.set(sub, (cache = new Map()));
      if (cache.size > COUNT_CACHE_LIMIT && (group === null || group.idle)) cache.clear();
      const keys = [...deltas.keys()].filter((k) => deltas.get(k) !== 0);
      const missing = keys.filter((k) => !cache.has(k));
      if (missing.length > 0) {
        // a queued batch may hold a newer count than the store
        await group?.drained();
        const stored = await sub.getMany(missing);
        missing.forEach((k, j) => cache.set(k, stored[j] ?? 0));
      }
      for (const k of keys) pending.push([sub, cache, k, deltas.get(k)!]);
    }
    if (this.failures !== failures) throw unavailable('RELAY_STORE_SYNC_FAILED', 'a synced batch of the relay store failed while this write was prepared', { retryAfterSeconds: 1 });
    const next = pending.map(([sub, cache, k, delta]): [Map<string, number>, string, number] => {
      const n = Math.max(0, (cache.get(k) ?? 0) + delta);
      ops.push(n === 0 ? { type: 'del', sublevel: sub, key: k } : { type: 'put', sublevel: sub, key: k, value: n });
      return [cache, k, n];
    });
    if (group && mode === 'grouped') {
      // the queue is written in order, so the counts it holds are the cache's from here on
      for (const [cache, k, n] of next) cache.set(k, n);
      waits.push(group.add(ops));
      return;
    }
    try {
      // `sync` is a classic-level batch option (abstract-level's types do not list it)
      await this.db.batch(ops as never, { sync: group !== null && mode === 'synced' } as never);
    } catch (err) {
      // the cache may hold values this failed batch read: drop them all
      this.dropCounts();
      if (group) throw unavailable('RELAY_STORE_SYNC_FAILED', `the relay store could not write its batch: ${(err as Error).message}`, { retryAfterSeconds: 1 });
      throw err;
    }
    for (const [cache, k, n] of next) cache.set(k, n);
  }
}

/** A Uint8Array over the same bytes (LevelDB backends return Buffers). */
export function bytes(v: Uint8Array | undefined): Uint8Array | undefined {
  return v === undefined ? undefined : new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
}
