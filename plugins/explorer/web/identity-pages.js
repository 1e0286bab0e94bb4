// Addresses, DIDs, credentials and issuers.
import { api, enc, seg } from './api.js';
import { LIMIT, txCols, validatorSection } from './chain-pages.js';
import { badge, facts, h, json, link, pager, table, time, title, tokens, yesNo } from './dom.js';

const credentialCols = [
  ['Credential', (c) => link('credential', c.credential_id)],
  ['Type', (c) => c.credential_type],
  ['Issuer', (c) => link('issuer', c.issuer_did)],
  ['Subject', (c) => link('did', c.subject_did)],
  ['Issued', (c) => time(c.issued_ms)],
  ['Status', (c) => (c.revoked ? badge('revoked', 'bad') : badge('active', 'ok'))],
];

export async function addressPage([address], query) {
  const page = Number(query.get('page') ?? 1);
  const [a, history] = await Promise.all([api(`/addresses/${address}`), api(`/addresses/${address}/txs?page=${page}&limit=${LIMIT}`)]);
  const validator = a.is_validator ? await validatorSection(address) : null;
  return [
    title('Address'),
    facts([
      ['Address', h('span', { class: 'mono wrap' }, a.address)],
      ['Balance', h('span', { 'data-field': 'balance' }, tokens(a.balance))],
      ['Nonce', h('span', { 'data-field': 'nonce' }, a.nonce)],
      ['DID', link('did', a.did, { full: true })],
      ['Validator', yesNo(a.is_validator)],
      ['Transactions', h('span', { 'data-field': 'tx_count' }, String(a.tx_count))],
      ['First seen', time(a.first_seen)],
      ['Last seen', time(a.last_seen)],
    ]),
    validator,
    h('h2', {}, 'History'),
    table(`Transactions of ${a.address}, newest first`, txCols, history.data, { empty: 'No transaction involves this address.', id: 'history' }),
    pager(`#/address/${address}`, page, LIMIT, history.total),
  ];
}

export async function didPage([did], query) {
  const page = Number(query.get('page') ?? 1);
  const [d, creds] = await Promise.all([api(`/dids/${seg(did)}`), api(`/dids/${seg(did)}/credentials?page=${page}&limit=${LIMIT}`)]);
  const doc = d.live_document;
  return [
    title('DID'),
    d.active ? null : h('p', { class: 'alert', role: 'status' }, h('strong', {}, 'Deactivated. '), 'This DID was deactivated for good: it has no key and can sign nothing.'),
    facts([
      ['DID', h('span', { class: 'mono wrap' }, d.did)],
      ['Status', h('span', { 'data-field': 'active' }, yesNo(d.active, 'active', 'deactivated'))],
      ['Controller', h('span', { class: 'mono wrap' }, d.controller)],
      ['Address', link('address', d.did.split(':')[3], { full: true })],
      ['Current key', d.public_key ? h('span', { class: 'mono wrap' }, d.public_key) : 'none'],
      ['Created', time(d.created_ms)],
      ['Updated', time(d.updated_ms)],
      ['Created by', link('tx', d.tx_hash)],
      ['Credentials', h('span', { 'data-field': 'credentials_count' }, String(d.credentials_count))],
      ['Verification requests', [h('a', { href: `#/verifications?subject=${enc(d.did)}` }, 'as subject'), ' · ', h('a', { href: `#/verifications?requester=${enc(d.did)}` }, 'as requester')]],
    ]),
    h('h2', {}, 'Live document'),
    doc ? json(doc) : h('p', { class: 'empty' }, 'The node could not resolve the document just now.'),
    h('h2', {}, 'Credentials'),
    table('Credentials where this DID is issuer or subject', credentialCols, creds.data, { empty: 'No credential names this DID.' }),
    pager(`#/did/${seg(did)}`, page, LIMIT, creds.total),
  ];
}

export async function credentialPage([id]) {
  const c = await api(`/credentials/${seg(id)}`);
  const v = c.verification;
  const rec = v?.credential ?? {};
  return [
    title('Credential'),
    c.revoked ? h('p', { class: 'alert', role: 'status' }, h('strong', {}, 'Revoked. '), 'Its issuer revoked this credential.') : null,
    facts([
      ['Id', h('span', { class: 'mono wrap' }, c.credential_id)],
      ['Type', c.credential_type],
      ['Issuer', link('issuer', c.issuer_did, { full: true })],
      ['Subject', link('did', c.subject_did, { full: true })],
      ['Issued', time(c.issued_ms)],
      ['Revocation', h('span', { 'data-field': 'revoked' }, c.revoked ? ['revoked ', time(c.revoked_ms)] : 'not revoked')],
      ['Hash', h('span', { class: 'mono wrap' }, c.hash)],
      ['Requested by', link('tx', c.tx_hash)],
    ]),
    h('h2', {}, 'Verification now'),
    v
      ? facts([
          ['Valid', h('span', { 'data-field': 'valid' }, yesNo(v.valid, 'valid', 'not valid'))],
          ['Revoked', yesNo(!v.revoked, 'no', 'yes')],
          ['Issuer DID active', yesNo(rec.issuer_active)],
          ['Status', rec.status ?? '—'],
          ['KYC level', rec.kyc_level === undefined ? null : String(rec.kyc_level)],
          ['Attestations', `${(rec.validator_signatures ?? []).length} of threshold ${rec.threshold ?? '—'}`],
          ['Consensus round', rec.consensus_round === null || rec.consensus_round === undefined ? null : String(rec.consensus_round)],
          ['Revocation list', rec.status_list === undefined ? null : `list ${rec.status_list}, index ${rec.status_index}`],
        ])
      : h('p', { class: 'empty' }, 'The node could not verify the credential just now.'),
  ];
}

const issuerCols = [
  ['Issuer', (s) => link('issuer', s.issuer_did)],
  ['Issued', (s) => String(s.credentials_issued)],
  ['Active', (s) => String(s.active_credentials)],
  ['Revoked', (s) => String(s.revoked_credentials)],
  ['First', (s) => time(s.first_issued)],
  ['Last', (s) => time(s.last_issued)],
];

export async function issuersPage(_params, query) {
  const page = Number(query.get('page') ?? 1);
  const list = await api(`/credentials/issuers?page=${page}&limit=${LIMIT}`);
  return [title('Credential issuers'), table('Issuers, newest first', issuerCols, list.data, { empty: 'No credential is registered yet.' }), pager('#/issuers', page, LIMIT, list.total)];
}

export async function issuerPage([did], query) {
  const page = Number(query.get('page') ?? 1);
  const [s, creds] = await Promise.all([api(`/credentials/issuers/${seg(did)}`), api(`/credentials?issuer=${enc(did)}&page=${page}&limit=${LIMIT}`)]);
  return [
    title('Issuer'),
    facts([
      ['DID', link('did', s.issuer_did, { full: true })],
      ['Credentials issued', h('span', { 'data-field': 'credentials_issued' }, String(s.credentials_issued))],
      ['Active', h('span', { 'data-field': 'active_credentials' }, String(s.active_credentials))],
      ['Revoked', h('span', { 'data-field': 'revoked_credentials' }, String(s.revoked_credentials))],
      ['First issued', time(s.first_issued)],
      ['Last issued', time(s.last_issued)],
    ]),
    h('h2', {}, 'Credentials'),
    table('Credentials of this issuer, newest first', credentialCols, creds.data),
    pager(`#/issuer/${seg(did)}`, page, LIMIT, creds.total),
  ];
}
