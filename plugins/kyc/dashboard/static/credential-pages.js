// Credentials the service issued for the organization (of the mode the switch shows), with their
// on-chain status and a revoke action for owners and admins.
import { api, enc, get, query, role, state } from './api.js';
import { confirmDialog, field, h, mono, say, status, table, time, title } from './dom.js';
import { credentialStatus, explorerLink } from './session-pages.js';

const ADMINS = ['owner', 'admin'];

export async function credentialsPage(_, ctx) {
  const { credentials, total } = await get(`/credentials${query({ mode: state.mode, limit: 100 })}`);
  const out = status();
  const revoke = async (c) => {
    const data = await confirmDialog({
      heading: 'Revoke this credential?',
      text: 'The revocation is written on chain: every verifier sees it at once. It cannot be undone.',
      confirm: 'Revoke credential',
      danger: true,
      fields: [field('Reason', h('input', { name: 'reason', required: true, maxlength: '500' }), 'Kept with the revocation, e.g. "fraud reported".')],
    });
    if (!data) return;
    say(out, 'Revoking on chain…');
    try {
      await api('POST', `/verifications/${enc(c.sessionId)}/revoke`, { reason: data.get('reason') });
      ctx.refresh();
    } catch (err) {
      say(out, err.message, 'error');
    }
  };
  const mayRevoke = ADMINS.includes(role());
  const sessionLink = (c) => (state.can.sessions ? h('a', { href: `#/session/${enc(c.sessionId)}`, class: 'mono' }, c.sessionId) : mono(c.sessionId));
  return [
    title('Credentials'),
    out,
    table(`${state.mode === 'live' ? 'Live' : 'Sandbox'} credentials, newest first (${total})`, [
      ['Credential', (c) => mono(c.credentialId)],
      ['Subject', (c) => mono(c.subjectDid)],
      ['Session', sessionLink],
      ['Level', (c) => c.level],
      ['On chain', credentialStatus],
      ['Issued', (c) => time(c.issuedAt)],
      ['Revoked', (c) => (c.revoked ? [time(c.revokedAt), c.revocationReason ? ` — ${c.revocationReason}` : ''] : '—')],
      ['Explorer', (c) => explorerLink(c.credentialId) ?? '—'],
      ['', (c) => (mayRevoke && !c.revoked ? h('button', { type: 'button', class: 'danger small', 'aria-label': `Revoke ${c.credentialId}`, onclick: () => revoke(c) }, 'Revoke') : '')],
    ], credentials, { empty: `No ${state.mode} credentials yet.` }),
  ];
}
