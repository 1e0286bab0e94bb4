// Mediations (grant, deny with a reason, revoke), each mediation's keylist, and the agents.
import { api, can, enc, get } from './api.js';
import { actionButton, field, filters, form, h, scopeNote, select, short, state, table, time, title } from './dom.js';

const STATES = ['requested', 'granted', 'denied', 'revoked'];
const DONE = { grant: 'granted', deny: 'denied', revoke: 'revoked' };

function actions(m, page) {
  if (!can('manage')) return '—';
  const act = async (verb, body) => {
    await api('POST', `/mediations/${enc(m.id)}/${verb}`, body);
    await page.refresh(`Mediation ${m.id} ${DONE[verb]}.`);
  };
  const button = (verb, text) => actionButton({ class: verb === 'grant' ? '' : 'secondary', 'aria-label': `${text} mediation of ${m.recipientDid}` }, text, () => act(verb));
  const out = [];
  if (m.state !== 'granted') out.push(button('grant', 'Grant'));
  if (m.state === 'granted') out.push(button('revoke', 'Revoke'));
  if (m.state === 'requested') {
    out.push(
      h(
        'details',
        { class: 'deny' },
        h('summary', {}, 'Deny…'),
        form({ 'aria-label': `Deny mediation of ${m.recipientDid}` }, [field('Reason', h('input', { name: 'reason', required: true, maxlength: 500, autocomplete: 'off' })), h('button', { type: 'submit', class: 'danger' }, 'Deny')], async (data) => {
          await act('deny', { reason: String(data.get('reason') ?? '').trim() });
        }),
      ),
    );
  }
  return h('div', { class: 'actions' }, out);
}

export async function mediationsPage(_params, query, page) {
  const all = await get('/mediations');
  const want = query.get('state') ?? '';
  const recipient = (query.get('recipient') ?? '').trim();
  const shown = all.filter((m) => (!want || m.state === want) && (!recipient || m.recipientDid.includes(recipient)));
  const counts = Object.fromEntries(STATES.map((s) => [s, all.filter((m) => m.state === s).length]));
  const filterForm = filters('Filter mediations', '#/mediations', [
    field('State', select('state', [['', `any (${all.length})`], ...STATES.map((s) => [s, `${s} (${counts[s]})`])], want)),
    field('Recipient DID contains', h('input', { name: 'recipient', value: recipient, autocomplete: 'off', spellcheck: 'false' })),
  ]);
  return [
    title('Mediations'),
    h('p', { class: 'lede' }, 'Agents ask this relay to mediate for them over DIDComm (coordinate-mediation 2.0). Grant, deny or revoke each request here.'),
    can('manage') ? null : scopeNote('Granting, denying and revoking', 'manage'),
    filterForm,
    table(
      `Mediations: ${shown.length} of ${all.length}`,
      [
        ['Recipient', (m) => short(m.recipientDid)],
        ['State', (m) => [state(m.state), m.reason ? h('div', { class: 'small' }, `Reason: ${m.reason}`) : null]],
        ['Keys', (m) => h('a', { href: `#/mediations/${enc(m.id)}/keylist`, 'aria-label': `keylist of ${m.recipientDid}: ${m.keylistSize} keys` }, String(m.keylistSize))],
        ['Queued', (m) => h('span', { class: 'num' }, m.queued)],
        ['Delivered 24 h', (m) => h('span', { class: 'num' }, m.delivered24h)],
        ['Granted', (m) => m.grantedAgo ?? '—'],
        ['Requested', (m) => time(m.createdAt)],
        ['Actions', (m) => actions(m, page)],
      ],
      shown,
      { empty: all.length === 0 ? 'No agent has asked for mediation yet.' : 'No mediation matches these filters.', id: 'mediations' },
    ),
  ];
}

const KEYS_PER_PAGE = 50;

export async function keylistPage([id], query, page) {
  const offset = Math.max(0, Number(query.get('offset') ?? 0) || 0);
  const list = await get(`/mediations/${enc(id)}/keylist?limit=${KEYS_PER_PAGE}&offset=${offset}`);
  const remove = (key) =>
    actionButton({ class: 'secondary', 'aria-label': `Remove ${key}` }, 'Remove', async () => {
      await api('DELETE', `/mediations/${enc(id)}/keylist/${enc(key)}`);
      await page.refresh(`Key ${key} removed.`);
    });
  const at = (o) => `#/mediations/${enc(id)}/keylist?offset=${o}`;
  return [
    title('Keylist'),
    h('p', {}, h('a', { href: '#/mediations' }, '← Mediations'), ' · mediation ', h('span', { class: 'mono' }, id)),
    table(
      `Routing keys: ${list.total}`,
      [
        ['Key', (k) => h('span', { class: 'mono wrap' }, k.key)],
        ['Added', (k) => time(k.addedAt)],
        ...(can('manage') ? [['Remove', (k) => remove(k.key)]] : []),
      ],
      list.items,
      { empty: 'This mediation has no routing keys: the agent adds them with keylist-update.', id: 'keylist' },
    ),
    list.total > KEYS_PER_PAGE
      ? h(
          'nav',
          { class: 'pager', 'aria-label': 'keylist pages' },
          offset > 0 ? h('a', { href: at(Math.max(0, offset - KEYS_PER_PAGE)) }, '← Previous') : null,
          h('span', {}, `${offset + 1}–${Math.min(offset + KEYS_PER_PAGE, list.total)} of ${list.total}`),
          offset + KEYS_PER_PAGE < list.total ? h('a', { href: at(offset + KEYS_PER_PAGE) }, 'Next →') : null,
        )
      : null,
  ];
}

export async function agentsPage() {
  const agents = await get('/agents');
  return [
    title('Agents'),
    h('p', { class: 'lede' }, 'One row per mediation: the agent behind it, what waits for it, and how close it is to its rate limit this minute.'),
    table(
      `Agents: ${agents.length}`,
      [
        ['DID', (a) => short(a.did)],
        ['Mediation', (a) => state(a.mediationState)],
        ['Queued', (a) => h('span', { class: 'num' }, a.queued)],
        ['This minute', (a) => h('span', { class: 'num' }, `${a.ratePerMin} / ${a.rateLimit}`)],
        ['Last seen', (a) => a.lastSeenAgo ?? '—'],
        ['Keylist', (a) => h('a', { href: `#/mediations/${enc(a.mediationId)}/keylist` }, 'keys')],
      ],
      agents,
      { empty: 'No agents yet.', id: 'agents' },
    ),
  ];
}
