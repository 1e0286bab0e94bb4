// DOM building and formatting shared by the pages. Chain data is only ever set as text (never as
// HTML), so a DID document or a payload cannot inject markup.
import { h } from './dom-core.js';

export { facts, h, title } from './dom-core.js';

export const DECIMALS = 8;
const UNIT = 10n ** BigInt(DECIMALS);

/** Smallest units (a decimal string) as tokens with exactly 8 decimals: "150000000" -> "1.50000000 LGR". BigInt only. */
export function tokens(units) {
  const v = BigInt(units);
  const sign = v < 0n ? '-' : '';
  const abs = v < 0n ? -v : v;
  const whole = (abs / UNIT).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${sign}${whole}.${(abs % UNIT).toString().padStart(DECIMALS, '0')} LGR`;
}

/** Unix ms (number or decimal string) as "2026-11-25 00:12:19 UTC", inside a <time>. */
export function time(ms) {
  if (ms === null || ms === undefined) return '—';
  const d = new Date(Number(ms));
  const iso = d.toISOString();
  return h('time', { datetime: iso }, `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`);
}

/** A long identifier shortened for tables; the full value stays in the title and the link. */
export function short(text, keep = 10) {
  return text.length <= keep * 2 + 1 ? text : `${text.slice(0, keep)}…${text.slice(-6)}`;
}

const seg = (text) => encodeURIComponent(text).replaceAll('%3A', ':');
export const href = {
  block: (height) => `#/block/${height}`,
  tx: (hash) => `#/tx/${hash}`,
  address: (a) => `#/address/${a}`,
  did: (did) => `#/did/${seg(did)}`,
  credential: (id) => `#/credential/${seg(id)}`,
  issuer: (did) => `#/issuer/${seg(did)}`,
  verification: (id) => `#/verification/${seg(id)}`,
};

/** Payload kinds as the tables name them; a kind without a label shows as it is. */
const TYPE_LABELS = { VerificationRequest: 'Verification request', VerificationAnswer: 'Verification answer', VerificationAnswerBatch: 'Verification answers' };

export function typeLabel(kind) {
  return TYPE_LABELS[kind] ?? kind;
}

/** A link to an item, its text shortened unless `full`. */
export function link(kind, id, { full = false, text } = {}) {
  if (id === null || id === undefined) return '—';
  const label = text ?? (full ? String(id) : short(String(id)));
  return h('a', { href: href[kind](id), title: String(id), class: full ? 'mono wrap' : 'mono' }, label);
}

/** Figures as a grid of small cards (a <dl> whose pairs are grouped in <div>s). */
export function cards(pairs) {
  return h('dl', { class: 'cards' }, pairs.map(([k, v]) => h('div', {}, h('dt', {}, k), h('dd', {}, v ?? '—'))));
}

/** A table with a caption; `cols` are [header, cell(row)] pairs. */
export function table(caption, cols, rows, { empty = 'None yet.', id } = {}) {
  if (rows.length === 0) return h('p', { class: 'empty' }, empty);
  return h(
    'div',
    { class: 'scroll' },
    h(
      'table',
      {},
      h('caption', {}, caption),
      h('thead', {}, h('tr', {}, cols.map(([name]) => h('th', { scope: 'col' }, name)))),
      h('tbody', id ? { id } : {}, rows.map((r) => row(cols, r))),
    ),
  );
}

export function row(cols, r) {
  return h('tr', {}, cols.map(([, cell]) => h('td', {}, cell(r))));
}

/** Previous / next links for a list of `total` items shown `limit` a page. */
export function pager(base, page, limit, total) {
  const pages = Math.max(1, Math.ceil(total / limit));
  const at = (p) => `${base}${base.includes('?') ? '&' : '?'}page=${p}`;
  return h(
    'nav',
    { class: 'pager', 'aria-label': 'pages' },
    page > 1 ? h('a', { href: at(page - 1), rel: 'prev' }, '← Newer') : null,
    h('span', {}, `Page ${page} of ${pages} (${total} in all)`),
    page < pages ? h('a', { href: at(page + 1), rel: 'next' }, 'Older →') : null,
  );
}

export function badge(text, kind) {
  return h('span', { class: `badge ${kind}` }, text);
}

export function status(s) {
  return badge(s, s === 'success' ? 'ok' : 'bad');
}

export function yesNo(v, yes = 'yes', no = 'no') {
  return badge(v ? yes : no, v ? 'ok' : 'bad');
}

/** JSON as an indented block of text. */
export function json(value) {
  return h('pre', { class: 'json', tabindex: '0' }, JSON.stringify(value, null, 2));
}

