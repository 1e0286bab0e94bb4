/** Mail for the plugins: SMTP, or an operator-readable outbox when none is configured; a durable send queue for mail nobody waits on. */
export { MAIL_ERRORS, type MailErrorCode } from './errors.js';
export { Mailer, type MailerOptions, type QueuedResult, type SentMail } from './mailer.js';
export { type Mail } from './message.js';
export { MAIL_RESULTS, type MailResult } from './metrics.js';
export { MAX_OUTBOX, OUTBOX_SUBLEVEL, type StoredMail } from './outbox.js';
export { DEFAULT_MAX_PENDING, DEFAULT_RETRY_DELAYS_MS, SETTLED_KEPT, SETTLED_RETENTION_MS } from './queue.js';
export { QUEUE_STATUSES, QUEUE_SUBLEVEL, type QueueStatus, type QueuedMail } from './queue-store.js';
