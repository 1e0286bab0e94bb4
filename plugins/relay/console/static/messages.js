// Messages (records, never bodies) filtered by state, protocol and recipient; the queue status and
// the throughput chart.
import { get } from './api.js';
import { throughputChart, legend } from './chart.js';
import { cards, field, filters, h, select, short, state, table, time, title } from './dom.js';

const STATES = ['queued', 'live-delivered', 'delivered', 'acknowledged', 'expired', 'failed'];
const PROTOCOLS = ['forward', 'pickup', 'coordinate-mediation'];
const LIMIT = 50;
const WINDOWS = ['1h', '6h', '24h', '7d'];

function filterForm(query) {
  return filters('Filter messages', '#/messages', [
    field('State', select('state', [['', 'any'], ...STATES.map((s) => [s, s])], query.get('state') ?? '')),
    field('Protocol', select('protocol', [['', 'any'], ...PROTOCOLS.map((p) => [p, p])], query.get('protocol') ?? '')),
    field('Recipient DID', h('input', { name: 'recipient', value: query.get('recipient') ?? '', autocomplete: 'off', spellcheck: 'false' })),
  ]);
}

export async function messagesPage(_params, query) {
  const offset = Math.max(0, Number(query.get('offset') ?? 0) || 0);
  const q = new URLSearchParams({ limit: String(LIMIT), offset: String(offset) });
  for (const k of ['state', 'protocol', 'recipient']) if (query.get(k)) q.set(k, query.get(k));
  const list = await get(`/messages?${q}`);
  const at = (o) => {
    const next = new URLSearchParams(query);
    next.set('offset', String(o));
    return `#/messages?${next}`;
  };
  return [
    title('Messages'),
    h('p', { class: 'lede' }, 'What the relay holds or held for its agents, newest first. The relay keeps records, never message bodies.'),
    filterForm(query),
    table(
      `Messages: ${list.total}`,
      [
        ['Recipient', (m) => short(m.recipient)],
        ['Protocol', (m) => m.protocol],
        ['State', (m) => [state(m.state), m.reason ? h('div', { class: 'small' }, m.reason) : null]],
        ['Size', (m) => h('span', { class: 'num' }, `${m.size} B`)],
        ['Received', (m) => time(m.receivedAt)],
        ['Delivered', (m) => time(m.deliveredAt)],
        ['Expires', (m) => time(m.expiresAt)],
      ],
      list.items,
      { empty: 'No message matches.', id: 'messages' },
    ),
    list.total > LIMIT
      ? h(
          'nav',
          { class: 'pager', 'aria-label': 'message pages' },
          offset > 0 ? h('a', { href: at(Math.max(0, offset - LIMIT)) }, '← Newer') : null,
          h('span', {}, `${offset + 1}–${Math.min(offset + LIMIT, list.total)} of ${list.total}`),
          offset + LIMIT < list.total ? h('a', { href: at(offset + LIMIT) }, 'Older →') : null,
        )
      : null,
  ];
}

/** the chart's width in CSS pixels: what <main> offers, from a phone's to 1,200 */
function chartWidth() {
  const main = document.getElementById('main');
  return Math.round(Math.min(1200, Math.max(300, (main?.clientWidth ?? 720) - 32)));
}

export async function queuePage(_params, query) {
  const window = WINDOWS.includes(query.get('window')) ? query.get('window') : '1h';
  const [status, throughput] = await Promise.all([get('/queue/status'), get(`/mediator/throughput?window=${window}`)]);
  const busy = throughput.points.filter((p) => p.received > 0 || p.delivered > 0);
  return [
    title('Queue'),
    cards([
      ['Pending', h('span', { class: 'num', id: 'pending' }, status.pending)],
      ...STATES.map((s) => [s, h('span', { class: 'num' }, status.counts[s] ?? 0)]),
      ['Oldest pending', status.oldestPendingAgeSeconds === null ? '—' : `${status.oldestPendingAgeSeconds} s`],
      ['Live connections', h('span', { class: 'num' }, status.liveConnections)],
    ]),
    h('h2', { id: 'throughput' }, 'Throughput'),
    h(
      'nav',
      { class: 'tabs', 'aria-label': 'throughput window' },
      WINDOWS.map((w) => h('a', { href: `#/queue?window=${w}`, 'aria-current': w === window ? 'true' : null }, w)),
    ),
    h('figure', { class: 'chart-box' }, throughputChart(throughput, `Messages received and delivered, last ${window}`, chartWidth()), h('figcaption', {}, legend(), `Totals: ${throughput.totals?.received ?? 0} received, ${throughput.totals?.delivered ?? 0} delivered (buckets of ${throughput.bucketSeconds / 60} min).`)),
    h(
      'details',
      {},
      h('summary', {}, `The figures (${busy.length} ${busy.length === 1 ? 'bucket' : 'buckets'} with traffic)`),
      table('Throughput by bucket', [['Bucket', (p) => time(p.at)], ['Received', (p) => p.received], ['Delivered', (p) => p.delivered]], busy, { empty: 'No traffic in this window.' }),
    ),
  ];
}
