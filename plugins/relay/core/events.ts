import { randomFillSync } from 'node:crypto';
import type { Logger } from '../../../node/logging.js';
import type { DeliveryLog, DocumentRepo } from '../store/types.js';
import type { RelayEvent, EventEnvelope } from './event-types.js';
import { Notifier, type NotifierOptions } from './notifications.js';

/**
 * The seven events (seed 000 "Events") and where they go: the tenant's webhook, through the
 * shared durable outbox, when the tenant subscribed to the event; and every enabled notification
 * channel that lists it (notifications.ts). `emit` resolves once the webhook and chat/paging
 * deliveries are on disk in the outbox, so an event that was emitted before a 2xx survives a crash
 * or a power cut; they are queued together, sharing the outbox's synced batches.
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

/** ids drawn per refill of the random pool: two events per message made one random-bytes call each */
const POOL_IDS = 512;
const pool = Buffer.alloc(8 * POOL_IDS);
let drawn = pool.length;

/** `<prefix><ms in base 36><16 hex>`: 8 random bytes from the pool, each byte used once */
export function eventId(prefix = 'evt_'): string {
  if (drawn === pool.length) {
    randomFillSync(pool);
    drawn = 0;
  }
  const random = pool.toString('hex', drawn, drawn + 8);
  drawn += 8;
  return `${prefix}${Date.now().toString(36)}${random}`;
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
    await Promise.all([this.toWebhook(tenantId, event), this.notifier.notify(tenantId, event)]);
  }

  private async toWebhook(tenantId: string, event: EventEnvelope & { type: RelayEvent }): Promise<void> {
    const config = await this.webhook(tenantId);
    if (!config || !config.events.includes(event.type)) return;
    try {
      await this.opts.outbox.enqueue({ id: config.id, url: config.url, secret: config.secret }, event, { tenant: tenantId });
    } catch (err) {
      this.opts.logger.error({ err, tenant: tenantId, event: event.type }, 'a webhook event could not be queued');
    }
  }

  /**
   * Emits several events at once: their deliveries join the outbox's synced batches together,
   * where one `emit` after another would wait for an fsync each.
   */
  async emitAll(events: ReadonlyArray<{ tenantId: string; type: RelayEvent; data: Record<string, unknown> }>): Promise<void> {
    await Promise.all(events.map((e) => this.emit(e.tenantId, e.type, e.data)));
  }
}
