/**
 * Webhook delivery shared by the plugins: signing, the endpoint URL rule, and a durable outbox
 * with retries. docs/webhooks.md describes what receivers see.
 */
export {
  DEFAULT_TOLERANCE_SECONDS,
  SIGNATURE_HEADER,
  hmacSha256Hex,
  newWebhookSecret,
  signWebhook,
  verifyWebhookSignature,
  type VerifyOptions,
} from './signature.js';
export { MAX_WEBHOOK_URL_LENGTH, validateWebhookUrl, type WebhookUrlOptions } from './url.js';
export { isTestEventId, newEventId } from './ids.js';
export type { CountFilter, DeliveryRecord, DeliveryStatus } from './store.js';
export { MAX_BODY_BYTES, type WebhookEndpoint, type WebhookEvent } from './event.js';
export {
  DEFAULT_RETENTION_MS,
  DEFAULT_SCHEDULE,
  DEFAULT_TIMEOUT_MS,
  WebhookOutbox,
  type ListOptions,
  type SendNowResult,
  type WebhookOutboxOptions,
} from './outbox.js';
