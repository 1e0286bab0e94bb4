import type { AbstractSublevel } from 'abstract-level';
import type { BinarySublevel } from '../../../node/state/db.js';

/**
 * The outbox: mails kept in the plugin's store when no SMTP server is configured, for an
 * operator to read (and pass on by hand). Keys are `<13-digit ms>:<id>`, so they sort by time;
 * only the newest MAX_OUTBOX are kept, so a flood of reset requests cannot fill the disk.
 */

export const OUTBOX_SUBLEVEL = 'mail-outbox';
export const MAX_OUTBOX = 1000;

export interface StoredMail {
  id: string; // mail_…
  from: string;
  to: string;
  subject: string;
  text: string;
  html?: string;
  createdAt: string;
}

type Sub = AbstractSublevel<BinarySublevel, any, string, StoredMail>;

export class MailOutbox {
  private readonly db: Sub;
  /** writes and prunes run one after another, so the prune never counts a half-written state */
  private tail: Promise<void> = Promise.resolve();

  constructor(store: BinarySublevel) {
    this.db = store.sublevel<string, StoredMail>(OUTBOX_SUBLEVEL, { keyEncoding: 'utf8', valueEncoding: 'json' }) as Sub;
  }

  put(mail: StoredMail, atMs: number): Promise<void> {
    const run = this.tail.then(async () => {
      await this.db.put(`${String(Math.max(0, Math.floor(atMs))).padStart(13, '0')}:${mail.id}`, mail);
      await this.prune();
    });
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** The newest `limit` mails, newest first. */
  async list(limit: number): Promise<StoredMail[]> {
    const out: StoredMail[] = [];
    for await (const value of this.db.values({ reverse: true, limit })) out.push(value);
    return out;
  }

  private async prune(): Promise<void> {
    let seen = 0;
    const old: string[] = [];
    for await (const k of this.db.keys({ reverse: true })) if (++seen > MAX_OUTBOX) old.push(k);
    if (old.length > 0) await this.db.batch(old.map((k) => ({ type: 'del' as const, key: k })));
  }
}
