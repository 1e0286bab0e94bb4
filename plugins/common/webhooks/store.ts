import type { AbstractBatchOperation, AbstractSublevel } from 'abstract-level';
import { unavailable } from '../../../node/errors.js';
import type { BinarySublevel } from '../../../node/state/db.js';
import { ChunkedBatch } from '../store/chunked-batch.js';
import { GroupCommit } from '../store/group-commit.js';
import type { AttemptOutcome } from './attempt.js';
import { deliveryIdTime, isDeliveryId } from './ids.js';

/**
 * The outbox's records, in a child sublevel `webhooks` of the store it is given, so a plugin
 * can keep its own keys beside it. Keys are UTF-8 with a NUL separator (endpoint ids and
 * tenants may not contain NUL); delivery ids sort by creation time, so each index read in
 * reverse is newest first:
 *
 *   d \0 <delivery id>                     StoredDelivery (JSON)
 *   b \0 <delivery id>                     Payload (JSON): body and secret while pending; the body
 *                                          alone once failed (for a resend); nothing once delivered
 *   s \0 <status> \0 <delivery id>         ''  (status index: pending, delivered, failed)
 *   e \0 <endpoint id> \0 <delivery id>    ''
 *   n \0 <tenant> \0 <delivery id>         ''  (only for deliveries with a tenant)
 *
 * A record and its index entries change in one batch, so an index never points at a record in
 * another status after a crash.
 *
 * A new delivery is owed to its receiver, so its insert is synced (an fsync of LevelDB's log)
 * through a group commit: one synced batch in flight, the inserts that arrive meanwhile in the
 * next. The other writes are not: a power cut can only undo them, and an undone outcome or
 * prune is a delivery sent again or a record pruned again (docs/webhooks.md, "Durability").
 */

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface DeliveryRecord {
  id: string;
  endpointId: string;
  tenant: string | null;
  eventId: string;
  eventType: string;
  url: string;
  status: DeliveryStatus;
  /** attempts made so far (0 before the first) */
  attemptNumber: number;
  /** of the last attempt; null before one, or when it got no response */
  statusCode: number | null;
  /** why the last attempt failed */
  error?: string;
  /** when the next attempt is due (ISO 8601); null once delivered or failed */
  nextRetryAt: string | null;
  /** when the last attempt was sent, and when it ended (ISO 8601); null before the first */
  requestTimestamp: string | null;
  responseTimestamp: string | null;
  /** ms the last attempt took */
  duration: number | null;
  createdAt: string;
  /** set on a resend: the failed delivery it repeats (same event id and body) */
  resendOf?: string;
}

export interface StoredDelivery {
  record: DeliveryRecord;
  /** ms; the retry schedule counts from here */
  firstAttemptAt: number | null;
}

export interface Payload {
  body: string;
  /**
   * kept so that retries after a restart can be signed; deleted when the delivery settles.
   * Absent when the outbox resolves each endpoint's current secret at attempt time.
   */
  secret?: string;
}

export interface CountFilter {
  endpointId?: string;
  tenant?: string;
  status?: DeliveryStatus;
}

export interface ListFilter extends CountFilter {
  limit: number;
  offset: number;
}

/** A new pending record, before any attempt. */
export function newRecord(id: string, endpointId: string, tenant: string | null, event: { id: string; type: string }, url: string, createdAtMs: number): DeliveryRecord {
  return {
    id,
    endpointId,
    tenant,
    eventId: event.id,
    eventType: event.type,
    url,
    status: 'pending',
    attemptNumber: 0,
    statusCode: null,
    nextRetryAt: null,
    requestTimestamp: null,
    responseTimestamp: null,
    duration: null,
    createdAt: new Date(createdAtMs).toISOString(),
  };
}

/** Writes an attempt's outcome into the record. `nextAt` is null when no attempt is left. */
export function applyOutcome(record: DeliveryRecord, outcome: AttemptOutcome, attempt: number, nextAt: number | null): void {
  record.attemptNumber = attempt;
  record.statusCode = outcome.statusCode;
  record.status = outcome.ok ? 'delivered' : nextAt === null ? 'failed' : 'pending';
  record.nextRetryAt = record.status === 'pending' ? new Date(nextAt!).toISOString() : null;
  if (outcome.ok) delete record.error;
  else record.error = outcome.error;
  record.requestTimestamp = new Date(outcome.requestedAt).toISOString();
  record.responseTimestamp = new Date(outcome.respondedAt).toISOString();
  record.duration = outcome.duration;
}

type Db = AbstractSublevel<any, any, Uint8Array, Uint8Array>;
type Op = AbstractBatchOperation<Db, Uint8Array, Uint8Array>;

const enc = new TextEncoder();
const dec = new TextDecoder();
const EMPTY = new Uint8Array(0);
const BINARY = { keyEncoding: 'view', valueEncoding: 'view' } as const;

const key = (...parts: string[]): Uint8Array => enc.encode(parts.join('\0'));
/** [gt, lt] of every key `parts… \0 <delivery id>`: ids are ASCII, so 0x7f is above them all. */
function range(...parts: string[]): { gt: Uint8Array; lt: Uint8Array } {
  return { gt: key(...parts, ''), lt: key(...parts, '\x7f') };
}

export class DeliveryStore {
  private readonly db: Db;
  /** null when nothing is synced (`sync: false`: tests, and benches of the difference) */
  private readonly group: GroupCommit | null;

  constructor(parent: BinarySublevel, opts: { sync: boolean }) {
    this.db = parent.sublevel<Uint8Array, Uint8Array>('webhooks', BINARY) as Db;
    this.group = opts.sync
      ? new GroupCommit(this.db, {
          failure: (err) => unavailable('WEBHOOK_OUTBOX_SYNC_FAILED', `the webhook outbox could not write and sync a delivery: ${err.message}`, { retryAfterSeconds: 1 }),
        })
      : null;
  }

  /**
   * Writes a new delivery with its index entries (and its payload, if it will be attempted).
   * `durable`: resolves once the batch is on disk, in a synced batch shared with the inserts
   * that arrive meanwhile; else once it is written, as the other writes are.
   */
  async insert(stored: StoredDelivery, payload: Payload | undefined, durable: boolean): Promise<void> {
    const r = stored.record;
    const ops: Op[] = [put(key('d', r.id), json(stored)), put(key('s', r.status, r.id), EMPTY), put(key('e', r.endpointId, r.id), EMPTY)];
    if (r.tenant !== null) ops.push(put(key('n', r.tenant, r.id), EMPTY));
    if (payload) ops.push(put(key('b', r.id), json(payload)));
    if (durable && this.group) await this.group.add(ops);
    else await this.db.batch(ops);
  }

  /** Resolves once no synced insert is queued or being written. */
  async drained(): Promise<void> {
    await this.group?.drained();
  }

  /**
   * Writes the outcome of an attempt in one batch with its payload change: a delivered one's
   * payload goes; a failed one keeps `body` (given) without the secret, so it can be resent.
   */
  async update(stored: StoredDelivery, previous: DeliveryStatus, body?: string): Promise<void> {
    const r = stored.record;
    const ops: Op[] = [put(key('d', r.id), json(stored))];
    if (r.status !== previous) ops.push(del(key('s', previous, r.id)), put(key('s', r.status, r.id), EMPTY));
    if (r.status === 'failed' && body !== undefined) ops.push(put(key('b', r.id), json({ body } satisfies Payload)));
    else if (r.status !== 'pending') ops.push(del(key('b', r.id)));
    await this.db.batch(ops);
  }

  async get(id: string): Promise<StoredDelivery | undefined> {
    if (!isDeliveryId(id)) return undefined;
    const v = await this.db.get(key('d', id));
    return v === undefined ? undefined : (JSON.parse(dec.decode(v)) as StoredDelivery);
  }

  async payload(id: string): Promise<Payload | undefined> {
    const v = await this.db.get(key('b', id));
    return v === undefined ? undefined : (JSON.parse(dec.decode(v)) as Payload);
  }

  /** Every pending delivery, oldest first. */
  async *pending(): AsyncGenerator<StoredDelivery> {
    for await (const k of this.db.keys(range('s', 'pending'))) {
      const stored = await this.get(idOf(k));
      if (stored?.record.status === 'pending') yield stored;
    }
  }

  /**
   * Newest first. The narrowest index the filter names is read, and the other conditions are
   * checked on the records, so a read costs about offset + limit gets in the common cases.
   */
  async list(f: ListFilter): Promise<DeliveryRecord[]> {
    const match = (r: DeliveryRecord): boolean =>
      (f.endpointId === undefined || r.endpointId === f.endpointId) && (f.tenant === undefined || r.tenant === f.tenant) && (f.status === undefined || r.status === f.status);
    const out: DeliveryRecord[] = [];
    let skipped = 0;
    const take = (r: DeliveryRecord | undefined): boolean => {
      if (!r || !match(r)) return false;
      if (skipped < f.offset) skipped++;
      else out.push(r);
      return out.length >= f.limit;
    };
    if (f.endpointId === undefined && f.tenant === undefined && f.status === undefined) {
      for await (const v of this.db.values({ ...range('d'), reverse: true })) {
        if (take((JSON.parse(dec.decode(v)) as StoredDelivery).record)) break;
      }
      return out;
    }
    const index = f.endpointId !== undefined ? range('e', f.endpointId) : f.tenant !== undefined ? range('n', f.tenant) : range('s', f.status!);
    for await (const k of this.db.keys({ ...index, reverse: true })) {
      if (take((await this.get(idOf(k)))?.record)) break;
    }
    return out;
  }

  /**
   * How many records match. One condition counts index keys alone; more read the records of
   * the narrowest index, so the cost grows with that index (bounded by the retention).
   */
  async count(f: CountFilter): Promise<number> {
    const conditions = [f.endpointId, f.tenant, f.status].filter((c) => c !== undefined).length;
    let n = 0;
    if (conditions === 0) {
      for await (const _ of this.db.keys(range('d'))) n++;
      return n;
    }
    const index = f.endpointId !== undefined ? range('e', f.endpointId) : f.tenant !== undefined ? range('n', f.tenant) : range('s', f.status!);
    if (conditions === 1) {
      for await (const _ of this.db.keys(index)) n++;
      return n;
    }
    let ids: string[] = [];
    const flush = async (): Promise<void> => {
      const values = await this.db.getMany(ids.map((id) => key('d', id)));
      for (const v of values) {
        if (v === undefined) continue;
        const r = (JSON.parse(dec.decode(v)) as StoredDelivery).record;
        if ((f.endpointId === undefined || r.endpointId === f.endpointId) && (f.tenant === undefined || r.tenant === f.tenant) && (f.status === undefined || r.status === f.status)) n++;
      }
      ids = [];
    };
    for await (const k of this.db.keys(index)) {
      ids.push(idOf(k));
      if (ids.length >= 256) await flush();
    }
    await flush();
    return n;
  }

  /**
   * Deletes delivered and failed deliveries created before `cutoffMs`, oldest first, stopping
   * at the first id that is newer. Pending ones stay whatever their age: they are still owed.
   */
  async prune(cutoffMs: number): Promise<number> {
    let deleted = 0;
    const batch = new ChunkedBatch<Op>((ops) => this.db.batch(ops));
    for await (const v of this.db.values(range('d'))) {
      const { record: r } = JSON.parse(dec.decode(v)) as StoredDelivery;
      if (deliveryIdTime(r.id) >= cutoffMs) break;
      if (r.status === 'pending') continue;
      await batch.add(del(key('d', r.id)), del(key('s', r.status, r.id)), del(key('e', r.endpointId, r.id)), del(key('b', r.id)), ...(r.tenant !== null ? [del(key('n', r.tenant, r.id))] : []));
      deleted++;
    }
    await batch.flush();
    return deleted;
  }
}

const json = (value: unknown): Uint8Array => enc.encode(JSON.stringify(value));
const put = (k: Uint8Array, value: Uint8Array): Op => ({ type: 'put', key: k, value });
const del = (k: Uint8Array): Op => ({ type: 'del', key: k });

/** The delivery id at the end of an index key. */
function idOf(k: Uint8Array): string {
  const text = dec.decode(k);
  return text.slice(text.lastIndexOf('\0') + 1);
}
