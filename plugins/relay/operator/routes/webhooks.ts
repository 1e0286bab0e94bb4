import { randomBytes } from 'node:crypto';
import { newEventId } from '../../../common/webhooks/ids.js';
import { newWebhookSecret } from '../../../common/webhooks/signature.js';
import { validateWebhookUrl } from '../../../common/webhooks/url.js';
import { RELAY_EVENTS, WEBHOOK_DOC, type RelayEvent, type WebhookConfig } from '../../core/events.js';
import { HttpProblem, conflict, validation } from '../../../common/http/problems.js';
import { KeyedSerial, Reply } from '../../../common/http/router.js';
import { type RouteDeps } from '../router.js';
import { oneOf, onlyFields, onlyQuery, optionalBoolean, queryInt } from '../../../common/http/validate.js';

/**
 * The tenant's webhook (seed 000 "Webhook configuration", docs/webhooks.md for what receivers
 * get). One endpoint per tenant. The signing secret is made on the first PUT and shown in that
 * answer only; later PUTs keep it unless `rotateSecret: true`, which makes and shows a new one.
 * `POST /v1/webhooks/test` sends one signed delivery at once (event id `evt_test_…`), never
 * retried, and answers how it went; one test per tenant at a time.
 */

/** the data of test deliveries (webhook and notification channels) */
export const SAMPLE_EVENT_DATA: Record<RelayEvent, Record<string, unknown>> = {
  'mediation.granted': { mediationId: 'med_test', recipientDid: 'did:example:test-agent', by: 'operator' },
  'mediation.denied': { mediationId: 'med_test', recipientDid: 'did:example:test-agent', reason: 'test' },
  'message.queued': { messageId: 'msg_test', recipient: 'did:example:test-agent', sender: null, size: 0, mediationId: 'med_test' },
  'message.delivered': { messageId: 'msg_test', recipient: 'did:example:test-agent', via: 'pickup' },
  'delivery.failed': { messageId: 'msg_test', recipient: 'did:example:test-agent', reason: 'test' },
  'gate.blocked': { stage: 'mediation', recipientDid: 'did:example:test-agent', policy: 'pol_test', reason: 'test' },
  'resolution.failed': { did: 'did:example:test-agent', reason: 'test' },
};

function publicConfig(c: WebhookConfig) {
  return { id: c.id, url: c.url, events: c.events, createdAt: c.createdAt, updatedAt: c.updatedAt };
}

export function mountWebhooks({ router, services, now }: RouteDeps): void {
  const docs = services.store.documents;
  const outbox = services.outbox;
  const testing = new Set<string>();
  const writes = new KeyedSerial();
  const config = (tenantId: string) => docs.get<WebhookConfig>(tenantId, WEBHOOK_DOC.kind, WEBHOOK_DOC.id);

  router.add('GET', '/v1/webhooks', 'read', async (req) => {
    onlyQuery(req.query, ['limit']);
    const limit = queryInt(req.query, 'limit', 20, 1, 500);
    const current = await config(req.tenantId);
    // the outbox also carries the chat and paging notifications: only this webhook's deliveries
    const deliveries = current ? await outbox.list({ tenant: req.tenantId, endpointId: current.id, limit }) : [];
    return {
      config: current ? publicConfig(current) : null,
      events: RELAY_EVENTS,
      deliveries: deliveries.map((d) => ({
        id: d.id,
        eventId: d.eventId,
        event: d.eventType,
        status: d.status,
        attempts: d.attemptNumber,
        statusCode: d.statusCode,
        ...(d.error !== undefined ? { error: d.error } : {}),
        nextRetryAt: d.nextRetryAt,
        duration: d.duration,
        createdAt: d.createdAt,
        test: d.eventId.startsWith('evt_test_'),
      })),
    };
  });

  router.add('PUT', '/v1/webhooks', 'full', async (req) => {
    const body = await req.body();
    onlyFields(body, ['url', 'events', 'rotateSecret']);
    if (body.url === undefined || body.url === null) throw validation('url is required', 'url');
    let url: string;
    try {
      url = validateWebhookUrl(body.url);
    } catch (err) {
      throw validation(`url: ${(err as Error).message}`, 'url');
    }
    if (!Array.isArray(body.events)) throw validation(`events is required: an array of event names (${RELAY_EVENTS.join(', ')})`, 'events');
    if (body.events.length > RELAY_EVENTS.length * 4) throw validation('events lists too many entries', 'events');
    const events: RelayEvent[] = [];
    body.events.forEach((e, i) => {
      const name = oneOf(e, `events[${i}]`, RELAY_EVENTS);
      if (!events.includes(name)) events.push(name);
    });
    const rotate = optionalBoolean(body, 'rotateSecret') ?? false;
    // one write at a time per tenant: two first PUTs must not each show a secret, one of them lost
    return writes.run(req.tenantId, async () => {
      const at = new Date(now()).toISOString();
      const existing = await config(req.tenantId);
      const secret = !existing || rotate ? newWebhookSecret() : existing.secret;
      const next: WebhookConfig = {
        id: existing?.id ?? `wh_${randomBytes(8).toString('hex')}`,
        url,
        events: RELAY_EVENTS.filter((e) => events.includes(e)),
        secret,
        createdAt: existing?.createdAt ?? at,
        updatedAt: at,
      };
      await docs.put(req.tenantId, WEBHOOK_DOC.kind, WEBHOOK_DOC.id, next);
      services.events.forget(req.tenantId);
      services.log.info({ tenant: req.tenantId, webhook: next.id, rotated: Boolean(existing && rotate), by: req.caller.id }, 'webhook configured');
      const shown = secret !== existing?.secret ? { secret, note: 'the signing secret is shown once; store it now' } : {};
      return new Reply(existing ? 200 : 201, { ...publicConfig(next), ...shown });
    });
  });

  router.add('POST', '/v1/webhooks/test', 'manage', async (req) => {
    const body = await req.body();
    onlyFields(body, ['event']);
    const type = oneOf(body.event, 'event', RELAY_EVENTS);
    const current = await config(req.tenantId);
    if (!current) throw conflict('no webhook is configured for this tenant; PUT /v1/webhooks first', 'WEBHOOK_NOT_CONFIGURED');
    if (testing.has(req.tenantId)) throw new HttpProblem('rate-limited', 'a test delivery for this tenant is in flight; wait for it to finish', { headers: { 'retry-after': '1' } });
    testing.add(req.tenantId);
    try {
      const event = { id: newEventId({ test: true }), type, createdAt: new Date(now()).toISOString(), data: { test: true, ...SAMPLE_EVENT_DATA[type] } };
      const result = await outbox.sendNow({ id: current.id, url: current.url, secret: current.secret }, event, { tenant: req.tenantId });
      return {
        id: event.id,
        deliveryId: result.id,
        event: type,
        status: result.status,
        statusCode: result.statusCode,
        ...(result.error !== undefined ? { error: result.error } : {}),
        duration: result.duration,
        request: result.request,
      };
    } finally {
      testing.delete(req.tenantId);
    }
  });
}
