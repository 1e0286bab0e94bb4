// The team (members, invitations, roles) and the organization's settings with a preview of the
// branding the hosted page shows.
import { api, enc, get, role, state } from './api.js';
import { badge, confirmDialog, field, h, onSubmit, say, select, status, table, time, title } from './dom.js';

export const ROLES = [
  ['owner', 'Owner'],
  ['admin', 'Admin: everything but the owner'],
  ['reviewer', 'Reviewer: sessions and the review desk'],
  ['developer', 'Developer: API keys, webhooks and sessions'],
];
const ADMINS = ['owner', 'admin'];

export async function teamPage(_, ctx) {
  const team = await get('/team');
  const members = team.members ?? [];
  const invitations = team.invitations ?? [];
  const admin = ADMINS.includes(role());
  const out = status();
  const me = state.me.user.id;
  const roleSelect = (m) => {
    if (!admin || m.id === me) return badge(m.role, 'muted');
    const s = select('role', ROLES.map(([v]) => [v, v]), m.role);
    s.setAttribute('aria-label', `Role of ${m.email}`);
    s.addEventListener('change', async () => {
      try {
        await api('PATCH', `/team/members/${enc(m.id)}`, { role: s.value });
        say(out, `${m.email} is now ${s.value}.`, 'ok');
      } catch (err) {
        s.value = m.role;
        say(out, err.message, 'error');
      }
    });
    return s;
  };
  const remove = async (m) => {
    const ok = await confirmDialog({ heading: `Remove ${m.email}?`, text: 'They can no longer sign in to this organization.', confirm: 'Remove member', danger: true });
    if (!ok) return;
    try {
      await api('DELETE', `/team/members/${enc(m.id)}`);
      ctx.refresh();
    } catch (err) {
      say(out, err.message, 'error');
    }
  };
  const withdraw = async (i) => {
    try {
      await api('DELETE', `/team/invitations/${enc(i.id)}`);
      ctx.refresh();
    } catch (err) {
      say(out, err.message, 'error');
    }
  };
  const inviteOut = status();
  const invite = h('form', { class: 'card inline', 'aria-labelledby': 'invite-h' },
    h('h2', { id: 'invite-h' }, 'Invite someone'),
    field('Email', h('input', { name: 'email', type: 'email', required: true })),
    field('Role', select('role', ROLES.filter(([v]) => v !== 'owner'), 'reviewer')),
    h('button', { type: 'submit' }, 'Send invitation'),
    inviteOut);
  onSubmit(invite, inviteOut, async (data) => {
    await api('POST', '/team/invitations', { email: data.get('email'), role: data.get('role') });
    setTimeout(() => ctx.refresh(), 1200);
    return `Invitation sent to ${data.get('email')}.`;
  });
  return [
    title('Team'),
    out,
    table('Members', [
      ['Name', (m) => m.name ?? '—'],
      ['Email', (m) => m.email],
      ['Role', roleSelect],
      ['Joined', (m) => time(m.createdAt)],
      ['', (m) => (admin && m.id !== me && m.role !== 'owner' ? h('button', { type: 'button', class: 'danger small', 'aria-label': `Remove ${m.email}`, onclick: () => remove(m) }, 'Remove') : '')],
    ], members),
    invitations.length ? table('Invitations waiting', [
      ['Email', (i) => i.email],
      ['Role', (i) => i.role],
      ['Expires', (i) => time(i.expiresAt)],
      ['', (i) => (admin ? h('button', { type: 'button', class: 'secondary small', 'aria-label': `Withdraw the invitation of ${i.email}`, onclick: () => withdraw(i) }, 'Withdraw') : '')],
    ], invitations) : null,
    admin ? invite : null,
  ];
}

/** a PNG or JPEG file as a data: URI */
function readDataUrl(file) {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(r.result);
    r.onerror = () => reject(new Error('The file could not be read.'));
    r.readAsDataURL(file);
  });
}

export async function organizationPage() {
  const org = await get('/organization');
  const admin = ADMINS.includes(role());
  const out = status();
  let logo = org.branding?.logo ?? null;
  const previewLogo = h('img', { alt: 'Logo preview', class: 'logo', hidden: !logo, src: logo ?? undefined });
  const previewName = h('strong', {}, org.name);
  const previewButton = h('span', { class: 'preview-button' }, 'Start verification');
  const preview = h('div', { class: 'preview', role: 'img', 'aria-label': 'Preview of the verification page header' }, previewLogo, previewName, previewButton);
  const color = h('input', { name: 'color', type: 'color', value: org.branding?.color ?? '#1f5fbf' });
  const paint = () => {
    previewButton.style.setProperty('background-color', color.value);
    // the text on the button stays readable on light and dark brand colours
    const [r, g, b] = [1, 3, 5].map((i) => parseInt(color.value.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
    previewButton.style.setProperty('color', 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.179 ? '#000000' : '#ffffff');
  };
  color.addEventListener('input', paint);
  paint();
  const name = h('input', { name: 'name', required: true, maxlength: '100', value: org.name });
  name.addEventListener('input', () => (previewName.textContent = name.value));
  const file = h('input', { name: 'logo', type: 'file', accept: 'image/png,image/jpeg' });
  file.addEventListener('change', async () => {
    const f = file.files?.[0];
    if (!f) return;
    logo = await readDataUrl(f);
    previewLogo.src = logo;
    previewLogo.hidden = false;
  });
  const clear = h('button', { type: 'button', class: 'secondary' }, 'Remove logo');
  clear.addEventListener('click', () => {
    logo = null;
    file.value = '';
    previewLogo.hidden = true;
    previewLogo.removeAttribute('src');
  });
  const form = h('form', { class: 'card' },
    field('Organization name', name),
    field('Brand colour', color, 'Used for buttons on the verification page.'),
    field('Logo', file, 'PNG or JPEG, at most 64 KB.'),
    h('div', { class: 'toolbar' }, clear, h('button', { type: 'submit', disabled: !admin }, 'Save')),
    out);
  onSubmit(form, out, async () => {
    const saved = await api('PATCH', '/organization', { name: name.value, branding: { color: color.value, logo } });
    if (state.me?.organization) state.me.organization.name = saved.name;
    const shown = document.querySelector('#account .org');
    if (shown) shown.textContent = saved.name;
    return 'Saved.';
  });
  return [
    title('Organization'),
    admin ? null : h('p', {}, 'Only owners and admins can change these settings.'),
    h('h2', {}, 'Preview'),
    preview,
    h('h2', {}, 'Settings'),
    form,
    h('p', { class: 'hint' }, 'Organization ', h('span', { class: 'mono' }, org.id), ` · plan ${org.plan} · since `, time(org.createdAt)),
  ];
}
