import { LedgerError, type ErrorKind } from '../../../node/errors.js';

/** The mailer's stable error codes. */
export const MAIL_ERRORS = {
  /** the message itself is unusable (an address or subject that is not one line, an empty body) */
  MAIL_INVALID: 'MAIL_INVALID',
  /** the SMTP server refused the message or could not be reached; `data.reason` says why */
  MAIL_SEND_FAILED: 'MAIL_SEND_FAILED',
  /** send() before start() or after stop() */
  MAIL_NOT_STARTED: 'MAIL_NOT_STARTED',
} as const;

export type MailErrorCode = (typeof MAIL_ERRORS)[keyof typeof MAIL_ERRORS];

export function mailError(code: MailErrorCode, message: string, kind: ErrorKind, data: Record<string, unknown> = {}, cause?: unknown): LedgerError {
  const err = new LedgerError(code, message, kind, data);
  // the transport's own error (ECONNREFUSED, a 5xx reply) is for the log, not for a caller
  if (cause !== undefined) err.cause = cause;
  return err;
}
