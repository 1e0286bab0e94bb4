import type { AbstractBatchOperation, AbstractSublevel } from 'abstract-level';
import type { BinarySublevel } from '../../../node/state/db.js';
import { ChunkedBatch } from '../store/chunked-batch.js';

/**
 * The send queue's records, in a child sublevel `mail-queue` of the plugin's store. Keys are
 * UTF-8 with a NUL separator; mail ids sort by creation time, so a reverse read is newest first:
 *
 *   m \0 <mail id>                 QueuedMail (JSON)
 *   s \0 <status> \0 <mail id>     0 (status index: pending, sent, failed)
 *
 * A record and its index entry change in one batch, so after a crash the index never points at
 * a record in another status.
 */

export const QUEUE_SUBLEVEL = 'mail-queue';

export type QueueStatus = 'pending' | 'sent' | 'failed';
export const QUEUE_STATUSES: readonly QueueStatus[] = ['pending', 'sent', 'failed'];

export interface QueuedMail {
  id: string;
  to: string;
  subject: string;
  /** the body, kept while the mail is pending and once it failed (to pass on by hand); dropped once sent */
  text?: string;
  html?: string;
  /** whom the mail is for, as the plugin says (the relay: the tenant), to filter reads by */
  tag: string | null;
  status: QueueStatus;
  /** SMTP attempts made so far */
  attempts: number;
  /** why the last failed attempt failed; null before any failure */
  lastError: string | null;
  /** when the next attempt is due (ISO 8601); null once sent or failed */
  nextAttemptAt: string | null;
  createdAt: string;
  /** when it was sent or given up (ISO 8601); null while pending */
  settledAt: string | null;
}

export interface QueueFilter {
  limit: number;
  status?: QueueStatus | undefined;
  tag?: string | undefined;
}

type Db = AbstractSublevel<BinarySublevel, any, string, unknown>;
type Op = AbstractBatchOperation<Db, string, unknown>;

const recordKey = (id: string): string => `m\0${id}`;
const statusKey = (status: QueueStatus, id: string): string => `s\0${status}\0${id}`;
/** every key under a prefix: ids are ASCII, so \x01 is above them all */
const under = (prefix: string) => ({ gt: `${prefix}\0`, lt: `${prefix}\x01` });

export class QueueStore {
  private readonly db: Db;

  constructor(parent: BinarySublevel) {
    this.db = parent.sublevel<string, unknown>(QUEUE_SUBLEVEL, { keyEncoding: 'utf8', valueEncoding: 'json' }) as Db;
  }

  insert(mail: QueuedMail): Promise<void> {
    return this.db.batch([put(recordKey(mail.id), mail), put(statusKey(mail.status, mail.id), 0)]);
  }

  /** Writes the record and moves its index entry from `previous` in one batch. */
  update(mail: QueuedMail, previous: QueueStatus): Promise<void> {
    const ops: Op[] = [put(recordKey(mail.id), mail)];
    if (mail.status !== previous) ops.push(del(statusKey(previous, mail.id)), put(statusKey(mail.status, mail.id), 0));
    return this.db.batch(ops);
  }

  async get(id: string): Promise<QueuedMail | undefined> {
    return (await this.db.get(recordKey(id))) as QueuedMail | undefined;
  }

  /** Every pending mail, oldest first. */
  async *pending(): AsyncGenerator<QueuedMail> {
    for await (const k of this.db.keys(under('s\0pending'))) {
      const mail = await this.get(k.slice(k.lastIndexOf('\0') + 1));
      if (mail?.status === 'pending') yield mail;
    }
  }

  /** Newest first; with a status, read through its index. The tag is checked on the records. */
  async list(f: QueueFilter): Promise<QueuedMail[]> {
    const out: QueuedMail[] = [];
    const take = (m: QueuedMail | undefined): boolean => {
      if (m && (f.tag === undefined || m.tag === f.tag) && (f.status === undefined || m.status === f.status)) out.push(m);
      return out.length >= f.limit;
    };
    if (f.status === undefined) {
      for await (const v of this.db.values({ ...under('m'), reverse: true })) if (take(v as QueuedMail)) break;
    } else {
      for await (const k of this.db.keys({ ...under(`s\0${f.status}`), reverse: true })) if (take(await this.get(k.slice(k.lastIndexOf('\0') + 1)))) break;
    }
    return out;
  }

  /**
   * Deletes sent and failed records settled before `cutoffMs`, and those beyond the newest
   * `keep` settled ones. Pending mails stay whatever their age: they are still owed.
   */
  async prune(cutoffMs: number, keep: number): Promise<number> {
    let settled = 0;
    let deleted = 0;
    const batch = new ChunkedBatch<Op>((ops) => this.db.batch(ops));
    for await (const v of this.db.values({ ...under('m'), reverse: true })) {
      const m = v as QueuedMail;
      if (m.status === 'pending') continue;
      if (++settled <= keep && Date.parse(m.settledAt ?? m.createdAt) >= cutoffMs) continue;
      await batch.add(del(recordKey(m.id)), del(statusKey(m.status, m.id)));
      deleted++;
    }
    await batch.flush();
    return deleted;
  }
}

const put = (key: string, value: unknown): Op => ({ type: 'put', key, value });
const del = (key: string): Op => ({ type: 'del', key });
