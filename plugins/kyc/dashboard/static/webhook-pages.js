// Webhook endpoints: create, edit, enable or disable, rotate the secret, send a test, the
// delivery log with resend.
import { api, enc, get, query } from './api.js';
import { badge, confirmDialog, copyButton, field, h, mono, onSubmit, pager, say, select, status, table, time, title } from './dom.js';

export const EVENTS = ['verification.completed', 'verification.failed', 'verification.expired', 'credential.issued', 'credential.revoked'];

/** checkboxes of the events, in a fieldset; `checked` the ones ticked */
function eventBoxes(checked) {
  return h('fieldset', { class: 'events' }, h('legend', {}, 'Events'),
    EVENTS.map((e) => h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'events', value: e, checked: checked.includes(e) }), ' ', e)));
}

/** a box that shows a signing secret once, with a copy button */
function secretShown(heading, secret) {
  return h('div', { class: 'reveal', role: 'region', 'aria-label': heading }, h('h2', {}, heading),
    h('p', {}, 'Copy it now: it is shown only this once. Receivers check each delivery\'s Ledger-Signature with it.'),
    h('p', {}, h('code', { class: 'mono wrap', id: 'webhook-secret' }, secret), ' ', copyButton(secret)));
}

export async function webhooksPage(_, ctx) {
  const { endpoints } = await get('/webhooks');
  const out = status();
  const reveal = h('div');
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'newwh-h' },
    h('h2', { id: 'newwh-h' }, 'Add an endpoint'),
    field('URL', h('input', { name: 'url', type: 'url', required: true, placeholder: 'https://example.com/kyc-events' }), 'https, or http on this machine (loopback).'),
    field('Description', h('input', { name: 'description', maxlength: '500' })),
    eventBoxes(['verification.completed', 'verification.failed', 'credential.issued']),
    h('button', { type: 'submit' }, 'Add endpoint'),
    out,
  );
  onSubmit(form, out, async (data) => {
    const body = { url: data.get('url'), events: data.getAll('events') };
    if (data.get('description')) body.description = data.get('description');
    const created = await api('POST', '/webhooks', body);
    reveal.replaceChildren(secretShown('The new endpoint\'s signing secret', created.secret), h('p', {}, h('a', { href: `#/webhook/${enc(created.id)}` }, 'Open the endpoint')));
    form.reset();
    return `Added ${created.url}.`;
  });
  return [
    title('Webhooks'),
    h('p', {}, 'The service posts signed events to these URLs and retries for a few minutes when they fail.'),
    reveal,
    table('Webhook endpoints', [
      ['URL', (e) => h('a', { href: `#/webhook/${enc(e.id)}`, class: 'wrap' }, e.url)],
      ['Events', (e) => e.events.join(', ')],
      ['Status', (e) => badge(e.status)],
      ['Created', (e) => time(e.createdAt)],
    ], endpoints, { empty: 'No endpoints yet.' }),
    form,
  ];
}

export async function webhookPage([id], ctx) {
  const endpoint = await get(`/webhooks/${enc(id)}`);
  const page = Number(ctx.query.get('page') ?? 1) || 1;
  const log = await get(`/webhooks/${enc(id)}/deliveries${query({ page, limit: 25 })}`);
  const reveal = h('div');
  const out = status();

  const edit = h(
    'form',
    { class: 'card', 'aria-labelledby': 'edit-h' },
    h('h2', { id: 'edit-h' }, 'Settings'),
    field('URL', h('input', { name: 'url', type: 'url', required: true, value: endpoint.url })),
    field('Description', h('input', { name: 'description', maxlength: '500', value: endpoint.description ?? '' })),
    eventBoxes(endpoint.events),
    h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'enabled', checked: endpoint.enabled }), ' Enabled'),
    h('button', { type: 'submit' }, 'Save'),
    out,
  );
  onSubmit(edit, out, async (data) => {
    await api('PATCH', `/webhooks/${enc(id)}`, { url: data.get('url'), description: data.get('description'), events: data.getAll('events'), enabled: data.get('enabled') === 'on' });
    return 'Saved.';
  });

  const actionsOut = status();
  const rotate = async () => {
    const ok = await confirmDialog({ heading: 'Rotate the signing secret?', text: 'Every delivery from now on, retries included, is signed with the new secret; the old one stops verifying at once.', confirm: 'Rotate secret', danger: true });
    if (!ok) return;
    try {
      const { secret } = await api('POST', `/webhooks/${enc(id)}/rotate-secret`);
      reveal.replaceChildren(secretShown('The new signing secret', secret));
      say(actionsOut, 'The secret was rotated.', 'ok');
    } catch (err) {
      say(actionsOut, err.message, 'error');
    }
  };
  const testType = select('eventType', EVENTS.map((e) => [e, e]), endpoint.events[0]);
  const test = h('form', { class: 'inline' }, field('Test event', testType), h('button', { type: 'submit', class: 'secondary' }, 'Send a test'));
  onSubmit(test, actionsOut, async (data) => {
    const r = await api('POST', '/webhooks/test', { webhookId: id, eventType: data.get('eventType') });
    ctx.refresh();
    return `Test ${r.status}${r.statusCode ? ` (HTTP ${r.statusCode})` : ''}${r.error ? `: ${r.error}` : ''}.`;
  });
  const remove = async () => {
    const ok = await confirmDialog({ heading: 'Delete this endpoint?', text: 'Its pending deliveries are not attempted again.', confirm: 'Delete endpoint', danger: true });
    if (!ok) return;
    await api('DELETE', `/webhooks/${enc(id)}`);
    ctx.go('#/webhooks');
  };
  const resend = async (d) => {
    try {
      await api('POST', `/webhooks/${enc(id)}/deliveries/${enc(d.id)}/resend`);
      ctx.refresh();
    } catch (err) {
      say(actionsOut, err.message, 'error');
    }
  };
  return [
    title('Webhook endpoint'),
    h('p', { class: 'wrap' }, mono(endpoint.url, { full: true }), ' ', badge(endpoint.status)),
    reveal,
    h('div', { class: 'toolbar' }, h('button', { type: 'button', class: 'secondary', onclick: rotate }, 'Rotate secret'), test, h('button', { type: 'button', class: 'danger', onclick: remove }, 'Delete')),
    actionsOut,
    h('h2', {}, 'Deliveries'),
    table('Deliveries, newest first', [
      ['Event', (d) => h('span', {}, d.eventType, h('br'), mono(d.eventId))],
      ['Status', (d) => badge(d.status)],
      ['HTTP', (d) => d.statusCode ?? '—'],
      ['Attempt', (d) => d.attemptNumber],
      ['Time', (d) => time(d.requestTimestamp ?? d.createdAt)],
      ['', (d) => (d.status === 'failed' && !d.eventId.startsWith('evt_test_') ? h('button', { type: 'button', class: 'secondary small', 'aria-label': `Resend ${d.eventType} ${d.id}`, onclick: () => resend(d) }, 'Resend') : d.resendOf ? 'resent' : '')],
    ], log.data, { empty: 'No deliveries yet.' }),
    pager('delivery pages', page, log.pagination.perPage, log.pagination.total, (p) => `#/webhook/${enc(id)}?page=${p}`),
    edit,
  ];
}
