import { LedgerError } from '../../../node/errors.js';
import type { BinarySublevel } from '../../../node/state/db.js';
import { newEventId } from '../../common/webhooks/ids.js';
import { WebhookOutbox, type SendNowResult } from '../../common/webhooks/outbox.js';
import type { DeliveryRecord, DeliveryStatus } from '../../common/webhooks/store.js';
import type { WebhookEvent } from '../../common/webhooks/event.js';
import type { EventIdentity, EventSink, KycBase } from '../services.js';
import { KYC_EVENTS, type KycEvent, type WebhookEndpointRecord } from '../types.js';
import { WebhookEndpoints } from './endpoints.js';
import { checkEventData, sampleData } from './payloads.js';
import { key, prefix, type Table } from '../../common/store/tables.js';

/**
 * The KYC events and where they go (seed 001 part A, "Events"; docs/webhooks.md for what a
 * receiver sees). One event, one `evt_…` id, is built per `emit` and queued once for every
 * enabled endpoint of the organization that subscribes to its type, in the shared durable
 * outbox (table `wh-outbox`), so the id is the same across endpoints, retries and restarts.
 *
 * Each attempt reads the endpoint's current URL and secret (the outbox's `resolveEndpoint`):
 * a rotated secret signs every later attempt, pending retries included, so the old secret is
 * invalid at once; a deleted or disabled endpoint fails its pending deliveries without another
 * attempt (a failed delivery can be resent once the endpoint is enabled again).
 *
 * Each queued delivery is indexed by its event (`wh-by-event`: event id, delivery id), so a
 * session's timeline lists the deliveries of the events sent for it without reading the
 * organization's whole outbox. The index is written just after the outbox's record: a crash in
 * between leaves that delivery out of the list, not out of the outbox.
 */

export interface DeliveryPage {
  records: DeliveryRecord[];
  total: number;
}

export interface TestDelivery extends SendNowResult {
  eventId: string;
}

export class KycWebhooks implements EventSink {
  readonly endpoints: WebhookEndpoints;
  readonly outbox: WebhookOutbox;
  private readonly byEvent: Table<string>;
  private readonly log: KycBase['log'];
  private readonly now: () => number;

  constructor(base: Pick<KycBase, 'config' | 'db' | 'log' | 'now'>) {
    const { config, db, log } = base;
    this.log = log;
    this.now = () => base.now();
    const allowHttpHosts = config.webhooks.allowHttpHosts;
    this.endpoints = new WebhookEndpoints(db, { now: this.now, allowHttpHosts });
    this.byEvent = db.json('wh-by-event');
    // A child namespace of the plugin's store, named like the part's tables.
    // (a sublevel of a sublevel is typed with its parent; the outbox only needs the binary API)
    const store = db.root.sublevel<Uint8Array, Uint8Array>('wh-outbox', { keyEncoding: 'view', valueEncoding: 'view' }) as unknown as BinarySublevel;
    this.outbox = new WebhookOutbox({
      store,
      log,
      schedule: config.webhooks.retryOffsetsSeconds,
      timeoutMs: config.webhooks.timeoutMs,
      allowHttpHosts,
      now: this.now,
      resolveEndpoint: async (endpointId, tenant) => {
        const r = await this.endpoints.byId(endpointId);
        return r && r.enabled && r.organizationId === tenant ? { url: r.url, secret: r.secret } : null;
      },
    });
  }

  /** Sends the pending deliveries left by the last run, at their due times. */
  start(): Promise<void> {
    return this.outbox.start();
  }

  /** Before the store closes; pending deliveries stay in it for the next start. */
  stop(): Promise<void> {
    return this.outbox.stop();
  }

  /**
   * Queues one event for every subscribed endpoint; resolves once each is durably queued.
   * Data that does not have exactly the type's fields is a bug and throws. An endpoint that
   * cannot take the event (its URL no longer allowed) is logged and does not stop the others.
   * `identity` (an event queued again after a restart) keeps its id and time, so receivers
   * deduplicate it like any repeated delivery.
   */
  async emit(organizationId: string, type: KycEvent, data: Record<string, unknown>, identity?: EventIdentity): Promise<void> {
    if (!KYC_EVENTS.includes(type)) throw new LedgerError('KYC_EVENT_UNKNOWN', `unknown event type ${String(type).slice(0, 60)}`, 'internal');
    checkEventData(type, data);
    const targets = await this.endpoints.subscribers(organizationId, type);
    if (targets.length === 0) return;
    const event: WebhookEvent = { id: identity?.id ?? newEventId(), type, createdAt: identity?.createdAt ?? new Date(this.now()).toISOString(), data };
    // together: the endpoints' deliveries share the outbox's synced batches rather than an fsync each
    await Promise.all(
      targets.map(async (endpoint) => {
        try {
          const queued = await this.outbox.enqueue({ id: endpoint.id, url: endpoint.url, secret: endpoint.secret }, event, { tenant: organizationId });
          await this.byEvent.put(key(event.id, queued.id), queued.id);
        } catch (err) {
          this.log.error({ err, organization: organizationId, endpoint: endpoint.id, event: event.id, type }, 'a webhook event could not be queued for an endpoint');
        }
      }),
    );
  }

  /** One signed delivery now, never retried, with an `evt_test_` id and sample data of `type`. */
  async sendTest(endpoint: WebhookEndpointRecord, type: KycEvent): Promise<TestDelivery> {
    const event: WebhookEvent = { id: newEventId({ test: true }), type, createdAt: new Date(this.now()).toISOString(), data: sampleData(type, this.now()) };
    const result = await this.outbox.sendNow({ id: endpoint.id, url: endpoint.url, secret: endpoint.secret }, event, { tenant: endpoint.organizationId });
    return { ...result, eventId: event.id };
  }

  /** An endpoint's deliveries, newest first, with the count of all that match. */
  async deliveries(endpoint: WebhookEndpointRecord, opts: { status?: DeliveryStatus; limit: number; offset: number }): Promise<DeliveryPage> {
    // Endpoint ids are unique across organizations and the endpoint's owner was checked: the
    // endpoint index alone is the narrowest read.
    const filter = { endpointId: endpoint.id, status: opts.status };
    const [records, total] = await Promise.all([this.outbox.list({ ...filter, limit: opts.limit, offset: opts.offset }), this.outbox.count(filter)]);
    return { records, total };
  }

  /** A delivery of the endpoint, or undefined. */
  async delivery(endpoint: WebhookEndpointRecord, deliveryId: string): Promise<DeliveryRecord | undefined> {
    const r = await this.outbox.get(deliveryId);
    return r && r.endpointId === endpoint.id && r.tenant === endpoint.organizationId ? r : undefined;
  }

  /** Queues a failed delivery again: a new delivery, the same event id and body. */
  async resend(endpoint: WebhookEndpointRecord, deliveryId: string): Promise<DeliveryRecord> {
    if (!endpoint.enabled) throw new LedgerError('WEBHOOK_ENDPOINT_DISABLED', 'the endpoint is disabled; enable it before resending', 'conflict');
    if (!(await this.delivery(endpoint, deliveryId))) throw new LedgerError('WEBHOOK_DELIVERY_NOT_FOUND', 'no such delivery for this endpoint', 'not_found');
    const again = await this.outbox.resend(deliveryId, { id: endpoint.id, url: endpoint.url, secret: endpoint.secret });
    await this.byEvent.put(key(again.eventId, again.id), again.id);
    return again;
  }

  /** The organization's deliveries of an event, oldest first; the index entries of deliveries the outbox pruned are dropped as they are met. */
  async deliveriesOfEvent(organizationId: string, eventId: string): Promise<DeliveryRecord[]> {
    const out: DeliveryRecord[] = [];
    for await (const [k, id] of this.byEvent.entries(prefix(eventId))) {
      const r = await this.outbox.get(id);
      if (!r) await this.byEvent.del(k);
      else if (r.tenant === organizationId) out.push(r);
    }
    return out;
  }
}
