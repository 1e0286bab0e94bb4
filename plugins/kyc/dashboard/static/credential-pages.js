// Credentials the service issued for the organization (of the mode the switch shows), with their
// on-chain status and a revoke action.
import { api, enc, get, query, role, state } from './api.js';
import { badge, confirmDialog, field, h, mono, say, status, table, time, title } from './dom.js';
import { explorerLink } from './session-pages.js';

const ADMINS = ['owner', 'admin'];

export async function credentialsPage(_, ctx) {
  const body = await get(`/credentials${query({ mode: state.mode, limit: 100 })}`);
  const list = body.credentials ?? body.data ?? [];
  const out = status();
  const revoke = async (c) => {
    const data = await confirmDialog({
      heading: 'Revoke this credential?',
      text: 'The revocation is written on chain: every verifier sees it at once. It cannot be undone.',
      confirm: 'Revoke credential',
      danger: true,
      fields: [field('Reason', h('input', { name: 'reason', required: true, maxlength: '200', value: '' }), 'Kept with the revocation, e.g. "fraud reported".')],
    });
    if (!data) return;
    say(out, 'Revoking on chain…');
    try {
      await api('POST', `/credentials/${enc(c.id ?? c.credentialId)}/revoke`, { reason: data.get('reason') });
      ctx.refresh();
    } catch (err) {
      say(out, err.message, 'error');
    }
  };
  const mayRevoke = ADMINS.includes(role());
  return [
    title('Credentials'),
    out,
    table(`${state.mode === 'live' ? 'Live' : 'Sandbox'} credentials`, [
      ['Credential', (c) => mono(c.id ?? c.credentialId)],
      ['Subject', (c) => mono(c.subjectDid)],
      ['Session', (c) => (c.sessionId ? h('a', { href: `#/session/${enc(c.sessionId)}`, class: 'mono' }, c.sessionId) : '—')],
      ['Status', (c) => badge(c.status ?? (c.revoked ? 'revoked' : 'issued'))],
      ['Issued', (c) => time(c.issuedAt ?? c.createdAt)],
      ['Explorer', (c) => explorerLink(c.id ?? c.credentialId) ?? '—'],
      ['', (c) => (mayRevoke && (c.status ?? (c.revoked ? 'revoked' : 'issued')) !== 'revoked' ? h('button', { type: 'button', class: 'danger small', 'aria-label': `Revoke ${c.id ?? c.credentialId}`, onclick: () => revoke(c) }, 'Revoke') : '')],
    ], list, { empty: `No ${state.mode} credentials yet.` }),
  ];
}
