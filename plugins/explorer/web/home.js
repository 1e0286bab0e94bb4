// The home page (search, network stats, live latest blocks and transactions), the charts, the
// search results and the page for a missing item.
import { api, ApiError, enc, listen, maybe } from './api.js';
import { blockCols, txCols } from './chain-pages.js';
import { cards, h, href, row, table, time, title, tokens } from './dom.js';

const LATEST = 10;

export function searchForm(value = '') {
  const input = h('input', { type: 'search', name: 'q', id: 'q', value, required: true, maxlength: '128', autocomplete: 'off', spellcheck: 'false', placeholder: 'Height, hash, address, DID or credential id' });
  return h(
    'form',
    {
      role: 'search',
      class: 'search',
      onsubmit: (e) => {
        e.preventDefault();
        const q = input.value.trim();
        if (q) location.hash = `#/search?q=${enc(q)}`;
      },
    },
    h('label', { for: 'q' }, 'Search the chain'),
    h('div', { class: 'row' }, input, h('button', { type: 'submit' }, 'Search')),
  );
}

export async function homePage(_params, _query, page) {
  const [stats, blocks, txs] = await Promise.all([api('/stats/network'), api(`/blocks?limit=${LATEST}`), api(`/txs?limit=${LATEST}`)]);
  const latestHeight = h('span', { 'data-field': 'latest_height' }, stats.blocks.latest_height ?? '—');
  const blockBody = table('Latest blocks, live', blockCols, blocks.data, { id: 'latest-blocks' });
  const txBody = table('Latest transactions, live', txCols, txs.data, { id: 'latest-txs', empty: 'No transaction yet.' });
  const prepend = (container, cols, item) => {
    const tbody = container.querySelector('tbody');
    if (!tbody) return;
    tbody.prepend(row(cols, item));
    while (tbody.rows.length > LATEST) tbody.lastElementChild.remove();
  };
  page.onLeave(
    listen(['blocks', 'transactions'], (msg) => {
      if (msg.type === 'block') {
        prepend(blockBody, blockCols, msg.data);
        latestHeight.textContent = msg.data.height;
      } else if (msg.type === 'transaction') prepend(txBody, txCols, msg.data);
    }),
  );
  return [
    h('h1', { tabindex: '-1', class: 'visually-hidden' }, 'Ledger explorer'),
    searchForm(),
    h('h2', {}, 'Network'),
    h(
      'div',
      { class: 'stats' },
      cards([
        ['Latest block', latestHeight],
        ['Blocks', String(stats.blocks.total_blocks)],
        ['Transactions', String(stats.transactions.total_transactions)],
        ['Addresses', String(stats.addresses.total_addresses)],
        ['DIDs', `${stats.dids.total_dids} (${stats.dids.active_dids} active)`],
        ['Credentials', `${stats.credentials.total_credentials} (${stats.credentials.active_credentials} active)`],
        ['Validators', `${stats.validators.total_validators} (${stats.validators.active_validators} active)`],
        ['Total staked', tokens(stats.validators.total_staked)],
        ['Verification requests', `${stats.verifications.total_requests} (${stats.verifications.pending} pending)`],
        ['Verified', `${stats.verifications.final_verified} of ${stats.verifications.final_verified + stats.verifications.final_not_verified} final`],
        ['Expired requests', String(stats.verifications.expired)],
      ]),
      h('p', { class: 'note' }, 'Totals as of ', time(Date.parse(stats.cached_at)), '. ', h('a', { href: '#/charts/24h' }, 'Charts')),
    ),
    h('section', { 'aria-labelledby': 'hb' }, h('h2', { id: 'hb' }, 'Latest blocks ', h('a', { href: '#/blocks', class: 'more' }, 'all blocks')), blockBody),
    h('section', { 'aria-labelledby': 'ht' }, h('h2', { id: 'ht' }, 'Latest transactions ', h('a', { href: '#/txs', class: 'more' }, 'all transactions')), txBody),
  ];
}

const RANGES = ['1h', '24h', '7d', '30d'];
const METRICS = [
  ['blocks', 'Blocks'],
  ['transactions', 'Transactions'],
  ['dids', 'New DIDs'],
];

export async function chartsPage([range]) {
  if (!RANGES.includes(range)) throw new ApiError(404, `no chart range ${range}: the ranges are ${RANGES.join(', ')}`);
  const series = await Promise.all(METRICS.map(([m]) => api(`/stats/charts?metric=${m}&range=${range}`)));
  return [
    title(`Activity over ${range}`),
    h('nav', { class: 'tabs', 'aria-label': 'time range' }, RANGES.map((r) => h('a', { href: `#/charts/${r}`, 'aria-current': r === range ? 'page' : false }, r))),
    series.map((s, i) => chart(METRICS[i][1], s)),
  ];
}

/** One bar chart as SVG, with its numbers in a table for screen readers and keyboard users. */
function chart(label, s) {
  const NS = 'http://www.w3.org/2000/svg';
  const max = Math.max(1, ...s.data.map((d) => d.count));
  const total = s.data.reduce((n, d) => n + d.count, 0);
  const w = 600;
  const hgt = 120;
  const bw = w / s.data.length;
  const svg = document.createElementNS(NS, 'svg');
  svg.setAttribute('viewBox', `0 0 ${w} ${hgt}`);
  svg.setAttribute('preserveAspectRatio', 'none');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', `${label}: ${total} in ${s.range}, at most ${max} in one bucket`);
  s.data.forEach((d, i) => {
    const bh = (d.count / max) * (hgt - 4);
    const r = document.createElementNS(NS, 'rect');
    r.setAttribute('x', String(i * bw + 1));
    r.setAttribute('y', String(hgt - bh));
    r.setAttribute('width', String(Math.max(1, bw - 2)));
    r.setAttribute('height', String(bh));
    const t = document.createElementNS(NS, 'title');
    t.textContent = `${new Date(d.bucket).toISOString().slice(0, 16).replace('T', ' ')} UTC: ${d.count}`;
    r.append(t);
    svg.append(r);
  });
  return h(
    'section',
    { class: 'chart', 'data-metric': s.metric },
    h('h2', {}, `${label}: `, h('span', { 'data-field': 'total' }, String(total))),
    svg,
    h('p', { class: 'axis' }, h('span', {}, 'from ', time(s.data[0]?.bucket)), h('span', {}, `${s.data.length} buckets of ${bucketLabel(s.bucket_ms)}`), h('span', {}, 'to now')),
    h('details', {}, h('summary', {}, 'Numbers'), table(`${label} per bucket`, [['Bucket start', (d) => time(d.bucket)], ['Count', (d) => String(d.count)]], s.data)),
  );
}

function bucketLabel(ms) {
  return ms >= 86_400_000 ? `${ms / 86_400_000} day` : ms >= 3_600_000 ? `${ms / 3_600_000} h` : `${ms / 60_000} min`;
}

const HIT = {
  block: (d) => [href.block(d.height), `Block ${d.height}`],
  transaction: (d) => [href.tx(d.hash), `Transaction ${d.hash}`],
  validator: (d) => [href.address(d.address), `Validator ${d.address}`],
  did: (d) => [href.did(d.did), `DID ${d.did}`],
  credential: (d) => [href.credential(d.credential_id), `Credential ${d.credential_id}`],
  verification: (d) => [href.verification(d.request_id), `Verification request ${d.request_id}`],
  address: (d) => [href.address(d.address), `Address ${d.address}`],
};

const ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{25,40}$/;

export async function searchPage(_params, query) {
  const q = (query.get('q') ?? '').trim();
  if (!q) return [title('Search'), searchForm()];
  // addresses without a validator record are not a search type; their page answers for them
  const [found, address] = await Promise.all([api(`/search?q=${enc(q)}`), ADDRESS.test(q) ? maybe(`/addresses/${q}`).catch(() => null) : null]);
  const hits = found.data.map((x) => HIT[x.type](x.data));
  if (address && !found.data.some((x) => x.type === 'validator')) hits.push(HIT.address(address));
  if (hits.length === 1) {
    location.replace(hits[0][0]);
    return [];
  }
  if (hits.length === 0) return notFound(`Nothing on this chain matches “${q}”.`, q);
  return [title(`Results for “${q}”`), searchForm(q), h('ul', { class: 'hits' }, hits.map(([to, text]) => h('li', {}, h('a', { href: to, class: 'mono wrap' }, text))))];
}

export function notFound(detail, q = '') {
  return [
    h('h1', { tabindex: '-1', 'data-not-found': true }, 'Not found'),
    h('p', { class: 'detail' }, detail),
    h(
      'p',
      {},
      'The search takes a block height or hash, a transaction hash, an address, a DID (did:ledger:…), a credential id (urn:ledger:credential:… or its UUID) or a verification request id. ',
      'An item appears here once its block is committed and indexed; a credential once its committee registered it.',
    ),
    searchForm(q),
    h('p', {}, h('a', { href: '#/' }, 'Back to the home page')),
  ];
}
