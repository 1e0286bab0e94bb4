import type { Logger } from '../../../node/logging.js';
import type { Mailer } from '../../common/mail/mailer.js';
import type { QueueStatus } from '../../common/mail/queue-store.js';
import { newWebhookSecret } from '../../common/webhooks/signature.js';
import type { WebhookOutbox } from '../../common/webhooks/outbox.js';
import type { DocumentRepo } from '../store/types.js';
import { RELAY_EVENTS, type EventEnvelope, type RelayEvent } from './event-types.js';

/**
 * The notification channels besides the tenant webhook (seed 000: email, a team-chat channel,
 * an incident-paging channel), each `{enabled, target, events}`, kept per tenant. Every event the
 * relay emits goes to each enabled channel that lists it (all seven unless narrowed):
 *   - `email` through the shared mailer's send queue: written to the relay's store before
 *     notify() returns, sent over SMTP (plugins.relay.email.smtpUrl) in the background, retried
 *     on transient failures, carried on after a restart; without SMTP, into the mail outbox. Both
 *     are read at GET /v1/notifications/email/outbox;
 *   - `chat` and `paging` as signed webhooks (the `{id, type, createdAt, data}` envelope and
 *     `Ledger-Signature` of docs/webhooks.md) through the durable outbox the tenant webhook uses,
 *     so a delivery is retried on its schedule and survives a restart. Each has its own signing
 *     secret, made when its target is first set and shown once.
 * `test(channel)` sends one notification at once and tells what happened.
 */

export const NOTIFY_CHANNELS = ['email', 'chat', 'paging'] as const;
export type NotifyChannel = (typeof NOTIFY_CHANNELS)[number];
export const CHANNELS_DOC = { kind: 'notifications', id: 'channels' } as const;

export interface ChannelConfig {
  enabled: boolean;
  target: string | null;
  events: RelayEvent[];
  /** chat and paging: the signing secret, while a target is set */
  secret?: string;
}

export type ChannelsDoc = Partial<Record<NotifyChannel, ChannelConfig>>;

export function channelOf(doc: ChannelsDoc, channel: NotifyChannel): ChannelConfig {
  const c = doc[channel];
  return { enabled: c?.enabled ?? false, target: c?.target ?? null, events: c?.events ?? [...RELAY_EVENTS], ...(c?.secret !== undefined ? { secret: c.secret } : {}) };
}

/** the outbox's endpoint id of a tenant's chat or paging channel */
export const hookEndpointId = (channel: NotifyChannel): string => `notify-${channel}`;

export const newChannelSecret = newWebhookSecret;

export interface TestResult {
  channel: NotifyChannel;
  /** `delivered`: the receiver took it (2xx, or the SMTP server accepted it); `stored`: in the mail outbox (no SMTP configured); `failed` */
  status: 'delivered' | 'stored' | 'failed';
  delivered: boolean;
  target: string;
  eventId: string;
  /** chat and paging: the receiver's HTTP status, null if none came */
  statusCode?: number | null;
  /** email: how it went out */
  via?: 'smtp' | 'outbox';
  error?: string;
  duration: number;
}

export interface NotifierOptions {
  docs: DocumentRepo;
  outbox: Pick<WebhookOutbox, 'enqueue' | 'sendNow'>;
  mailer: Pick<Mailer, 'send' | 'queue' | 'queued' | 'via' | 'outbox' | 'stop'>;
  logger: Logger;
  now: () => number;
}

export class Notifier {
  private cache = new Map<string, ChannelsDoc>();
  /** bumped by forget(), so a read that started before it is not cached after it */
  private generation = 0;

  constructor(private readonly opts: NotifierOptions) {}

  get mailVia(): 'smtp' | 'outbox' {
    return this.opts.mailer.via;
  }

  mailOutbox(limit: number) {
    return this.opts.mailer.outbox(limit);
  }

  /** A tenant's notification mails in the send queue, newest first, with their state. */
  mailQueue(tenantId: string, limit: number, status?: QueueStatus) {
    return this.opts.mailer.queued({ tag: tenantId, limit, status });
  }

  async channels(tenantId: string): Promise<ChannelsDoc> {
    const cached = this.cache.get(tenantId);
    if (cached) return cached;
    const generation = this.generation;
    const doc = (await this.opts.docs.get<ChannelsDoc>(tenantId, CHANNELS_DOC.kind, CHANNELS_DOC.id)) ?? {};
    if (generation === this.generation) this.cache.set(tenantId, doc);
    return doc;
  }

  /** called by the operator API after it writes a tenant's channels */
  forget(tenantId: string): void {
    this.generation++;
    this.cache.delete(tenantId);
  }

  /** Queues `event` to every enabled channel that lists it, durably (awaited); each is sent in the background. */
  async notify(tenantId: string, event: EventEnvelope & { type: RelayEvent }): Promise<void> {
    const doc = await this.channels(tenantId);
    // the channels together: their webhook deliveries share the outbox's synced batches
    await Promise.all(
      NOTIFY_CHANNELS.map(async (name) => {
        const c = channelOf(doc, name);
        if (!c.enabled || c.target === null || !c.events.includes(event.type)) return;
        if (name === 'email') {
          try {
            await this.opts.mailer.queue(mailOf(tenantId, event, c.target), { tag: tenantId });
          } catch (err) {
            // the queue is full (logged and counted there) or the store failed
            this.opts.logger.error({ err, tenant: tenantId, event: event.type }, 'a notification mail could not be queued');
          }
          return;
        }
        if (c.secret === undefined) {
          // a target stored before channels had secrets: the next PUT of the channel makes one
          this.opts.logger.warn({ tenant: tenantId, channel: name }, 'a notification channel has no signing secret yet; save it again with PUT /v1/notifications');
          return;
        }
        try {
          await this.opts.outbox.enqueue({ id: hookEndpointId(name), url: c.target, secret: c.secret }, event, { tenant: tenantId });
        } catch (err) {
          this.opts.logger.error({ err, tenant: tenantId, channel: name, event: event.type }, 'a notification could not be queued');
        }
      }),
    );
  }

  /** Sends one test notification to `channel` now, enabled or not, and tells how it went. */
  async test(tenantId: string, channel: NotifyChannel, target: string, secret: string, event: EventEnvelope): Promise<TestResult> {
    const base = { channel, target, eventId: event.id };
    if (channel === 'email') {
      const start = this.opts.now();
      try {
        const sent = await this.opts.mailer.send(mailOf(tenantId, event, target));
        const status = sent.via === 'smtp' ? 'delivered' : 'stored';
        return { ...base, status, delivered: sent.via === 'smtp', via: sent.via, duration: this.opts.now() - start };
      } catch (err) {
        return { ...base, status: 'failed', delivered: false, via: this.opts.mailer.via, error: (err as Error).message, duration: this.opts.now() - start };
      }
    }
    const r = await this.opts.outbox.sendNow({ id: hookEndpointId(channel), url: target, secret }, event, { tenant: tenantId });
    const status = r.status === 'delivered' ? 'delivered' : 'failed';
    return { ...base, status, delivered: status === 'delivered', statusCode: r.statusCode, ...(r.error !== undefined ? { error: r.error } : {}), duration: r.duration };
  }

  close(): Promise<void> {
    return this.opts.mailer.stop();
  }
}


function mailOf(tenantId: string, event: EventEnvelope, to: string) {
  return {
    to,
    subject: `[relay ${tenantId}] ${event.type}`,
    text: [
      `The relay reports ${event.type} for the tenant ${tenantId}.`,
      '',
      `Event: ${event.id}`,
      `At: ${event.createdAt}`,
      '',
      JSON.stringify(event.data, null, 2),
      '',
      'You get this because the email notification channel of this tenant lists this event (PUT /v1/notifications).',
    ].join('\n'),
  };
}
