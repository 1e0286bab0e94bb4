// Who and what may reach the relay's operator API and event stream: API keys by scope, the webhook
// with its test delivery, and the delivery log.
import { api, can, enc, get } from './api.js';
import { actionButton, field, filters, form, h, say, scopeNote, select, short, state, table, time, title } from './dom.js';

const SCOPES = [
  ['read', 'read: every GET'],
  ['manage', 'manage: read, and grant/deny/revoke, policies, limits, notifications, webhook tests'],
  ['full', 'full: everything a session can, API keys and the webhook included'],
];

/** A secret shown once, with what to do with it. */
function shownOnce(label, value, id) {
  return h('div', { class: 'secret', role: 'alert' }, h('p', {}, `${label} — shown once, copy it now:`), h('output', { class: 'mono wrap', id }, value));
}

export async function apiKeysPage(_params, _query, page) {
  const keys = await get('/api-keys');
  const slot = h('div', { id: 'new-key' });
  const revoke = (k) =>
    k.revokedAt
      ? '—'
      : actionButton({ class: 'secondary', 'aria-label': `Revoke key ${k.name}` }, 'Revoke', async () => {
          await api('DELETE', `/api-keys/${enc(k.id)}`);
          await page.refresh(`Key “${k.name}” revoked.`);
        });
  return [
    title('API keys'),
    h('p', { class: 'lede' }, 'Keys (slk_…) for scripts and integrations, each with a scope. Only a hash of each key is kept: a lost key cannot be shown again, revoke it and make another.'),
    can('full')
      ? form({ class: 'inline', 'aria-label': 'Create an API key' }, [field('Name', h('input', { name: 'name', required: true, maxlength: 100, autocomplete: 'off' })), field('Scope', select('scope', SCOPES, 'read')), h('button', { type: 'submit' }, 'Create key')], async (data, el) => {
          const made = await api('POST', '/api-keys', { name: String(data.get('name')).trim(), scope: data.get('scope') });
          el.reset();
          await page.refresh(`Key “${made.name}” created.`);
          document.getElementById('new-key')?.replaceChildren(shownOnce(`The new ${made.scope} key “${made.name}”`, made.key, 'new-key-value'));
        })
      : scopeNote('Creating and revoking API keys', 'full'),
    slot,
    table(
      `Keys: ${keys.filter((k) => !k.revokedAt).length} active`,
      [
        ['Name', (k) => k.name],
        ['Scope', (k) => k.scope],
        ['Key', (k) => h('span', { class: 'mono' }, k.prefix)],
        ['Created', (k) => time(k.createdAt)],
        ['Last used', (k) => time(k.lastUsedAt)],
        ['Revoked', (k) => (k.revokedAt ? state('revoked') : 'no')],
        ...(can('full') ? [['Revoke', revoke]] : []),
      ],
      keys,
      { empty: 'No API keys yet.', id: 'api-keys' },
    ),
  ];
}

export async function webhooksPage(_params, _query, page) {
  const hooks = await get('/webhooks');
  const config = hooks.config;
  const slot = h('div', { id: 'new-secret' });
  const events = h(
    'fieldset',
    { class: 'events' },
    h('legend', {}, 'Events'),
    hooks.events.map((ev) => h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'events', value: ev, checked: config ? config.events.includes(ev) : true }), ev)),
  );
  const configure = can('full')
    ? form({ 'aria-label': 'Webhook configuration' }, [field('URL', h('input', { name: 'url', type: 'url', required: true, value: config?.url ?? '', placeholder: 'https://example.org/relay-events', autocomplete: 'off' }), 'https, or plain http to a loopback address'), events, config ? h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'rotateSecret', value: 'yes' }), 'Make a new signing secret') : null, h('button', { type: 'submit' }, config ? 'Save webhook' : 'Create webhook')], async (data) => {
        const body = { url: String(data.get('url')).trim(), events: data.getAll('events').map(String) };
        if (data.get('rotateSecret')) body.rotateSecret = true;
        const saved = await api('PUT', '/webhooks', body);
        await page.refresh('Webhook saved.');
        if (saved.secret) document.getElementById('new-secret')?.replaceChildren(shownOnce('The signing secret', saved.secret, 'new-secret-value'));
      })
    : scopeNote('Changing the webhook', 'full');
  const test = config && can('manage')
    ? form({ class: 'inline', 'aria-label': 'Send a test delivery' }, [field('Event', select('event', hooks.events.map((e) => [e, e]), 'message.queued')), h('button', { type: 'submit' }, 'Send test delivery')], async (data) => {
        const r = await api('POST', '/webhooks/test', { event: data.get('event') });
        const text = `Test ${r.event}: ${r.status}${r.statusCode ? ` (HTTP ${r.statusCode})` : ''}${r.error ? `: ${r.error}` : ''} in ${r.duration} ms.`;
        // the page is drawn again with the new delivery listed; the outcome goes in its slot
        await page.refresh(text);
        const line = document.getElementById('test-outcome');
        if (line) say(line, text, r.status === 'delivered');
      })
    : null;
  return [
    title('Webhooks'),
    h('p', { class: 'lede' }, 'The relay signs every event it sends to your webhook (docs/webhooks.md). Failed deliveries are retried; tests are not.'),
    config ? h('p', {}, 'Sending to ', h('span', { class: 'mono wrap' }, config.url), ` since ${new Date(config.createdAt).toISOString().slice(0, 10)}.`) : h('p', {}, 'No webhook is configured.'),
    configure,
    slot,
    test ? [h('h2', {}, 'Test delivery'), test, h('p', { id: 'test-outcome', class: 'outcome', role: 'status' })] : null,
    h('h2', {}, 'Recent deliveries'),
    table(
      'Webhook deliveries, newest first',
      [
        ['Event', (d) => [d.event, d.test ? h('span', { class: 'small' }, ' (test)') : null]],
        ['Status', (d) => state(d.status)],
        ['HTTP', (d) => d.statusCode ?? '—'],
        ['Attempts', (d) => d.attempts],
        ['Error', (d) => d.error ?? '—'],
        ['At', (d) => time(d.createdAt)],
      ],
      hooks.deliveries,
      { empty: 'Nothing sent yet.', id: 'deliveries' },
    ),
  ];
}

export async function deliveryLogPage(_params, query) {
  const recipient = (query.get('recipient') ?? '').trim();
  const q = new URLSearchParams({ limit: '100' });
  if (recipient) q.set('recipient', recipient);
  const log = await get(`/delivery-log?${q}`);
  const f = filters('Filter the delivery log', '#/delivery-log', [field('Recipient DID', h('input', { name: 'recipient', value: recipient, autocomplete: 'off', spellcheck: 'false' }))]);
  return [
    title('Delivery log'),
    f,
    table('Delivery log, newest first (at most 100 lines)', [['At', (l) => time(l.at)], ['Level', (l) => state(l.level)], ['Recipient', (l) => short(l.recipient)], ['Message', (l) => l.message]], log, { empty: 'Nothing logged.', id: 'delivery-log' }),
  ];
}
