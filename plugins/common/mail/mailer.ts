import { createTransport, type Transporter } from 'nodemailer';
import type { Registry } from 'prom-client';
import type { Logger } from '../../../node/logging.js';
import type { BinarySublevel } from '../../../node/state/db.js';
import { MAIL_ERRORS, mailError, smtpFailure } from './errors.js';
import { checkMail, newMailId, type Mail } from './message.js';
import { MailMetrics } from './metrics.js';
import { MailOutbox, type StoredMail } from './outbox.js';
import { MailQueue } from './queue.js';
import { QUEUE_STATUSES, QueueStore, type QueueStatus, type QueuedMail } from './queue-store.js';

/**
 * Mail for the plugins (password resets, invitations, notifications): over SMTP when `smtpUrl`
 * is configured, otherwise into an outbox in the plugin's store that an operator reads over HTTP.
 *
 * Two ways to send. `send()` is for a mail the user waits on: one attempt now, and a failure is
 * a typed error, logged here, that the caller turns into what its user sees. `queue()` is for a
 * mail nobody waits on (notifications): it is written to the store before the call returns and
 * sent in the background, retried on transient failures (queue.ts). A mail that carries a
 * credential (a reset link, an invitation token) is sent, not queued: the queue keeps the body
 * in the store, where those plugins keep only a hash of the credential. docs/mail.md has the
 * schedule, the cap and which plugin sends what which way.
 */

export interface MailerOptions {
  /** the plugin's namespace; the outbox and the queue are child sublevels of it */
  store: BinarySublevel;
  /** `smtp://user:pass@host:port` or `smtps://…`; unset: the outbox */
  smtpUrl?: string | undefined;
  /** the From header, `Name <address>` or an address */
  from: string;
  log: Logger;
  /** where operators read the outbox, for the start-up warning */
  outboxRoute?: string;
  /** connection, greeting and socket timeouts of SMTP; default 10 s */
  timeoutMs?: number;
  now?: () => number;
  /** the node's registry and the plugin's name: ledger_mail_total and ledger_mail_pending */
  metrics?: { registry: Registry; plugin: string } | undefined;
  /** ms to wait after each failed attempt of a queued mail (queue.ts has the default) */
  retryDelaysMs?: readonly number[];
  /** pending mails the queue holds at most (queue.ts has the default) */
  maxPending?: number;
}

export interface SentMail {
  id: string;
  via: 'smtp' | 'outbox';
}

export interface QueuedResult {
  id: string;
  via: 'smtp' | 'outbox';
  /** `pending`: in the send queue; `stored`: in the outbox (no SMTP) */
  status: 'pending' | 'stored';
}

export class Mailer {
  private transport: Transporter | undefined;
  private started = false;
  private readonly outboxStore: MailOutbox;
  private readonly queueStore: QueueStore;
  private readonly sendQueue: MailQueue;
  /** the queue's resumption from the store, which queue() waits for */
  private resuming: Promise<void> = Promise.resolve();
  private readonly metrics: MailMetrics | undefined;
  private readonly now: () => number;

  constructor(private readonly opts: MailerOptions) {
    this.outboxStore = new MailOutbox(opts.store);
    this.queueStore = new QueueStore(opts.store);
    this.now = opts.now ?? Date.now;
    this.metrics = opts.metrics && new MailMetrics(opts.metrics.registry, opts.metrics.plugin);
    this.sendQueue = new MailQueue({ store: this.queueStore, log: opts.log, now: this.now, deliver: (mail, id) => this.deliver(mail, id), retryDelaysMs: opts.retryDelaysMs, maxPending: opts.maxPending, metrics: this.metrics });
  }

  get via(): 'smtp' | 'outbox' {
    return this.opts.smtpUrl === undefined ? 'outbox' : 'smtp';
  }

  /** Opens SMTP (or warns of the outbox) and, with SMTP, resumes the queue's pending mails in the background. */
  start(): void {
    if (this.started) return;
    this.started = true;
    if (this.opts.smtpUrl === undefined) {
      this.opts.log.warn({ outbox: this.opts.outboxRoute ?? 'GET /v1/operator/mail' }, `no SMTP configured; mail goes to the outbox at ${this.opts.outboxRoute ?? 'GET /v1/operator/mail'}`);
      return;
    }
    const timeout = this.opts.timeoutMs ?? 10_000;
    // nodemailer parses the URL (host, port, credentials, smtps = implicit TLS); the timeouts keep a dead server from holding a send forever
    this.transport = createTransport({ url: this.opts.smtpUrl, connectionTimeout: timeout, greetingTimeout: timeout, socketTimeout: timeout } as never);
    const u = new URL(this.opts.smtpUrl);
    this.opts.log.info({ smtp: `${u.protocol}//${u.hostname}:${u.port || (u.protocol === 'smtps:' ? 465 : 587)}` }, 'mail goes out over SMTP');
    this.resuming = this.sendQueue.start();
    // queue() reports the error to its callers; this keeps it from being an unhandled rejection
    this.resuming.catch((err: unknown) => this.opts.log.error({ err }, 'the mail queue could not read its pending mails; queue() fails until a restart'));
  }

  /** Stops the queue (its attempts in flight finish and are written), then SMTP. */
  async stop(): Promise<void> {
    this.started = false;
    await this.resuming.catch(() => undefined);
    await this.sendQueue.stop();
    this.transport?.close();
    this.transport = undefined;
    this.metrics?.close();
  }

  /** One attempt now; the caller waits and tells its user. */
  async send(mail: Mail): Promise<SentMail> {
    if (!this.started) throw mailError(MAIL_ERRORS.MAIL_NOT_STARTED, 'the mailer is not running', 'internal');
    checkMail(mail);
    const id = newMailId(this.now());
    if (!this.transport) {
      await this.store(mail, id);
      return { id, via: 'outbox' };
    }
    let response: string;
    try {
      response = await this.deliver(mail, id);
    } catch (err) {
      this.metrics?.count('failed');
      this.opts.log.error({ err, mail: id, to: mail.to }, 'mail send failed');
      throw err;
    }
    this.metrics?.count('sent');
    this.opts.log.info({ mail: id, to: mail.to, response }, 'mail sent');
    return { id, via: 'smtp' };
  }

  /**
   * Into the send queue (or, with no SMTP, the outbox), durably before it returns; sent in the
   * background. `tag` says whom the mail is for (the relay: the tenant), to filter `queued()` by.
   * MAIL_QUEUE_FULL when the queue holds its cap of pending mails.
   */
  async queue(mail: Mail, opts: { tag?: string } = {}): Promise<QueuedResult> {
    if (!this.started) throw mailError(MAIL_ERRORS.MAIL_NOT_STARTED, 'the mailer is not running', 'internal');
    checkMail(mail);
    if (!this.transport) {
      const id = newMailId(this.now());
      await this.store(mail, id);
      return { id, via: 'outbox', status: 'stored' };
    }
    await this.resuming;
    const queued = await this.sendQueue.enqueue(mail, opts.tag ?? null);
    return { id: queued.id, via: 'smtp', status: 'pending' };
  }

  /** The queue's mails, newest first, with their state (pending, sent, failed); by status and tag. */
  async queued(filter: { limit?: number; status?: QueueStatus | undefined; tag?: string | undefined } = {}): Promise<QueuedMail[]> {
    if (filter.status !== undefined && !QUEUE_STATUSES.includes(filter.status)) throw mailError(MAIL_ERRORS.MAIL_INVALID, `status is one of ${QUEUE_STATUSES.join(', ')}`, 'invalid');
    return this.queueStore.list({ limit: Math.max(1, Math.min(filter.limit ?? 50, 1000)), status: filter.status, tag: filter.tag });
  }

  /** The outbox, newest first (empty when mail goes over SMTP). */
  outbox(limit = 50): Promise<StoredMail[]> {
    return this.outboxStore.list(Math.max(1, Math.min(limit, 1000)));
  }

  private async store(mail: Mail, id: string): Promise<void> {
    const stored: StoredMail = { id, from: this.opts.from, to: mail.to, subject: mail.subject, text: mail.text, createdAt: new Date(this.now()).toISOString() };
    if (mail.html !== undefined) stored.html = mail.html;
    await this.outboxStore.put(stored, this.now());
    this.metrics?.count('stored');
    this.opts.log.info({ mail: id, to: mail.to }, 'mail stored in the outbox');
  }

  /** One SMTP attempt; the server's answer. A failure is MAIL_SEND_FAILED with `data.reason` and `data.permanent` (errors.ts, smtpFailure). */
  private async deliver(mail: Mail, id: string): Promise<string> {
    const transport = this.transport;
    if (!transport) throw mailError(MAIL_ERRORS.MAIL_NOT_STARTED, 'the mailer is not running', 'internal');
    try {
      const info = await transport.sendMail({ from: this.opts.from, to: mail.to, subject: mail.subject, text: mail.text, ...(mail.html !== undefined ? { html: mail.html } : {}), messageId: `<${id}@ledger>` });
      const rejected = (info.rejected ?? []).map(String);
      // one recipient: a rejected one is the whole mail refused, as a 5xx would be
      if (rejected.length > 0) throw Object.assign(new Error(`the server rejected ${rejected.join(', ')}`), { code: 'EENVELOPE', responseCode: 550 });
      return String(info.response ?? '').slice(0, 200);
    } catch (err) {
      const { reason, permanent } = smtpFailure(err);
      throw mailError(MAIL_ERRORS.MAIL_SEND_FAILED, `the mail to ${mail.to} could not be sent: ${reason}`, 'internal', { reason, to: mail.to, permanent }, err);
    }
  }
}
