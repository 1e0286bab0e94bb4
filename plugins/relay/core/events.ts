import { randomBytes } from 'node:crypto';
import type { Logger } from '../../../node/logging.js';
import type { DeliveryLog, DocumentRepo } from '../store/types.js';
import type { RelayEvent, EventEnvelope } from './event-types.js';
import { Notifier, type NotifierOptions } from './notifications.js';

/**
 * The seven events (seed 000 "Events") and where they go: the tenant's webhook, through the
 * shared durable outbox, when the tenant subscribed to the event; and every enabled notification
 * channel that lists it (notifications.ts). `emit` resolves once the webhook and chat/paging
 * deliveries are in the outbox, so an event that was emitted before a 2xx survives a crash.
 */

export { RELAY_EVENTS, type EventEnvelope, type RelayEvent } from './event-types.js';

export interface WebhookConfig {
  id: string;
  url: string;
  events: RelayEvent[];
  secret: string;
  createdAt: string;
  updatedAt: string;
}

/** What the relay needs of the shared webhook outbox. */
export type EventOutbox = NotifierOptions['outbox'];

export const WEBHOOK_DOC = { kind: 'webhook', id: 'config' } as const;

export function eventId(prefix = 'evt_'): string {
  return `${prefix}${Date.now().toString(36)}${randomBytes(8).toString('hex')}`;
}

export class RelayEvents {
  private configs = new Map<string, WebhookConfig | null>();
  /** bumped by forget(), so a read that started before it is not cached after it */
  private generation = 0;
  /** email, chat and paging */
  readonly notifier: Notifier;

  constructor(
    private readonly opts: { docs: DocumentRepo; outbox: EventOutbox; mailer: NotifierOptions['mailer']; log: DeliveryLog; logger: Logger; now?: () => number },
  ) {
    this.notifier = new Notifier({ docs: opts.docs, outbox: opts.outbox, mailer: opts.mailer, logger: opts.logger, now: opts.now ?? Date.now });
  }

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
    const event: EventEnvelope & { type: RelayEvent } = { id: eventId(), type, createdAt: new Date(this.opts.now?.() ?? Date.now()).toISOString(), data };
    const config = await this.webhook(tenantId);
    if (config && config.events.includes(type)) {
      try {
        await this.opts.outbox.enqueue({ id: config.id, url: config.url, secret: config.secret }, event, { tenant: tenantId });
      } catch (err) {
        this.opts.logger.error({ err, tenant: tenantId, event: type }, 'a webhook event could not be queued');
      }
    }
    await this.notifier.notify(tenantId, event);
  }
}
