import { validateWebhookUrl } from '../../../common/webhooks/url.js';
import { newEventId } from '../../../common/webhooks/ids.js';
import { RELAY_EVENTS, WEBHOOK_DOC, type RelayEvent, type WebhookConfig } from '../../core/events.js';
import { CHANNELS_DOC, NOTIFY_CHANNELS, channelOf, newChannelSecret, type ChannelConfig, type ChannelsDoc, type NotifyChannel } from '../../core/notifications.js';
import { HttpProblem, conflict, validation } from '../../../common/http/problems.js';
import { KeyedSerial } from '../../../common/http/router.js';
import type { RouteDeps } from '../router.js';
import { oneOf, onlyFields, onlyQuery, queryInt } from '../../../common/http/validate.js';
import { SAMPLE_EVENT_DATA } from './webhooks.js';
import { QUEUE_STATUSES } from '../../../common/mail/queue-store.js';

/**
 * Notification channels (seed 000: email, webhook, a team-chat channel, an incident-paging
 * channel). `webhook` is the tenant webhook (PUT /v1/webhooks), shown read-only. `email`, `chat`
 * and `paging` are `{enabled, target, events}`, and the relay sends to them (core/notifications.ts).
 * PUT takes what GET answers: `delivery`, `note` and `channels.webhook` are read-only and ignored,
 * so a client can read, change one flag and write the whole answer back. A chat or paging target
 * gets a signing secret when it is first set, shown once in that PUT's `secrets`; clearing the
 * target drops it. POST /v1/notifications/<channel>/test sends one test notification now.
 */

export const CHANNELS = ['email', 'webhook', 'chat', 'paging'] as const;
const EMAIL = /^[^\s@<>(),;:"\\]{1,64}@[^\s@<>(),;:"\\]{1,255}\.[^\s@<>(),;:"\\]{1,63}$/;
const TARGET_TEXT: Record<NotifyChannel, string> = {
  email: 'an email address',
  chat: "an https URL (the chat's incoming-webhook URL)",
  paging: "an https URL (the paging service's webhook URL); integration or routing keys are not accepted: the relay sends paging as a signed webhook",
};

function checkTarget(channel: NotifyChannel, target: unknown): string | null {
  const field = `channels.${channel}.target`;
  if (target === null) return null;
  if (typeof target !== 'string' || target === '') throw validation(`${field} must be ${TARGET_TEXT[channel]}, or null`, field);
  if (target.length > 2000) throw validation(`${field} is at most 2000 characters`, field);
  if (channel === 'email') {
    if (!EMAIL.test(target)) throw validation(`${field} must be an email address`, field);
    return target;
  }
  try {
    return validateWebhookUrl(target);
  } catch (err) {
    throw validation(`${field} must be ${TARGET_TEXT[channel]}: ${(err as Error).message}`, field);
  }
}

function isUrl(target: string): boolean {
  try {
    validateWebhookUrl(target);
    return true;
  } catch {
    return false;
  }
}

function checkEvents(channel: NotifyChannel, value: unknown): RelayEvent[] {
  const field = `channels.${channel}.events`;
  if (!Array.isArray(value) || value.length > RELAY_EVENTS.length * 4) throw validation(`${field} must be an array of event names (${RELAY_EVENTS.join(', ')})`, field);
  const names = value.map((e, i) => oneOf(e, `${field}[${i}]`, RELAY_EVENTS));
  return RELAY_EVENTS.filter((e) => names.includes(e));
}

/** One channel of a PUT body over its stored state. */
function nextChannel(channel: NotifyChannel, value: unknown, prev: ChannelConfig): ChannelConfig {
  const where = `channels.${channel}`;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw validation(`${where} must be {enabled, target, events}`, where);
  const v = value as Record<string, unknown>;
  for (const key of Object.keys(v)) if (!['enabled', 'target', 'events'].includes(key)) throw validation(`unknown field ${where}.${key}; allowed: enabled, target, events`, `${where}.${key}`);
  if (v.enabled !== undefined && typeof v.enabled !== 'boolean') throw validation(`${where}.enabled must be true or false`, `${where}.enabled`);
  const target = v.target === undefined ? prev.target : checkTarget(channel, v.target);
  const enabled = (v.enabled as boolean | undefined) ?? prev.enabled;
  if (enabled && target === null) throw validation(`${where} cannot be enabled without a target`, `${where}.target`);
  const events = v.events === undefined ? prev.events : checkEvents(channel, v.events);
  const next: ChannelConfig = { enabled, target, events };
  if (channel !== 'email' && target !== null) next.secret = prev.secret ?? newChannelSecret();
  return next;
}

export function mountNotifications({ router, services, now }: RouteDeps): void {
  const docs = services.store.documents;
  const notifier = services.events.notifier;
  const writes = new KeyedSerial();
  const testing = new Set<string>();

  const view = async (tenantId: string) => {
    const stored = (await docs.get<ChannelsDoc>(tenantId, CHANNELS_DOC.kind, CHANNELS_DOC.id)) ?? {};
    const hook = await docs.get<WebhookConfig>(tenantId, WEBHOOK_DOC.kind, WEBHOOK_DOC.id);
    const shown = (c: NotifyChannel) => {
      const { enabled, target, events } = channelOf(stored, c);
      return { enabled, target, events };
    };
    const mail = notifier.mailVia;
    return {
      channels: {
        email: shown('email'),
        webhook: { enabled: Boolean(hook && hook.events.length > 0), target: hook?.url ?? null, events: hook?.events ?? [] },
        chat: shown('chat'),
        paging: shown('paging'),
      },
      delivery: { email: mail, webhook: 'signed-webhook', chat: 'signed-webhook', paging: 'signed-webhook' },
      note:
        `Every event a channel lists is sent to it while it is enabled. Email goes ${mail === 'smtp' ? "out over SMTP through a queue that retries it while the server is down or busy (each mail's state at GET /v1/notifications/email/outbox)" : 'to the mail outbox (GET /v1/notifications/email/outbox): no SMTP server is configured (plugins.relay.email.smtpUrl)'}; ` +
        'chat and paging are POSTed as signed webhooks (Ledger-Signature, with the secret shown when the target was set) and retried like the tenant webhook, which is configured with PUT /v1/webhooks. ' +
        'POST /v1/notifications/<channel>/test sends a test notification.',
    };
  };

  router.add('GET', '/v1/notifications', 'read', async (req) => {
    onlyQuery(req.query, []);
    return view(req.tenantId);
  });

  router.add('PUT', '/v1/notifications', 'manage', async (req) => {
    const body = await req.body();
    onlyFields(body, ['channels', 'delivery', 'note']);
    const input = body.channels;
    if (input === null || typeof input !== 'object' || Array.isArray(input)) throw validation('channels is required: an object keyed by email, chat or paging', 'channels');
    const entries = Object.entries(input as Record<string, unknown>).filter(([name]) => name !== 'webhook');
    if (entries.length === 0) throw validation('channels changes nothing; give one of email, chat, paging (the webhook channel is set with PUT /v1/webhooks)', 'channels');
    for (const [name] of entries) if (!(NOTIFY_CHANNELS as readonly string[]).includes(name)) throw validation(`unknown channel ${name}; channels are ${CHANNELS.join(', ')}`, `channels.${name}`);
    return writes.run(req.tenantId, async () => {
      const stored = (await docs.get<ChannelsDoc>(req.tenantId, CHANNELS_DOC.kind, CHANNELS_DOC.id)) ?? {};
      const next: ChannelsDoc = { ...stored };
      const secrets: Partial<Record<NotifyChannel, string>> = {};
      for (const [name, value] of entries) {
        const channel = name as NotifyChannel;
        const made = nextChannel(channel, value, channelOf(stored, channel));
        if (made.secret !== undefined && made.secret !== stored[channel]?.secret) secrets[channel] = made.secret;
        next[channel] = made;
      }
      await docs.put(req.tenantId, CHANNELS_DOC.kind, CHANNELS_DOC.id, next);
      notifier.forget(req.tenantId);
      services.log.info({ tenant: req.tenantId, channels: entries.map(([n]) => n), by: req.caller.id }, 'notification channels configured');
      const shown = Object.keys(secrets).length > 0 ? { secrets, secretsNote: 'each signing secret is shown once; store it now' } : {};
      return { ...(await view(req.tenantId)), ...shown };
    });
  });

  router.add('POST', /^\/v1\/notifications\/([^/]+)\/test$/, 'manage', async (req) => {
    const channel = oneOf(req.params[0], 'channel', NOTIFY_CHANNELS);
    const hasBody = (req.ctx.req.headers['content-length'] ?? '0') !== '0' || req.ctx.req.headers['transfer-encoding'] !== undefined;
    const body = hasBody ? await req.body() : {};
    onlyFields(body, ['event']);
    const type = body.event === undefined ? 'mediation.granted' : oneOf(body.event, 'event', RELAY_EVENTS);
    const c = channelOf((await docs.get<ChannelsDoc>(req.tenantId, CHANNELS_DOC.kind, CHANNELS_DOC.id)) ?? {}, channel);
    if (c.target === null) throw conflict(`the ${channel} channel has no target; set one with PUT /v1/notifications first`, 'NOTIFICATION_CHANNEL_NOT_CONFIGURED');
    if (channel !== 'email' && c.secret === undefined) throw conflict(`the ${channel} channel has no signing secret yet (its target was set before channels had one); save it again with PUT /v1/notifications`, 'NOTIFICATION_CHANNEL_NOT_CONFIGURED');
    if (channel !== 'email' && !isUrl(c.target)) throw conflict(`the ${channel} channel's stored target is not a URL; set an https URL with PUT /v1/notifications`, 'NOTIFICATION_CHANNEL_NOT_CONFIGURED');
    const key = `${req.tenantId}\n${channel}`;
    if (testing.has(key)) throw new HttpProblem('rate-limited', `a test notification to ${channel} is in flight; wait for it to finish`, { headers: { 'retry-after': '1' } });
    testing.add(key);
    try {
      const event = { id: newEventId({ test: true }), type, createdAt: new Date(now()).toISOString(), data: { test: true, ...SAMPLE_EVENT_DATA[type] } };
      const result = await notifier.test(req.tenantId, channel, c.target, c.secret ?? '', event);
      services.log.info({ tenant: req.tenantId, channel, status: result.status, by: req.caller.id }, 'test notification sent');
      return { ...result, event: type, enabled: c.enabled };
    } finally {
      testing.delete(key);
    }
  });

  router.add('GET', '/v1/notifications/email/outbox', 'read', async (req) => {
    onlyQuery(req.query, ['limit', 'status']);
    const limit = queryInt(req.query, 'limit', 20, 1, 200);
    const status = req.query.has('status') ? oneOf(req.query.get('status'), 'status', QUEUE_STATUSES) : undefined;
    // one outbox for the relay: a tenant sees the mails of its own channel (their subject names it)
    const prefix = `[relay ${req.tenantId}] `;
    const mails = (await notifier.mailOutbox(1000)).filter((m) => m.subject.startsWith(prefix)).slice(0, limit);
    // the send queue (with SMTP): each mail's state, tagged with its tenant when queued
    const queue = await notifier.mailQueue(req.tenantId, limit, status);
    return {
      via: notifier.mailVia,
      items: mails.map((m) => ({ id: m.id, to: m.to, subject: m.subject, text: m.text, createdAt: m.createdAt })),
      queue: queue.map((m) => ({ id: m.id, to: m.to, subject: m.subject, text: m.text ?? null, status: m.status, attempts: m.attempts, lastError: m.lastError, nextAttemptAt: m.nextAttemptAt, createdAt: m.createdAt, settledAt: m.settledAt })),
    };
  });
}
