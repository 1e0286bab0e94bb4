import { createTransport, type Transporter } from 'nodemailer';
import type { Logger } from '../../../node/logging.js';
import type { BinarySublevel } from '../../../node/state/db.js';
import { MAIL_ERRORS, mailError } from './errors.js';
import { MailOutbox, newMailId, type StoredMail } from './outbox.js';

/**
 * Mail for the plugins (password resets, invitations): over SMTP when `smtpUrl` is configured,
 * otherwise into an outbox in the plugin's store that an operator reads over HTTP. A mail that
 * SMTP refuses is not moved to the outbox: the failure is a typed error, logged here, and the
 * caller decides what its user sees.
 */

export interface MailerOptions {
  /** the plugin's namespace; the outbox is a child sublevel of it */
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
}

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

export interface SentMail {
  id: string;
  via: 'smtp' | 'outbox';
}

const MAX_SUBJECT = 300;
const MAX_BODY = 256 * 1024;
/** one address, no display name: what the plugins send to (an account's email) */
const ADDRESS = /^[^\s@<>(),;:"\\]{1,64}@[^\s@<>(),;:"\\]{1,255}$/;

export class Mailer {
  private transport: Transporter | undefined;
  private started = false;
  private readonly outboxStore: MailOutbox;
  private readonly now: () => number;

  constructor(private readonly opts: MailerOptions) {
    this.outboxStore = new MailOutbox(opts.store);
    this.now = opts.now ?? Date.now;
  }

  get via(): 'smtp' | 'outbox' {
    return this.opts.smtpUrl === undefined ? 'outbox' : 'smtp';
  }

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
  }

  async stop(): Promise<void> {
    this.started = false;
    this.transport?.close();
    this.transport = undefined;
  }

  async send(mail: Mail): Promise<SentMail> {
    if (!this.started) throw mailError(MAIL_ERRORS.MAIL_NOT_STARTED, 'the mailer is not running', 'internal');
    check(mail);
    const id = newMailId();
    if (!this.transport) {
      const stored: StoredMail = { id, from: this.opts.from, to: mail.to, subject: mail.subject, text: mail.text, createdAt: new Date(this.now()).toISOString() };
      if (mail.html !== undefined) stored.html = mail.html;
      await this.outboxStore.put(stored, this.now());
      this.opts.log.info({ mail: id, to: mail.to }, 'mail stored in the outbox');
      return { id, via: 'outbox' };
    }
    try {
      const info = await this.transport.sendMail({ from: this.opts.from, to: mail.to, subject: mail.subject, text: mail.text, ...(mail.html !== undefined ? { html: mail.html } : {}), messageId: `<${id}@ledger>` });
      const rejected = (info.rejected ?? []).map(String);
      if (rejected.length > 0) throw Object.assign(new Error(`the server rejected ${rejected.join(', ')}`), { code: 'EENVELOPE' });
      this.opts.log.info({ mail: id, to: mail.to, response: String(info.response ?? '').slice(0, 200) }, 'mail sent');
      return { id, via: 'smtp' };
    } catch (err) {
      const reason = smtpReason(err);
      const failure = mailError(MAIL_ERRORS.MAIL_SEND_FAILED, `the mail to ${mail.to} could not be sent: ${reason}`, 'internal', { reason, to: mail.to }, err);
      this.opts.log.error({ err: failure, mail: id, to: mail.to }, 'mail send failed');
      throw failure;
    }
  }

  /** The outbox, newest first (empty when mail goes over SMTP). */
  outbox(limit = 50): Promise<StoredMail[]> {
    return this.outboxStore.list(Math.max(1, Math.min(limit, 1000)));
  }
}

function check(mail: Mail): void {
  const bad = (what: string) => mailError(MAIL_ERRORS.MAIL_INVALID, what, 'invalid');
  if (typeof mail.to !== 'string' || !ADDRESS.test(mail.to)) throw bad(`the recipient ${JSON.stringify(String(mail.to).slice(0, 100))} is not an email address`);
  if (typeof mail.subject !== 'string' || mail.subject.trim() === '' || mail.subject.length > MAX_SUBJECT || /[\r\n]/.test(mail.subject)) {
    throw bad(`the subject must be one non-empty line of at most ${MAX_SUBJECT} characters`);
  }
  if (typeof mail.text !== 'string' || mail.text === '' || mail.text.length > MAX_BODY) throw bad(`the text must be non-empty and at most ${MAX_BODY} characters`);
  if (mail.html !== undefined && (typeof mail.html !== 'string' || mail.html.length > MAX_BODY)) throw bad(`the html must be at most ${MAX_BODY} characters`);
}

/** What went wrong, in a line: nodemailer puts the SMTP reply in `response` and the stage in `code`. */
function smtpReason(err: unknown): string {
  const e = err as { code?: unknown; response?: unknown; responseCode?: unknown; message?: unknown };
  if (typeof e?.response === 'string' && e.response !== '') return `${e.code ?? 'SMTP'}: ${e.response.slice(0, 200)}`;
  if (typeof e?.message === 'string') return `${typeof e.code === 'string' ? `${e.code}: ` : ''}${e.message.slice(0, 200)}`;
  return 'unknown error';
}
