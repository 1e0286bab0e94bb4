import { WEBHOOK_DOC, type WebhookConfig } from '../../core/events.js';
import { validation } from '../../../common/http/problems.js';
import type { RouteDeps } from '../router.js';
import { onlyFields, onlyQuery } from '../../../common/http/validate.js';

/**
 * Notification channels (seed 000: email, webhook, a team-chat channel, an incident-paging
 * channel), each `{enabled, target}`, kept per tenant. What is true in v0:
 *   - `webhook` is the tenant's webhook (PUT /v1/webhooks): it is shown here, read-only, and is
 *     the one channel the relay delivers to;
 *   - `email`, `chat` and `paging` are stored and validated, and nothing is sent to them by the
 *     relay itself: point an integration at the webhook to reach them. Every response says so
 *     in `delivery` and `note`, so nobody mistakes a stored address for an active alert.
 */

export const CHANNELS = ['email', 'webhook', 'chat', 'paging'] as const;
type Stored = 'email' | 'chat' | 'paging';
const STORED: readonly Stored[] = ['email', 'chat', 'paging'];
const KIND = 'notifications';
const ID = 'channels';

export interface Channel {
  enabled: boolean;
  target: string | null;
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{1,63}$/;
const NOTE =
  'v0 delivers notifications only through the webhook channel (configure it with PUT /v1/webhooks). The email, chat and paging channels are stored for your integrations; the relay does not send to them itself.';

function checkTarget(channel: Stored, target: unknown): string | null {
  const field = `channels.${channel}.target`;
  if (target === null) return null;
  if (typeof target !== 'string' || target === '') throw validation(`${field} must be a non-empty string or null`, field);
  if (target.length > 2000) throw validation(`${field} is at most 2000 characters`, field);
  if (channel === 'email') {
    if (!EMAIL.test(target)) throw validation(`${field} must be an email address`, field);
    return target;
  }
  let url: URL | undefined;
  try {
    url = new URL(target);
  } catch {
    url = undefined;
  }
  if (channel === 'chat' && url?.protocol !== 'https:') throw validation(`${field} must be an https URL (the chat's incoming-webhook URL)`, field);
  if (channel === 'paging' && url?.protocol !== 'https:' && !/^[A-Za-z0-9_-]{8,128}$/.test(target)) {
    throw validation(`${field} must be an https URL or an integration/routing key (8 to 128 of A-Z, a-z, 0-9, _ and -)`, field);
  }
  return target;
}

export function mountNotifications({ router, services }: RouteDeps): void {
  const docs = services.store.documents;

  const view = async (tenantId: string) => {
    const stored = (await docs.get<Partial<Record<Stored, Channel>>>(tenantId, KIND, ID)) ?? {};
    const hook = await docs.get<WebhookConfig>(tenantId, WEBHOOK_DOC.kind, WEBHOOK_DOC.id);
    const channels: Record<(typeof CHANNELS)[number], Channel> = {
      email: stored.email ?? { enabled: false, target: null },
      webhook: { enabled: Boolean(hook && hook.events.length > 0), target: hook?.url ?? null },
      chat: stored.chat ?? { enabled: false, target: null },
      paging: stored.paging ?? { enabled: false, target: null },
    };
    return { channels, delivery: { email: 'stored-only', webhook: 'sent', chat: 'stored-only', paging: 'stored-only' }, note: NOTE };
  };

  router.add('GET', '/v1/notifications', 'read', async (req) => {
    onlyQuery(req.query, []);
    return view(req.tenantId);
  });

  router.add('PUT', '/v1/notifications', 'manage', async (req) => {
    const body = await req.body();
    onlyFields(body, ['channels']);
    const input = body.channels;
    if (input === null || typeof input !== 'object' || Array.isArray(input)) throw validation('channels is required: an object keyed by email, chat or paging', 'channels');
    const entries = Object.entries(input as Record<string, unknown>);
    if (entries.length === 0) throw validation('channels changes nothing; give one of email, chat, paging', 'channels');
    const stored = (await docs.get<Partial<Record<Stored, Channel>>>(req.tenantId, KIND, ID)) ?? {};
    const next: Partial<Record<Stored, Channel>> = { ...stored };
    for (const [name, value] of entries) {
      if (name === 'webhook') throw validation('channels.webhook is the tenant webhook: configure it with PUT /v1/webhooks', 'channels.webhook');
      if (!(STORED as readonly string[]).includes(name)) throw validation(`unknown channel ${name}; channels are ${CHANNELS.join(', ')}`, `channels.${name}`);
      const channel = name as Stored;
      if (value === null || typeof value !== 'object' || Array.isArray(value)) throw validation(`channels.${channel} must be {enabled, target}`, `channels.${channel}`);
      const v = value as Record<string, unknown>;
      for (const key of Object.keys(v)) if (key !== 'enabled' && key !== 'target') throw validation(`unknown field channels.${channel}.${key}; allowed: enabled, target`, `channels.${channel}.${key}`);
      const prev = stored[channel] ?? { enabled: false, target: null };
      if (v.enabled !== undefined && typeof v.enabled !== 'boolean') throw validation(`channels.${channel}.enabled must be true or false`, `channels.${channel}.enabled`);
      const target = v.target === undefined ? prev.target : checkTarget(channel, v.target);
      const enabled = (v.enabled as boolean | undefined) ?? prev.enabled;
      if (enabled && target === null) throw validation(`channels.${channel} cannot be enabled without a target`, `channels.${channel}.target`);
      next[channel] = { enabled, target };
    }
    await docs.put(req.tenantId, KIND, ID, next);
    return view(req.tenantId);
  });
}
