// Blocks, transactions and validators: lists and detail pages.
import { api, maybe } from './api.js';
import { cards, facts, h, json, link, pager, status, table, time, title, tokens, typeLabel, yesNo } from './dom.js';

export const LIMIT = 20;

export const blockCols = [
  ['Height', (b) => link('block', b.height, { full: true })],
  ['Hash', (b) => h('span', { class: 'mono', title: b.hash }, `${b.hash.slice(0, 12)}…`)],
  ['Proposer', (b) => link('address', b.proposer)],
  ['Txs', (b) => String(b.tx_count)],
  ['Time', (b) => time(b.timestamp_ms)],
];

export const txCols = [
  ['Hash', (t) => link('tx', t.hash)],
  ['Block', (t) => link('block', t.block_height, { full: true })],
  ['Type', (t) => typeLabel(t.type)],
  ['From', (t) => link('address', t.sender)],
  ['To', (t) => link('address', t.recipient)],
  ['Amount', (t) => h('span', { class: 'num' }, tokens(t.amount))],
  ['Status', (t) => status(t.status)],
];

export async function blocksPage(_params, query) {
  const page = Number(query.get('page') ?? 1);
  const list = await api(`/blocks?page=${page}&limit=${LIMIT}`);
  return [title('Blocks'), table('Blocks, newest first', blockCols, list.data), pager('#/blocks', page, LIMIT, list.total)];
}

export async function txsPage(_params, query) {
  const page = Number(query.get('page') ?? 1);
  const list = await api(`/txs?page=${page}&limit=${LIMIT}`);
  return [title('Transactions'), table('Transactions, newest first', txCols, list.data), pager('#/txs', page, LIMIT, list.total)];
}

export async function blockPage([height]) {
  // the head decides whether a next block exists; fetched alongside, so it costs no extra round trip
  const [b, latest] = await Promise.all([api(`/blocks/${height}`), api('/blocks/latest')]);
  const n = Number(b.height);
  return [
    title(`Block ${b.height}`),
    h(
      'nav',
      { class: 'pager', 'aria-label': 'neighbouring blocks' },
      n > 0 ? h('a', { href: `#/block/${n - 1}`, rel: 'prev' }, `← Block ${n - 1}`) : null,
      n < Number(latest.height) ? h('a', { href: `#/block/${n + 1}`, rel: 'next' }, `Block ${n + 1} →`) : null,
    ),
    facts([
      ['Height', b.height],
      ['Hash', h('span', { class: 'mono wrap', 'data-field': 'hash' }, b.hash)],
      ['Parent', n > 0 ? link('block', n - 1, { text: b.parent_hash, full: true }) : h('span', { class: 'mono wrap' }, b.parent_hash)],
      ['Proposer', link('address', b.proposer, { full: true })],
      ['Time', time(b.timestamp_ms)],
      ['Round', b.round],
      ['State root', h('span', { class: 'mono wrap' }, b.state_root)],
      ['Transactions', h('span', { 'data-field': 'tx_count' }, String(b.tx_count))],
    ]),
    h('h2', {}, 'Transactions'),
    table(`Transactions in block ${b.height}`, txCols, b.transactions.map((t) => ({ ...t, block_height: b.height })), { empty: 'This block holds no transaction.' }),
  ];
}

export async function txPage([hash]) {
  const t = await api(`/txs/${hash}`);
  const [kind, fields] = Object.entries(t.raw_payload)[0] ?? [t.type, {}];
  const requestId = verificationOf(kind, fields);
  return [
    title('Transaction'),
    facts([
      ['Hash', h('span', { class: 'mono wrap', 'data-field': 'hash' }, t.hash)],
      ['Status', [status(t.status), t.error_reason ? [' ', h('span', { class: 'reason', 'data-field': 'error_reason' }, t.error_reason)] : null]],
      ['Block', link('block', t.block_height, { full: true })],
      ['Position', String(t.tx_index)],
      ['Time', time(t.timestamp_ms)],
      ['Type', typeLabel(t.type)],
      ...(requestId === undefined ? [] : [['Verification request', link('verification', requestId, { full: true })]]),
      ['From', link('address', t.sender, { full: true })],
      ['To', link('address', t.recipient, { full: true })],
      ['Amount', h('span', { 'data-field': 'amount' }, tokens(t.amount))],
      ['Fee', h('span', { 'data-field': 'fee' }, tokens(t.fee))],
    ]),
    h('h2', {}, `Payload: ${kind}`),
    fields && typeof fields === 'object' ? facts(Object.entries(fields).map(([k, v]) => [k, payloadValue(k, v)])) : null,
    h('details', {}, h('summary', {}, 'Raw payload (JSON)'), json(t.raw_payload)),
  ];
}

/** The request a verification payload belongs to, for the link to its page. */
function verificationOf(kind, fields) {
  if (kind === 'VerificationRequest') return fields?.request?.requestId;
  if (kind === 'VerificationAnswer') return fields?.requestId;
  return undefined;
}

const AMOUNT_FIELDS = new Set(['amount', 'fee']);

/** A payload field as text; an amount also in tokens, from its integer units. */
function payloadValue(key, v) {
  const text = typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
  if (AMOUNT_FIELDS.has(key) && /^\d+$/.test(text)) return [h('span', { class: 'mono' }, text), ` units (${tokens(text)})`];
  return h('span', { class: 'mono wrap' }, text);
}

export async function validatorsPage(_params, query) {
  const page = Number(query.get('page') ?? 1);
  const list = await api(`/validators?page=${page}&limit=${LIMIT}`);
  const s = list.summary;
  return [
    title('Validators'),
    h(
      'div',
      { class: 'stats' },
      cards([
        ['Validators', String(s.total_validators)],
        ['Active', String(s.active_validators)],
        ['Total staked', tokens(s.total_staked)],
        ['Blocks proposed', String(s.total_blocks_proposed)],
      ]),
    ),
    h('h2', {}, 'By stake'),
    table(
      'Validators by stake',
      [
        ['Address', (v) => link('address', v.address)],
        ['Staked', (v) => h('span', { class: 'num' }, tokens(v.staked))],
        ['Unbonding', (v) => h('span', { class: 'num' }, tokens(v.unbonding))],
        ['Reputation', (v) => String(v.reputation)],
        ['Blocks proposed', (v) => String(v.blocks_proposed)],
        ['Active', (v) => yesNo(v.active, 'active', 'inactive')],
      ],
      list.data,
      { empty: 'No validator.' },
    ),
    pager('#/validators', page, LIMIT, list.total),
  ];
}

/** The validator part of an address page, or null when the address is not a validator. */
export async function validatorSection(address) {
  const v = await maybe(`/validators/${address}`);
  if (!v) return null;
  return [
    h('h2', {}, 'Validator'),
    facts([
      ['Staked', tokens(v.staked)],
      ['Unbonding', tokens(v.unbonding)],
      ['Reputation', String(v.reputation)],
      ['Blocks proposed', String(v.blocks_proposed)],
      ['Active', yesNo(v.active, 'active', 'inactive')],
    ]),
    table('Last blocks it proposed', blockCols, v.recent_blocks, { empty: 'No block proposed yet.' }),
  ];
}
