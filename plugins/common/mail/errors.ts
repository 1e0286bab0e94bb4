import { LedgerError, type ErrorKind } from '../../../node/errors.js';

/** The mailer's stable error codes. */
export const MAIL_ERRORS = {
  /** the message itself is unusable (an address or subject that is not one line, an empty body) */
  MAIL_INVALID: 'MAIL_INVALID',
  /** the SMTP server refused the message or could not be reached; `data.reason` says why, `data.permanent` whether another attempt could do better */
  MAIL_SEND_FAILED: 'MAIL_SEND_FAILED',
  /** send() or queue() before start() or after stop() */
  MAIL_NOT_STARTED: 'MAIL_NOT_STARTED',
  /** queue() while the plugin's queue already holds its cap of pending mails; `data.maxPending` */
  MAIL_QUEUE_FULL: 'MAIL_QUEUE_FULL',
  /** a retry schedule or cap the queue cannot use */
  MAIL_OPTIONS_INVALID: 'MAIL_OPTIONS_INVALID',
} as const;

export type MailErrorCode = (typeof MAIL_ERRORS)[keyof typeof MAIL_ERRORS];

export function mailError(code: MailErrorCode, message: string, kind: ErrorKind, data: Record<string, unknown> = {}, cause?: unknown): LedgerError {
  const err = new LedgerError(code, message, kind, data);
  // the transport's own error (ECONNREFUSED, a 5xx reply) is for the log, not for a caller
  if (cause !== undefined) err.cause = cause;
  return err;
}

/**
 * What went wrong with an SMTP attempt, in a line, and whether it is permanent. nodemailer puts
 * the server's reply in `response` and its code in `responseCode`, and the stage in `code`.
 * Permanent: a 5xx reply to the mail (RFC 5321: the same message would be refused again), except
 * 503 (a bad command sequence, which a new connection mends) and an authentication failure (our
 * configuration, not the mail: once it is fixed the mail goes). Everything else is transient: a
 * 4xx reply, a refused or dropped connection, a timeout, DNS, TLS.
 */
export function smtpFailure(err: unknown): { reason: string; permanent: boolean } {
  const e = err as { code?: unknown; response?: unknown; responseCode?: unknown; message?: unknown } | undefined;
  const status = typeof e?.responseCode === 'number' ? e.responseCode : 0;
  const permanent = status >= 500 && status < 600 && status !== 503 && e?.code !== 'EAUTH';
  let reason = 'unknown error';
  if (typeof e?.response === 'string' && e.response !== '') reason = `${e.code ?? 'SMTP'}: ${e.response.slice(0, 200)}`;
  else if (typeof e?.message === 'string') reason = `${typeof e.code === 'string' ? `${e.code}: ` : ''}${e.message.slice(0, 200)}`;
  return { reason, permanent };
}
