import { randomBytes } from 'node:crypto';
import type { Logger } from '../../../node/logging.js';
import type { DeliveryLog, DocumentRepo } from '../store/types.js';

/**
 * The seven webhook events (seed 000 "Events") and where they go: the tenant's webhook, through
 * the shared durable outbox, when the tenant subscribed to the event. `emit` resolves once the
 * delivery is in the outbox, so an event that was emitted before a 2xx survives a crash.
 */

export const RELAY_EVENTS = ['mediation.granted', 'mediation.denied', 'message.queued', 'message.delivered', 'delivery.failed', 'gate.blocked', 'resolution.failed'] as const;
export type RelayEvent = (typeof RELAY_EVENTS)[number];

export interface WebhookConfig {
  id: string;
  url: string;
  events: RelayEvent[];
  secret: string;
  createdAt: string;
  updatedAt: string;
}

export interface EventEnvelope {
  id: string;
  type: string;
  createdAt: string;
  data: unknown;
}

/** What the relay needs of the shared webhook outbox. */
export interface EventOutbox {
  enqueue(endpoint: { id: string; url: string; secret: string }, event: EventEnvelope, opts?: { tenant?: string }): Promise<unknown>;
}

export const WEBHOOK_DOC = { kind: 'webhook', id: 'config' } as const;

export function eventId(prefix = 'evt_'): string {
  return `${prefix}${Date.now().toString(36)}${randomBytes(8).toString('hex')}`;
}

export class RelayEvents {
  private configs = new Map<string, WebhookConfig | null>();
  /** bumped by forget(), so a read that started before it is not cached after it */
  private generation = 0;

  constructor(
    private readonly opts: { docs: DocumentRepo; outbox: EventOutbox; log: DeliveryLog; logger: Logger; now?: () => number },
  ) {}

  async webhook(tenantId: string): Promise<WebhookConfig | null> {
    if (this.configs.has(tenantId)) return this.configs.get(tenantId)!;
    const generation = this.generation;
    const config = (await this.opts.docs.get<WebhookConfig>(tenantId, WEBHOOK_DOC.kind, WEBHOOK_DOC.id)) ?? null;
    if (generation === this.generation) this.configs.set(tenantId, config);
    return config;
  }

  /** called by the operator API after it writes a tenant's webhook configuration */
  forget(tenantId: string): void {
    this.generation++;
    this.configs.delete(tenantId);
  }

  async emit(tenantId: string, type: RelayEvent, data: Record<string, unknown>): Promise<void> {
    const config = await this.webhook(tenantId);
    if (!config || !config.events.includes(type)) return;
    const event: EventEnvelope = { id: eventId(), type, createdAt: new Date(this.opts.now?.() ?? Date.now()).toISOString(), data };
    try {
      await this.opts.outbox.enqueue({ id: config.id, url: config.url, secret: config.secret }, event, { tenant: tenantId });
    } catch (err) {
      this.opts.logger.error({ err, tenant: tenantId, event: type }, 'a webhook event could not be queued');
    }
  }
}
