// The review desk (owner, admin, reviewer): live sessions waiting for a person's decision, oldest
// first; one session's documents and liveness frames side by side. Approve and Reject stay
// disabled until every piece was opened (the API refuses the decision otherwise, too).
import { api, enc, get, query, state } from './api.js';
import { badge, confirmDialog, field, h, mono, say, select, status, table, time, title } from './dom.js';
import { decisionFacts, deletedImages, evidence, imageFigure } from './session-pages.js';

/** the reasons a reviewer picks from most often; "other" takes a code of the reviewer's own */
export const REJECT_REASONS = [
  ['document_rejected', 'The document cannot be accepted'],
  ['document_expired', 'The document has expired'],
  ['face_mismatch', 'The face does not match the document'],
  ['mrz_check_digit', 'The code lines (MRZ) do not check out'],
  ['image_quality', 'The images are too poor to judge'],
  ['suspected_fraud', 'Suspected fraud or tampering'],
  ['other', 'Other (write a code)'],
];

export async function reviewListPage() {
  const { sessions, total } = await get(`/review/sessions${query({ limit: 50 })}`);
  return [
    title('Review desk'),
    h('p', {}, 'Live sessions waiting for a decision, oldest first (sandbox sessions decide themselves). Open every document and liveness frame before you decide.'),
    table(`Waiting for review (${total})`, [
      ['Session', (s) => h('a', { href: `#/review/${enc(s.id)}`, class: 'mono' }, s.id)],
      ['Level', (s) => s.level],
      ['Documents', (s) => (s.documents ?? []).length],
      ['Waiting since', (s) => time(s.processingAt ?? s.createdAt)],
    ], sessions, { empty: 'Nothing is waiting. Well done.' }),
  ];
}

export async function reviewPage([id], ctx) {
  const base = `/review/sessions/${enc(id)}`;
  const [list, full] = await Promise.all([get(`${base}/evidence`), state.can.sessions ? get(`/verifications/${enc(id)}`) : null]);
  const session = full?.session ?? { id, status: list.status, liveness: list.liveness };
  const pieces = evidence(list, base);
  // what this reviewer opened before (the API keeps it) counts; the images are fetched again to be seen
  const opened = new Set(pieces.filter((p) => p.opened).map((p) => p.key));
  const out = status();
  const approve = h('button', { type: 'button', disabled: pieces.length > 0, 'aria-describedby': 'approve-hint' }, 'Approve');
  const hint = h('p', { class: 'hint', id: 'approve-hint' });
  const rejectButton = h('button', { type: 'submit', class: 'danger', 'aria-describedby': 'approve-hint' }, 'Reject');
  // the API takes no decision, approval or rejection, before the reviewer opened every piece
  const progress = () => {
    const left = pieces.length - opened.size;
    approve.disabled = left > 0;
    rejectButton.disabled = left > 0;
    hint.textContent = left > 0 ? `Open ${left} more piece${left === 1 ? '' : 's'} of evidence to decide.` : 'You have opened every piece of evidence.';
  };
  const figures = pieces.map((p) => imageFigure(p, (piece) => {
    opened.add(piece.key);
    progress();
  }));
  ctx.onLeave(() => figures.forEach((f) => f.revoke()));
  progress();
  const decided = session.status !== 'processing';

  approve.addEventListener('click', async () => {
    const ok = await confirmDialog({ heading: 'Approve this session?', text: 'The credential is then issued on chain and the organization is told by webhook.', confirm: 'Approve' });
    if (!ok) return;
    await decide(out, controls, () => api('POST', `/review/sessions/${enc(id)}/approve`));
  });

  const other = field('Reason code', h('input', { name: 'code', pattern: '[a-z][a-z0-9_]{0,63}', maxlength: '64' }), 'Lowercase letters, digits and _.');
  other.hidden = true;
  const reason = select('reason', REJECT_REASONS, 'document_rejected');
  reason.addEventListener('change', () => {
    other.hidden = reason.value !== 'other';
    other.querySelector('input').required = !other.hidden;
  });
  const reject = h('form', { class: 'card', 'aria-labelledby': 'reject-h' },
    h('h2', { id: 'reject-h' }, 'Reject'),
    field('Reason', reason),
    other,
    field('Message', h('textarea', { name: 'message', maxlength: '500', rows: '3' }), 'Optional; kept with the decision.'),
    rejectButton);
  reject.addEventListener('submit', async (e) => {
    e.preventDefault();
    const data = new FormData(reject);
    const code = data.get('reason') === 'other' ? data.get('code') : data.get('reason');
    const body = { reason: code };
    if (data.get('message')) body.message = data.get('message');
    await decide(out, controls, () => api('POST', `/review/sessions/${enc(id)}/reject`, body));
  });

  const controls = h('div', {}, decided ? h('p', {}, 'This session is no longer waiting for a decision.')
    : [h('div', { class: 'toolbar' }, approve, h('button', { type: 'button', class: 'secondary', onclick: () => figures.forEach((f) => f.open()) }, 'Open all')), hint, reject]);
  return [
    title('Review session'),
    h('p', {}, mono(session.id, { full: true }), ' ', badge(session.status), session.level ? ` level ${session.level}` : ''),
    decisionFacts(session.review),
    session.liveness ? h('p', {}, 'Liveness score: ', h('strong', {}, String(session.liveness.score ?? '—')), ' ', badge(session.liveness.status)) : null,
    deletedImages(list) ?? h('div', { class: 'gallery side-by-side' }, figures.map((f) => f.fig)),
    controls,
    out,
  ];
}

/** sends a decision; once recorded, the controls give way to who decided what and when */
async function decide(out, controls, call) {
  say(out, 'Sending the decision…');
  try {
    const { session } = await call();
    controls.replaceChildren(decisionFacts(session.review) ?? h('p', {}, `The session is ${session.status}.`), h('p', {}, h('a', { href: '#/review' }, 'Back to the review desk')));
    say(out, `Decision recorded: the session is ${session.status}.`, 'ok');
  } catch (err) {
    say(out, err.message, 'error');
  }
}
