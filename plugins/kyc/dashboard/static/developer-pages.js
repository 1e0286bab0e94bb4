// API keys (of the mode the switch shows) and the account's security (TOTP).
import { api, enc, get, state } from './api.js';
import { badge, confirmDialog, copyButton, field, h, mono, onSubmit, say, select, status, table, time, title } from './dom.js';

export async function apiKeysPage(_, ctx) {
  const { keys } = await get('/api-keys');
  const shown = keys.filter((k) => k.mode === state.mode);
  const out = status();
  const reveal = h('div', { class: 'reveal', hidden: true });
  const form = h(
    'form',
    { class: 'card inline', 'aria-labelledby': 'newkey-h' },
    h('h2', { id: 'newkey-h' }, 'Create a key'),
    field('Name', h('input', { name: 'name', required: true, maxlength: '100', placeholder: 'Backend' })),
    field('Mode', select('mode', [['sandbox', 'Sandbox'], ['live', 'Live']], state.mode)),
    h('button', { type: 'submit' }, 'Create key'),
    out,
  );
  onSubmit(form, out, async (data) => {
    const key = await api('POST', '/api-keys', { name: data.get('name'), mode: data.get('mode') });
    const text = h('code', { class: 'mono wrap', id: 'new-key' }, key.key);
    reveal.replaceChildren(
      h('h2', {}, 'Your new key'),
      h('p', {}, 'Copy it now: it is shown only this once. The service keeps only its hash.'),
      h('p', {}, text, ' ', copyButton(key.key)),
      h('button', { type: 'button', class: 'secondary', onclick: () => ctx.refresh() }, 'Done, I have copied it'),
    );
    reveal.hidden = false;
    form.reset();
    return `Created ${key.name} (${key.mode}).`;
  });
  const revoke = async (k) => {
    const ok = await confirmDialog({ heading: `Revoke ${k.name}?`, text: 'Requests with this key stop working at once. This cannot be undone.', confirm: 'Revoke key', danger: true });
    if (!ok) return;
    await api('DELETE', `/api-keys/${enc(k.id)}`);
    ctx.refresh();
  };
  return [
    title('API keys'),
    h('p', {}, `Keys authenticate your backend (header x-api-key). Showing ${state.mode} keys; the switch at the top shows the others.`),
    reveal,
    table(`${state.mode === 'live' ? 'Live' : 'Sandbox'} API keys`, [
      ['Name', (k) => k.name],
      ['Key', (k) => mono(`${k.prefix}…`)],
      ['Mode', (k) => badge(k.mode, k.mode === 'live' ? 'ok' : 'wait')],
      ['Last used', (k) => time(k.lastUsedAt)],
      ['Created', (k) => time(k.createdAt)],
      ['', (k) => h('button', { type: 'button', class: 'danger small', 'aria-label': `Revoke ${k.name}`, onclick: () => revoke(k) }, 'Revoke')],
    ], shown, { empty: `No ${state.mode} keys yet.` }),
    form,
  ];
}

export async function securityPage() {
  const { user } = state.me;
  const out = status();
  const setup = h('div', { class: 'card' });
  const start = h('button', { type: 'button' }, 'Turn on two-step sign-in');
  start.addEventListener('click', async () => {
    start.disabled = true;
    try {
      const { secret, qrCode } = await api('POST', '/auth/totp/setup');
      const form = h(
        'form',
        {},
        h('p', {}, 'Scan this code with an authenticator app, or type the key into it, then enter the 6-digit code it shows.'),
        h('img', { src: qrCode, alt: 'QR code of the authenticator key', width: '200', height: '200', class: 'qr' }),
        h('p', {}, 'Key: ', h('code', { class: 'mono wrap', id: 'totp-secret' }, secret)),
        field('Code', h('input', { name: 'totpCode', required: true, inputmode: 'numeric', autocomplete: 'one-time-code', pattern: '[0-9]{6}', maxlength: '6' })),
        h('button', { type: 'submit' }, 'Turn on'),
        out,
      );
      onSubmit(form, out, async (data) => {
        await api('POST', '/auth/totp/enable', { secret, totpCode: data.get('totpCode') });
        form.querySelector('button').disabled = true;
        return 'Two-step sign-in is on. Sign-in now asks for a code.';
      });
      setup.replaceChildren(form);
      form.querySelector('input').focus();
    } catch (err) {
      start.disabled = false;
      say(out, err.message, 'error');
      setup.append(out);
    }
  });
  const on = Boolean(user.totpEnabled ?? state.me.organization?.totpEnabled);
  setup.append(on ? h('p', {}, 'Two-step sign-in is on.') : start);
  return [
    title('Security'),
    h('h2', {}, 'Your account'),
    h('dl', { class: 'facts' }, h('dt', {}, 'Name'), h('dd', {}, user.name ?? '—'), h('dt', {}, 'Email'), h('dd', {}, user.email)),
    h('h2', {}, 'Two-step sign-in (TOTP)'),
    setup,
  ];
}
