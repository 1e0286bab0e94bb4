// Verification sessions of the mode the switch shows: the list with its filters, and one
// session's documents, liveness, checks, timeline, webhook events and credential.
import { ApiError, enc, get, imageUrl, query, state } from './api.js';
import { badge, facts, field, h, json, mono, pager, select, table, time, title } from './dom.js';

export const STATUSES = ['pending', 'processing', 'completed', 'failed', 'expired'];

/** who did something, from a timeline or decision actor */
export function actorText(a) {
  if (!a) return '—';
  if (a.kind === 'user') return a.email ?? a.userId ?? 'a member';
  return { operator: 'the operator', provider: 'the verification provider', sandbox: 'the sandbox', 'api-key': 'an API key', subject: 'the person verifying', system: 'the service' }[a.kind] ?? a.kind;
}

export async function sessionsPage(_, ctx) {
  const q = ctx.query;
  const page = Number(q.get('page') ?? 1) || 1;
  const limit = 20;
  const filter = { status: q.get('status') ?? '', from: q.get('from') ?? '', to: q.get('to') ?? '' };
  const { sessions, total } = await get(`/verifications${query({ mode: state.mode, status: filter.status, from: filter.from, to: filter.to, limit, offset: (page - 1) * limit })}`);
  const form = h(
    'form',
    { class: 'filters', role: 'search', 'aria-label': 'Filter sessions' },
    field('Status', select('status', [['', 'Any'], ...STATUSES.map((s) => [s, s])], filter.status)),
    field('From', h('input', { type: 'date', name: 'from', value: filter.from })),
    field('To', h('input', { type: 'date', name: 'to', value: filter.to })),
    h('button', { type: 'submit' }, 'Filter'),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const data = new FormData(form);
    ctx.go(`#/sessions${query({ status: data.get('status'), from: data.get('from'), to: data.get('to') })}`);
  });
  return [
    title('Sessions'),
    form,
    table(`${state.mode === 'live' ? 'Live' : 'Sandbox'} sessions, newest first (${total})`, [
      ['Session', (s) => h('a', { href: `#/session/${enc(s.id)}`, class: 'mono' }, s.id)],
      ['Status', (s) => badge(s.status)],
      ['Level', (s) => s.level],
      ['Subject', (s) => mono(s.subjectDid)],
      ['Created', (s) => time(s.createdAt)],
    ], sessions, { empty: 'No sessions match.' }),
    pager('session pages', page, limit, total, (p) => `#/sessions${query({ ...filter, page: p })}`),
  ];
}

/** an optional part of a session: null when this node's API has no such route */
async function optional(path) {
  try {
    return await get(path);
  } catch (err) {
    if (err instanceof ApiError && (err.status === 404 || err.status === 405)) return null;
    throw err;
  }
}

/**
 * A session's evidence (GET <base>/evidence) as pieces {key, label, path, opened}: each document
 * image, then each liveness frame; `base` is the session's path on the desk or the list.
 */
export function evidence(list, base) {
  // after the retention the bytes are gone: nothing to open (deletedImages says when)
  if (list.evidenceDeletedAt) return [];
  const docs = (list.documents ?? []).map((d) => ({ key: d.evidenceId, label: `${d.type.replaceAll('_', ' ')}, ${d.side}`, path: `${base}/evidence/${enc(d.evidenceId)}`, opened: d.opened === true }));
  const frames = (list.liveness?.frames ?? []).map((f) => ({ key: f.evidenceId, label: `Liveness frame ${f.index + 1}`, path: `${base}/evidence/${enc(f.evidenceId)}`, opened: f.opened === true }));
  return [...docs, ...frames];
}

/** in place of the images of a session whose images the retention deleted; null otherwise */
export function deletedImages(list) {
  return list?.evidenceDeletedAt ? h('p', { class: 'empty' }, 'Images deleted on ', time(list.evidenceDeletedAt), '.') : null;
}

/** a figure that loads its image (fetched with the token) when `open()` is called */
export function imageFigure(piece, onOpened) {
  const img = h('img', { alt: piece.label, hidden: true });
  const fig = h('figure', { class: 'evidence' });
  let url = null;
  const button = h('button', { type: 'button', class: 'secondary', 'data-piece': piece.key }, `Open ${piece.label}`);
  const open = async () => {
    if (url || button.disabled) return;
    button.disabled = true;
    button.textContent = 'Loading…';
    try {
      url = await imageUrl(piece.path);
      img.src = url;
      img.hidden = false;
      button.remove();
      fig.dataset.opened = 'true';
      onOpened?.(piece);
    } catch (err) {
      button.disabled = false;
      button.textContent = `Open ${piece.label}`;
      fig.append(h('p', { class: 'status error', role: 'alert' }, err.message));
    }
  };
  button.addEventListener('click', open);
  fig.append(img, button, h('figcaption', {}, piece.label));
  return { fig, open, revoke: () => url && URL.revokeObjectURL(url) };
}

/** a document: its status, the MRZ check (valid or which check digits failed), the fields read, the image checks */
function documentFacts(d) {
  const mrz = d.checks?.mrz;
  const { mrz: _mrz, ...imageChecks } = d.checks ?? {};
  return h('li', {}, h('strong', {}, `${d.type.replaceAll('_', ' ')} (${d.side})`), ' ', badge(d.status), d.reason ? ` ${d.reason}` : '',
    mrz ? h('p', { class: 'mrz' }, 'MRZ: ', badge(mrz.valid ? 'valid' : 'invalid', mrz.valid ? 'ok' : 'bad'), mrz.format ? ` ${mrz.format}` : '', mrz.failures?.length ? ` — failed: ${mrz.failures.join(', ')}` : '') : h('p', { class: 'mrz' }, 'MRZ: none read'),
    d.extractedData && Object.keys(d.extractedData).length ? h('details', {}, h('summary', {}, 'Data read from the document'), json(d.extractedData)) : null,
    Object.keys(imageChecks).length ? h('details', {}, h('summary', {}, 'Image checks'), json(imageChecks)) : null);
}

export function decisionFacts(review) {
  if (!review) return null;
  return h('p', { class: 'decision' }, badge(review.outcome === 'pass' ? 'approved' : 'rejected', review.outcome === 'pass' ? 'ok' : 'bad'),
    ` by ${actorText(review.decidedBy)} on `, time(review.decidedAt), review.reason ? ` — ${review.reason}` : '', review.message ? `: ${review.message}` : '');
}

/** a link to the credential on the block explorer, when the service knows where it is */
export function explorerLink(credentialId) {
  const base = state.config.explorerUrl;
  if (!base || !credentialId) return null;
  return h('a', { href: `${base}/#/credential/${encodeURIComponent(credentialId).replaceAll('%3A', ':')}`, rel: 'noopener noreferrer', target: '_blank' }, 'View on the explorer');
}

export async function sessionPage([id], ctx) {
  const { session } = await get(`/verifications/${enc(id)}`);
  const base = `/verifications/${enc(id)}`;
  const [list, history, credentials] = await Promise.all([
    optional(`${base}/evidence`),
    optional(`${base}/timeline`),
    session.credentialId && state.can.credentials ? get(`/credentials${query({ credentialId: session.credentialId })}`) : null,
  ]);
  const pieces = list ? evidence(list, base) : [];
  const figures = pieces.map((p) => imageFigure(p));
  ctx.onLeave(() => figures.forEach((f) => f.revoke()));
  const cred = credentials?.credentials.find((c) => c.credentialId === session.credentialId);
  return [
    title('Session'),
    h('p', {}, mono(session.id, { full: true }), ' ', badge(session.status), ' ', session.sandbox ? badge('sandbox', 'wait') : badge('live', 'ok')),
    decisionFacts(session.review),
    facts([
      ['Level', session.level],
      ['Subject DID', mono(session.subjectDid, { full: true })],
      ['Created', time(session.createdAt)],
      ['Expires', time(session.expiresAt)],
      ['Completed', time(session.completedAt)],
      session.reason ? ['Reason', `${session.reason}${session.message ? `: ${session.message}` : ''}`] : null,
      ['Metadata', Object.keys(session.metadata ?? {}).length ? json(session.metadata) : '—'],
    ]),
    h('h2', {}, 'Documents'),
    session.documents?.length ? h('ul', { class: 'plain' }, session.documents.map(documentFacts)) : h('p', { class: 'empty' }, 'No documents yet.'),
    h('h2', {}, 'Liveness'),
    session.liveness ? facts([['Status', badge(session.liveness.status)], ['Score', session.liveness.score ?? '—'], ['Completed', time(session.liveness.completedAt)]]) : h('p', { class: 'empty' }, 'No liveness check yet.'),
    deletedImages(list) ? [h('h2', {}, 'Images'), deletedImages(list)] : null,
    pieces.length ? [h('h2', {}, 'Images'), h('button', { type: 'button', class: 'secondary', onclick: () => figures.forEach((f) => f.open()) }, 'Open all images'), h('div', { class: 'gallery' }, figures.map((f) => f.fig))] : null,
    history ? [h('h2', {}, 'Timeline'), timelineList(history.timeline), h('h2', {}, 'Webhook events'), eventsTable(history.events)] : null,
    h('h2', {}, 'Credential'),
    session.credentialId
      ? facts([
          ['Credential', mono(session.credentialId, { full: true })],
          cred ? ['On chain', credentialStatus(cred)] : null,
          cred?.txHash ? ['Transaction', mono(cred.txHash)] : null,
          cred?.revoked ? ['Revoked', [time(cred.revokedAt), cred.revocationReason ? ` — ${cred.revocationReason}` : '']] : null,
          ['Explorer', explorerLink(session.credentialId) ?? '—'],
        ])
      : h('p', { class: 'empty' }, 'No credential issued for this session.'),
  ];
}

export function timelineList(entries) {
  if (!entries.length) return h('p', { class: 'empty' }, 'Nothing yet.');
  return h('ol', { class: 'timeline' }, entries.map((e) => h('li', {}, time(e.at), ' ', h('strong', {}, e.type.replaceAll('_', ' ')), ` by ${actorText(e.actor)}`,
    e.detail ? h('span', { class: 'detail' }, ` (${Object.entries(e.detail).filter(([, v]) => v !== null).map(([k, v]) => `${k}: ${v}`).join(', ')})`) : '')));
}

/** a credential's state on chain: registered (issued) or revoked */
export function credentialStatus(c) {
  return c.revoked ? badge('revoked') : c.txHash ? badge('issued') : badge('pending');
}

function eventsTable(events) {
  return table('Webhook events of this session', [
    ['Event', (e) => h('span', {}, e.type, h('br'), mono(e.id))],
    ['Deliveries', (e) => (e.deliveries.length ? e.deliveries.map((d) => h('span', { class: 'delivery' }, badge(d.status), d.statusCode ? ` HTTP ${d.statusCode}` : '', ` (attempt ${d.attemptNumber}) `)) : 'no endpoint')],
    ['Created', (e) => time(e.createdAt)],
  ], events, { empty: 'No events sent for this session.' });
}
