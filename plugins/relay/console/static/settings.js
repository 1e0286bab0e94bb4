// Policies with the rate limit and retention; notification channels; the mediator's settings with
// the team, billing and health.
import { api, can, enc, get } from './api.js';
import { actionButton, cards, facts, field, form, h, scopeNote, select, state, table, time, title } from './dom.js';

const CREDENTIAL_TYPES = ['EmailVerificationCredential', 'PhoneVerificationCredential', 'KYCCredential', 'AgeVerificationCredential', 'ReputationCredential'];

const number = (name, value, min, max) => h('input', { name, type: 'number', inputmode: 'numeric', required: true, min, max, step: 1, value });

export async function policiesPage(_params, _query, page) {
  const [policies, rate, retention] = await Promise.all([get('/policies'), get('/policies/rate-limit'), get('/policies/retention')]);
  const manage = can('manage');
  const remove = (p) =>
    actionButton({ class: 'secondary', 'aria-label': `Delete policy ${p.name}` }, 'Delete', async () => {
      await api('DELETE', `/policies/${enc(p.id)}`);
      await page.refresh(`Policy “${p.name}” deleted.`);
    });
  return [
    title('Policies'),
    h('p', { class: 'lede' }, 'A policy gates mediation or delivery on a credential the agent presents, checked against the chain.'),
    manage ? null : scopeNote('Changing policies and limits', 'manage'),
    table(
      `Policies: ${policies.length}`,
      [['Name', (p) => p.name], ['Credential', (p) => p.credentialType], ['Disclosure', (p) => p.disclosure], ['Applies to', (p) => p.appliesTo], ['Created', (p) => time(p.createdAt)], ...(manage ? [['Delete', remove]] : [])],
      policies,
      { empty: 'No policies: every mediation and delivery goes through ungated.', id: 'policies' },
    ),
    manage
      ? [
          h('h2', {}, 'New policy'),
          form({ 'aria-label': 'New policy' }, [
            field('Name', h('input', { name: 'name', required: true, maxlength: 100, autocomplete: 'off' })),
            field('Credential type', select('credentialType', CREDENTIAL_TYPES.map((c) => [c, c]), 'KYCCredential')),
            field('Disclosure', select('disclosure', [['full', 'full'], ['selective (BBS+)', 'selective (BBS+)']], 'full')),
            field('Applies to', select('appliesTo', [['both', 'mediation and delivery'], ['mediation', 'mediation'], ['delivery', 'delivery']], 'both')),
            h('button', { type: 'submit' }, 'Create policy'),
          ], async (data) => {
            const p = await api('POST', '/policies', { name: String(data.get('name')).trim(), credentialType: data.get('credentialType'), disclosure: data.get('disclosure'), appliesTo: data.get('appliesTo') });
            page.refresh(`Policy “${p.name}” created.`);
          }),
        ]
      : null,
    h('h2', {}, 'Limits'),
    manage
      ? h(
          'div',
          { class: 'pair' },
          form({ 'aria-label': 'Rate limit' }, [field('Messages per DID per minute', number('rateLimitPerDidPerMin', rate.rateLimitPerDidPerMin, 1, 1000000)), h('button', { type: 'submit' }, 'Save rate limit')], async (data) => {
            const r = await api('PUT', '/policies/rate-limit', { rateLimitPerDidPerMin: Number(data.get('rateLimitPerDidPerMin')) });
            return `Rate limit: ${r.rateLimitPerDidPerMin} per DID per minute.`;
          }),
          form({ 'aria-label': 'Retention' }, [field('Retention (seconds)', number('retentionSeconds', retention.retentionSeconds, 60, 7776000), '60 s to 90 days; undelivered messages expire after it'), h('button', { type: 'submit' }, 'Save retention')], async (data) => {
            const r = await api('PUT', '/policies/retention', { retentionSeconds: Number(data.get('retentionSeconds')) });
            return `Retention: ${r.retentionSeconds} s.`;
          }),
        )
      : facts([['Rate limit', `${rate.rateLimitPerDidPerMin} per DID per minute`], ['Retention', `${retention.retentionSeconds} s`]]),
  ];
}

const CHANNELS = [
  ['email', 'Email', 'an email address'],
  ['chat', 'Team chat', 'an https incoming-webhook URL'],
  ['paging', 'Incident paging', "an https URL (the paging service's webhook)"],
];

export async function notificationsPage() {
  const n = await get('/notifications');
  const manage = can('manage');
  const channel = ([key, label, hint]) =>
    h(
      'fieldset',
      { class: 'channel' },
      h('legend', {}, label),
      h('label', { class: 'check' }, h('input', { type: 'checkbox', name: `${key}.enabled`, checked: n.channels[key].enabled, disabled: !manage }), 'Enabled'),
      field('Target', h('input', { name: `${key}.target`, value: n.channels[key].target ?? '', autocomplete: 'off', disabled: !manage }), hint),
    );
  return [
    title('Notifications'),
    h('p', { class: 'note' }, n.note),
    facts([['Webhook channel', n.channels.webhook.enabled ? ['on, to ', h('span', { class: 'mono wrap' }, n.channels.webhook.target)] : 'off (set it on the Webhooks page)'], ...Object.entries(n.delivery ?? {}).map(([k, v]) => [`Delivery: ${k}`, v])]),
    manage ? null : scopeNote('Changing notification channels', 'manage'),
    form({ 'aria-label': 'Notification channels' }, [CHANNELS.map(channel), manage ? h('button', { type: 'submit' }, 'Save channels') : null], async (data) => {
      // PUT accepts only these three channels; the webhook channel, delivery and note are read-only
      const channels = {};
      for (const [key] of CHANNELS) {
        const target = String(data.get(`${key}.target`) ?? '').trim();
        channels[key] = { enabled: data.get(`${key}.enabled`) === 'on', target: target === '' ? null : target };
      }
      const saved = await api('PUT', '/notifications', { channels });
      const secrets = Object.entries(saved.secrets ?? {}).map(([k, v]) => `${k}: ${v}`);
      return secrets.length > 0 ? `Channels saved. Signing secrets, shown once: ${secrets.join(', ')}` : 'Channels saved.';
    }),
    manage
      ? CHANNELS.filter(([key]) => n.channels[key].target !== null).map(([key, label]) =>
          form({ class: 'inline', 'aria-label': `Test ${label}` }, [h('button', { type: 'submit' }, `Send a test to ${label}`)], async () => {
            const r = await api('POST', `/notifications/${key}/test`);
            const text = `Test to ${label}: ${r.status}${r.statusCode ? ` (HTTP ${r.statusCode})` : ''}${r.via ? ` via ${r.via}` : ''}${r.error ? `: ${r.error}` : ''}.`;
            if (r.status === 'failed') throw new Error(text);
            return text;
          }),
        )
      : null,
  ];
}

export async function settingsPage() {
  const [mediator, team, billing, health] = await Promise.all([get('/mediator'), get('/team'), get('/billing'), fetch('/v1/health', { cache: 'no-store' }).then((r) => r.json())]);
  const st = mediator.settings;
  const manage = can('manage');
  const yes = (v) => (v ? 'yes' : 'no');
  return [
    title('Settings'),
    h('h2', {}, 'Mediator'),
    facts([
      ['DID', h('span', { class: 'mono wrap' }, mediator.did)],
      ['Endpoint', h('span', { class: 'mono wrap' }, mediator.endpoint)],
      ['Invitation', h('span', { class: 'mono wrap' }, mediator.invitationUrl)],
      ['Network', mediator.network],
    ]),
    h('h2', {}, 'This tenant’s settings'),
    manage
      ? form({ 'aria-label': 'Mediator settings' }, [
          field('Public endpoint', h('input', { name: 'endpoint', type: 'url', value: st.endpoint ?? '', autocomplete: 'off' }), 'the URL agents post to; empty: the relay’s own'),
          field('Rate limit per DID per minute', number('rateLimitPerDidPerMin', st.rateLimitPerDidPerMin, 1, 1000000)),
          field('Retention (seconds)', number('retentionSeconds', st.retentionSeconds, 60, 7776000)),
          h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'purgeOnAck', checked: st.purgeOnAck }), 'Purge a message once acknowledged'),
          h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'manualApproval', checked: st.manualApproval }), 'Mediation requests wait for an operator'),
          h('button', { type: 'submit' }, 'Save settings'),
        ], async (data) => {
          const endpoint = String(data.get('endpoint') ?? '').trim();
          const body = { rateLimitPerDidPerMin: Number(data.get('rateLimitPerDidPerMin')), retentionSeconds: Number(data.get('retentionSeconds')), purgeOnAck: data.get('purgeOnAck') === 'on', manualApproval: data.get('manualApproval') === 'on' };
          // only the default tenant may set the endpoint; send it only when it changed
          if ((endpoint || null) !== (st.endpoint ?? null)) body.endpoint = endpoint || null;
          await api('PUT', '/mediator/config', body);
          return 'Settings saved.';
        })
      : facts([['Rate limit', st.rateLimitPerDidPerMin], ['Retention', `${st.retentionSeconds} s`], ['Purge on acknowledgement', yes(st.purgeOnAck)], ['Manual approval', yes(st.manualApproval)]]),
    h('h2', {}, 'Team'),
    table('Operators who have signed in', [['Name', (o) => o.name ?? '—'], ['Email', (o) => o.email ?? '—'], ['Role', (o) => o.role], ['Last sign-in', (o) => time(o.lastLoginAt)]], team, { empty: 'Nobody has signed in through OpenID yet.', id: 'team' }),
    h('p', { class: 'note' }, 'Operators join by signing in through your OpenID provider; there are no invitations.'),
    h('h2', {}, 'Usage and billing'),
    cards([
      ['Plan', billing.plan],
      ['Received this month', billing.usage.messagesReceived],
      ['Delivered this month', billing.usage.messagesDelivered],
      ['Mediations', billing.usage.mediations.total],
      ['Active API keys', billing.usage.apiKeys],
      ['Policies', billing.usage.policies],
    ]),
    h('p', { class: 'note' }, billing.note),
    h('h2', {}, 'Health'),
    h('p', {}, 'Overall: ', state(health.status === 'ok' ? 'ok' : 'degraded'), ` · version ${health.version}`),
    table('Health checks', [['Check', ([k]) => k], ['OK', ([, c]) => state(c.ok ? 'ok' : 'failed')], ['Backend', ([, c]) => c.backend], ['Time', ([, c]) => `${c.ms} ms`], ['Error', ([, c]) => c.error ?? '—']], Object.entries(health.checks ?? {})),
  ];
}
