// Verification requests and their outcomes: a list with status tabs and a detail page. Only what
// the chain holds is shown (DIDs, claim types, constraints, outcomes, hashes, signatures): the
// subject's presentation never reaches the chain, so no personal data reaches these pages.
import { api, enc, listen, seg } from './api.js';
import { LIMIT } from './chain-pages.js';
import { badge, facts, h, json, link, pager, table, time, title, tokens, yesNo } from './dom.js';

const STATUSES = ['pending', 'final', 'expired'];

export function statusBadge(s) {
  return badge(s, s === 'final' ? 'ok' : s === 'expired' ? 'bad' : 'wait');
}

export function outcome(v) {
  return v.verified === null ? '—' : yesNo(v.verified, 'verified', 'not verified');
}

export const verificationCols = [
  ['Request', (v) => link('verification', v.request_id)],
  ['Requester', (v) => link('did', v.requester_did)],
  ['Subject', (v) => link('did', v.subject_did)],
  ['Claims', (v) => v.claim_types.join(', ')],
  ['Fee', (v) => h('span', { class: 'num' }, tokens(v.fee))],
  ['Status', (v) => statusBadge(v.status)],
  ['Outcome', outcome],
  ['Answers', (v) => String(v.answers)],
  ['Block', (v) => link('block', v.request_height, { full: true })],
];

export async function verificationsPage(_params, query) {
  const page = Number(query.get('page') ?? 1);
  const status = query.get('status');
  const subject = query.get('subject');
  const requester = query.get('requester');
  const filters = [status && `status=${enc(status)}`, subject && `subject=${enc(subject)}`, requester && `requester=${enc(requester)}`].filter(Boolean);
  const list = await api(`/verifications?${[...filters, `page=${page}`, `limit=${LIMIT}`].join('&')}`);
  // the tabs keep the DID filters and change the status; the pager keeps every filter
  const dids = [subject && `subject=${enc(subject)}`, requester && `requester=${enc(requester)}`].filter(Boolean);
  const base = (extra) => `#/verifications${[...dids, ...extra].length ? `?${[...dids, ...extra].join('&')}` : ''}`;
  const scope = [subject ? ['subject ', link('did', subject)] : null, requester ? ['requester ', link('did', requester)] : null].filter(Boolean);
  return [
    title('Verification requests'),
    scope.length ? h('p', { class: 'note' }, 'Only requests with ', scope.flatMap((s, i) => (i ? [' and ', s] : [s])), '. ', h('a', { href: '#/verifications' }, 'All requests')) : null,
    h(
      'nav',
      { class: 'tabs', 'aria-label': 'status' },
      [null, ...STATUSES].map((s) => h('a', { href: base(s ? [`status=${s}`] : []), 'aria-current': s === status ? 'page' : false }, s ?? 'all')),
    ),
    table('Verification requests, newest first', verificationCols, list.data, { empty: 'No verification request matches.', id: 'verifications' }),
    pager(base(status ? [`status=${enc(status)}`] : []), page, LIMIT, list.total),
  ];
}

const claimCols = [
  ['Claim', (c) => c.type],
  ['Constraints', (c) => (Object.keys(c.constraints ?? {}).length ? h('span', { class: 'mono' }, JSON.stringify(c.constraints)) : 'none')],
  ['ZK proof accepted', (c) => yesNo(c.acceptZKProof)],
];

const resultCols = [
  ['Claim', (c) => c.type],
  ['Satisfied', (c) => yesNo(c.satisfied)],
  ['Reason', (c) => (c.reason ? h('span', { class: 'mono' }, c.reason) : '—')],
  ['Proof', (c) => (c.proofType === 'zk-snark' ? 'zero-knowledge (BBS)' : c.proofType)],
  ['Issuer', (c) => (c.issuer ? link('did', c.issuer) : '—')],
];

export async function verificationPage([id], _query, page) {
  const v = await api(`/verifications/${seg(id)}`);
  const live = v.live;
  const r = v.response;
  const statusField = h('span', { 'data-field': 'status' }, statusBadge(v.status));
  const outcomeField = h('span', { 'data-field': 'verified' }, outcome(v));
  const answersField = h('span', { 'data-field': 'answers' }, String(v.answers));
  // a pending request changes under the reader: the feed brings its answers and its outcome
  if (v.status === 'pending') {
    page.onLeave(
      listen(['verifications'], (msg) => {
        if (msg.type !== 'verification' || msg.data.request_id !== v.request_id) return;
        statusField.replaceChildren(statusBadge(msg.data.status));
        outcomeField.replaceChildren(outcome(msg.data));
        answersField.textContent = String(msg.data.answers);
      }),
    );
  }
  return [
    title('Verification request'),
    facts([
      ['Request id', h('span', { class: 'mono wrap', 'data-field': 'request_id' }, v.request_id)],
      ['Status', statusField],
      ['Outcome', outcomeField],
      ['Requester', link('did', v.requester_did, { full: true })],
      ['Purpose', v.purpose],
      ['Subject', link('did', v.subject_did, { full: true })],
      ['Fee', h('span', { 'data-field': 'fee' }, tokens(v.fee))],
      ['Requested', [link('block', v.request_height, { full: true, text: `block ${v.request_height}` }), ' ', time(v.request_ms)]],
      ['Deadline', `block ${v.deadline_height}`],
      ['Final', v.final_height === null ? null : [link('block', v.final_height, { full: true, text: `block ${v.final_height}` }), ' ', time(v.final_ms), `, round ${v.consensus_round}`]],
      ['Answers', live ? [answersField, ` (${live.threshold} needed of a committee of ${live.committee_size})`] : answersField],
      ['Request transaction', link('tx', v.tx_hash)],
    ]),
    h('h2', {}, 'Required claims'),
    v.required_claims ? table('What the requester asks the subject to prove', claimCols, v.required_claims) : h('p', { class: 'empty' }, 'The node could not read the request just now.'),
    h('h2', {}, 'Response'),
    r && r.status === 'final'
      ? [
          facts([
            ['Verified', yesNo(r.verified, 'verified', 'not verified')],
            ['Agreement', `${r.consensusProof.agreedValidators} of ${r.consensusProof.totalValidators} (threshold ${r.consensusProof.threshold})`],
            ['Presentation hash', h('span', { class: 'mono wrap' }, r.presentationHash)],
          ]),
          table('Claim outcomes the committee signed', resultCols, r.claims),
          h('details', {}, h('summary', {}, 'Validator signatures'), json(r.validatorSignatures)),
        ]
      : h('p', { class: 'empty' }, v.status === 'expired' ? 'No response: the deadline passed without enough agreeing answers, and the fee went back to the requester.' : 'No response yet: the committee answers once the subject presents.'),
    h('p', { class: 'note' }, "The subject's presentation never reaches the chain: only the claim outcomes, its hash and the committee's signatures do."),
  ];
}
