/** Mail for the plugins: SMTP, or an operator-readable outbox when none is configured. */
export { MAIL_ERRORS, type MailErrorCode } from './errors.js';
export { Mailer, type Mail, type MailerOptions, type SentMail } from './mailer.js';
export { MAX_OUTBOX, OUTBOX_SUBLEVEL, type StoredMail } from './outbox.js';
