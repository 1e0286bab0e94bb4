import { LedgerError } from '../../../node/errors.js';
import type { Logger } from '../../../node/logging.js';
import { MAIL_ERRORS, mailError } from './errors.js';
import { newMailId, type Mail } from './message.js';
import type { MailMetrics } from './metrics.js';
import type { QueueStore, QueuedMail } from './queue-store.js';

/**
 * The send queue: mails nobody waits on (notifications). A queued mail is written to the
 * plugin's store before enqueue() returns, then sent in the background. A transient failure
 * (no connection, a timeout, a 4xx reply) is tried again after the next delay of the schedule;
 * a permanent one (a 5xx reply: the address or the message refused) fails the mail at once, as
 * does the last attempt. Every outcome is written before the next attempt is planned, so after a
 * restart, or a kill -9, the pending mails carry on from the store; one in flight at a crash is
 * sent again (at least once; it keeps its Message-ID, which lets mail clients drop the copy).
 */

/** ms to wait after each failed attempt: 8 attempts over about 22 hours */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [30_000, 120_000, 600_000, 3_600_000, 3 * 3_600_000, 6 * 3_600_000, 12 * 3_600_000];
/** pending mails per plugin; past it queue() refuses (MAIL_QUEUE_FULL) rather than drop one it promised */
export const DEFAULT_MAX_PENDING = 1000;
/** sent and failed records kept, for operators to read: the newest this many, for at most 7 days */
export const SETTLED_KEPT = 1000;
export const SETTLED_RETENTION_MS = 7 * 24 * 3_600_000;
/** SMTP attempts at once: a burst does not open a connection per mail */
const MAX_IN_FLIGHT = 4;
/** settled mails between two prunes, besides the hourly one */
const PRUNE_EVERY = 100;
// setTimeout's limit; a later due time re-arms on firing
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface MailQueueOptions {
  store: QueueStore;
  log: Logger;
  now: () => number;
  /** one SMTP attempt; a failure is MAIL_SEND_FAILED with `data.permanent` */
  deliver: (mail: Mail, id: string) => Promise<unknown>;
  retryDelaysMs?: readonly number[] | undefined;
  maxPending?: number | undefined;
  metrics?: MailMetrics | undefined;
}

export class MailQueue {
  private readonly delays: readonly number[];
  private readonly maxPending: number;
  private state: 'stopped' | 'running' = 'stopped';
  /** pending ids not in flight → when their next attempt is due (ms) */
  private readonly due = new Map<string, number>();
  private readonly inFlight = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private pruneTimer: NodeJS.Timeout | undefined;
  private pruning: Promise<void> | undefined;
  private pendingCount = 0;
  private settledSincePrune = 0;

  constructor(private readonly opts: MailQueueOptions) {
    this.delays = [...(opts.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS)];
    if (this.delays.length > 50 || this.delays.some((d) => !Number.isFinite(d) || d < 0)) throw mailError(MAIL_ERRORS.MAIL_OPTIONS_INVALID, 'retryDelaysMs is at most 50 delays of 0 ms or more', 'invalid');
    this.maxPending = opts.maxPending ?? DEFAULT_MAX_PENDING;
    if (!Number.isSafeInteger(this.maxPending) || this.maxPending < 1) throw mailError(MAIL_ERRORS.MAIL_OPTIONS_INVALID, 'maxPending is a whole number from 1', 'invalid');
  }

  /** Loads the pending mails from the store and plans each at its due time (at once if past). */
  async start(): Promise<void> {
    if (this.state === 'running') return;
    this.state = 'running';
    for await (const mail of this.opts.store.pending()) this.due.set(mail.id, Date.parse(mail.nextAttemptAt ?? '') || 0);
    this.pendingCount = this.due.size;
    this.opts.metrics?.pending(this.pendingCount);
    if (this.pendingCount > 0) this.opts.log.info({ pending: this.pendingCount }, 'queued mails carry on from the store');
    this.pruneTimer = setInterval(() => void this.prune(), 3_600_000).unref();
    void this.prune();
    this.pump();
  }

  /** Stops planning; waits for the attempts in flight, whose outcome is written. The rest stay pending in the store. */
  async stop(): Promise<void> {
    if (this.state === 'stopped') return;
    this.state = 'stopped';
    clearTimeout(this.timer);
    clearInterval(this.pruneTimer);
    this.due.clear();
    await Promise.allSettled([...this.inFlight.values(), this.pruning]);
  }

  /** Writes the mail as pending (awaited), then sends it in the background. */
  async enqueue(mail: Mail, tag: string | null): Promise<QueuedMail> {
    if (this.state !== 'running') throw mailError(MAIL_ERRORS.MAIL_NOT_STARTED, 'the mail queue is not running', 'internal');
    if (this.pendingCount >= this.maxPending) {
      this.opts.metrics?.count('refused');
      this.opts.log.warn({ to: mail.to, tag, maxPending: this.maxPending }, 'the mail queue is full; a mail was refused');
      throw mailError(MAIL_ERRORS.MAIL_QUEUE_FULL, `the mail queue holds ${this.maxPending} pending mails, its cap; the mail to ${mail.to} was not queued`, 'limit', { maxPending: this.maxPending });
    }
    // counted before the write, so concurrent calls cannot pass the cap together
    this.pendingCount++;
    const at = this.opts.now();
    const queued: QueuedMail = { id: newMailId(at), to: mail.to, subject: mail.subject, text: mail.text, tag, status: 'pending', attempts: 0, lastError: null, nextAttemptAt: iso(at), createdAt: iso(at), settledAt: null };
    if (mail.html !== undefined) queued.html = mail.html;
    try {
      await this.opts.store.insert(queued);
    } catch (err) {
      this.pendingCount--;
      throw err;
    }
    this.opts.metrics?.pending(this.pendingCount);
    if (this.state === 'running') {
      this.due.set(queued.id, at);
      this.pump();
    }
    return queued;
  }

  /** Starts every due mail while slots are free, and sets the timer for the next one due. */
  private pump(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.state !== 'running') return;
    const now = this.opts.now();
    let next = Infinity;
    for (const [id, at] of this.due) {
      if (at > now) next = Math.min(next, at);
      else if (this.inFlight.size < MAX_IN_FLIGHT) {
        this.due.delete(id);
        // a finished attempt pumps again, which also takes the due mails left waiting for a slot
        this.inFlight.set(id, this.attempt(id).finally(() => {
          this.inFlight.delete(id);
          this.pump();
        }));
      }
    }
    if (next !== Infinity) this.timer = setTimeout(() => this.pump(), Math.min(Math.max(0, next - now), MAX_TIMER_MS)).unref();
  }

  /** One attempt and its outcome written. Never throws: a store error leaves the mail pending for the next start. */
  private async attempt(id: string): Promise<void> {
    try {
      const mail = await this.opts.store.get(id);
      if (mail?.status !== 'pending') return;
      let failure: { reason: string; permanent: boolean } | undefined;
      if (mail.text === undefined) failure = { reason: 'the stored body is missing', permanent: true };
      else {
        try {
          await this.opts.deliver({ to: mail.to, subject: mail.subject, text: mail.text, ...(mail.html !== undefined ? { html: mail.html } : {}) }, id);
        } catch (err) {
          const data = err instanceof LedgerError ? err.data : {};
          failure = { reason: typeof data.reason === 'string' ? data.reason : String((err as Error)?.message ?? err), permanent: data.permanent === true };
        }
      }
      const at = this.opts.now();
      const next: QueuedMail = { ...mail, attempts: mail.attempts + 1 };
      const retryIn = failure && !failure.permanent ? this.delays[mail.attempts] : undefined;
      if (!failure) {
        Object.assign(next, { status: 'sent', nextAttemptAt: null, settledAt: iso(at) });
        // the recipient has it now; the store need not
        delete next.text;
        delete next.html;
      } else if (retryIn === undefined) Object.assign(next, { status: 'failed', lastError: failure.reason, nextAttemptAt: null, settledAt: iso(at) });
      else Object.assign(next, { lastError: failure.reason, nextAttemptAt: iso(at + retryIn) });
      await this.opts.store.update(next, 'pending');
      const fields = { mail: id, to: mail.to, tag: mail.tag, attempt: next.attempts };
      if (next.status === 'pending') {
        this.opts.metrics?.count('retried');
        this.opts.log.warn({ ...fields, reason: failure!.reason, nextAttemptAt: next.nextAttemptAt }, 'a queued mail could not be sent; it will be tried again');
        if (this.state === 'running') this.due.set(id, at + retryIn!);
        return;
      }
      this.pendingCount--;
      this.opts.metrics?.pending(this.pendingCount);
      this.opts.metrics?.count(next.status === 'sent' ? 'sent' : 'failed');
      if (next.status === 'sent') this.opts.log.info(fields, 'queued mail sent');
      else this.opts.log.error({ ...fields, reason: failure!.reason, permanent: failure!.permanent }, failure!.permanent ? 'a queued mail was refused for good' : 'a queued mail failed on its last attempt');
      if (++this.settledSincePrune >= PRUNE_EVERY) void this.prune();
    } catch (err) {
      this.opts.log.error({ err, mail: id }, 'the mail queue could not process a mail; it stays pending until the next start');
    }
  }

  /** Drops old sent and failed records. Errors are logged: pruning is housekeeping. */
  private prune(): Promise<void> {
    this.pruning ??= (async () => {
      this.settledSincePrune = 0;
      try {
        const deleted = await this.opts.store.prune(this.opts.now() - SETTLED_RETENTION_MS, SETTLED_KEPT);
        if (deleted > 0) this.opts.log.info({ deleted }, 'the mail queue pruned old records');
      } catch (err) {
        this.opts.log.warn({ err }, 'the mail queue could not prune');
      } finally {
        this.pruning = undefined;
      }
    })();
    return this.pruning;
  }
}

const iso = (ms: number): string => new Date(ms).toISOString();
