import { LedgerError, invalid } from '../../../node/errors.js';
import { stringifyJson } from '../../../node/protocol/json.js';
import { validateWebhookUrl } from './url.js';

/**
 * What a plugin hands the outbox, checked before anything is stored, and the delivery envelope
 * every attempt sends: `{id, type, createdAt, data}`.
 */

export const MAX_BODY_BYTES = 1024 * 1024;

export interface WebhookEndpoint {
  id: string;
  url: string;
  secret: string;
}

export interface WebhookEvent {
  /** `evt_…`; test deliveries use `evt_test_…` */
  id: string;
  type: string;
  /** ISO 8601 */
  createdAt: string;
  data: unknown;
}

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
// Ids and types go into headers and store keys: printable ASCII only, no NUL, no CR/LF.
const EVENT_ID = /^evt_[A-Za-z0-9_-]{1,200}$/;
const TOKEN = /^[\x21-\x7e]{1,200}$/;

/** The normalized URL and the body to send; typed errors (kind invalid, or limit for size). */
export function checkDelivery(endpoint: WebhookEndpoint, event: WebhookEvent, tenant: string | undefined, allowHttpHosts: readonly string[] = []): { url: string; body: string } {
  const url = checkEndpoint(endpoint, allowHttpHosts);
  if (tenant !== undefined && (typeof tenant !== 'string' || !TOKEN.test(tenant))) throw invalid('WEBHOOK_TENANT_INVALID', 'a tenant is 1 to 200 printable ASCII characters');
  if (typeof event?.id !== 'string' || !EVENT_ID.test(event.id)) throw invalid('WEBHOOK_EVENT_INVALID', 'an event id is evt_ and 1 to 200 of A-Z, a-z, 0-9, _ and -');
  if (typeof event.type !== 'string' || !TOKEN.test(event.type)) throw invalid('WEBHOOK_EVENT_INVALID', 'an event type is 1 to 200 printable ASCII characters');
  if (typeof event.createdAt !== 'string' || !ISO_8601.test(event.createdAt) || Number.isNaN(Date.parse(event.createdAt))) {
    throw invalid('WEBHOOK_EVENT_INVALID', 'an event createdAt is an ISO 8601 date and time');
  }
  // Encoded once: every attempt sends these same bytes (bigint-safe, like the rest of the node).
  const body = stringifyJson({ id: event.id, type: event.type, createdAt: event.createdAt, data: event.data });
  if (Buffer.byteLength(body, 'utf8') > MAX_BODY_BYTES) throw new LedgerError('WEBHOOK_BODY_TOO_LARGE', `a webhook body is at most ${MAX_BODY_BYTES} bytes`, 'limit');
  return { url, body };
}

/** The endpoint's normalized URL; typed errors (kind invalid) for a bad id, secret or URL. */
export function checkEndpoint(endpoint: WebhookEndpoint, allowHttpHosts: readonly string[] = []): string {
  if (typeof endpoint?.id !== 'string' || !TOKEN.test(endpoint.id)) throw invalid('WEBHOOK_ENDPOINT_INVALID', 'an endpoint id is 1 to 200 printable ASCII characters');
  if (typeof endpoint.secret !== 'string' || endpoint.secret.length === 0) throw invalid('WEBHOOK_ENDPOINT_INVALID', 'an endpoint needs a secret');
  return validateWebhookUrl(endpoint.url, { allowHttpHosts });
}
