// Signing in and out of an account: password (then TOTP when the account has it), the configured
// OpenID Connect providers, registration, a forgotten password, an invitation to a team.
import { api, state } from './api.js';
import { field, h, onSubmit, status, title } from './dom.js';

/** what the sign-in page says after signing out, by the key in its address */
const SIGN_IN_NOTES = {
  'signed-out': 'You have signed out.',
  expired: 'Your sign-in has ended. Sign in again.',
  failed: 'The sign-in did not work. Try again.',
};

const input = (name, type, attrs = {}) => h('input', { name, type, required: true, ...attrs });

function providerButtons() {
  const names = state.config.providers ?? [];
  if (names.length === 0) return null;
  // the provider login lands back here with #token=<JWT> (app.js takes it)
  const back = `${location.origin}${location.pathname}`;
  return h(
    'section',
    { 'aria-labelledby': 'providers-h' },
    h('h2', { id: 'providers-h' }, 'Or sign in with'),
    h('ul', { class: 'providers' }, names.map((name) => h('li', {}, h('a', { class: 'button secondary', href: `/v1/auth/${encodeURIComponent(name)}?redirectUrl=${encodeURIComponent(back)}` }, `Sign in with ${name}`)))),
  );
}

export function signInPage(_, ctx) {
  const out = status();
  const message = SIGN_IN_NOTES[ctx.query.get('m')];
  const totp = field('Authentication code', input('totpCode', 'text', { inputmode: 'numeric', autocomplete: 'one-time-code', pattern: '[0-9]{6}', maxlength: '6', required: false }), 'The 6-digit code from your authenticator app.');
  totp.hidden = true;
  const form = h(
    'form',
    { class: 'card narrow', 'aria-labelledby': 'signin-h' },
    h('h2', { id: 'signin-h', class: 'visually-hidden' }, 'With your email and password'),
    field('Email', input('email', 'email', { autocomplete: 'username' })),
    field('Password', input('password', 'password', { autocomplete: 'current-password' })),
    totp,
    h('button', { type: 'submit' }, 'Sign in'),
    out,
  );
  onSubmit(form, out, async (data) => {
    const body = { email: data.get('email'), password: data.get('password') };
    if (!totp.hidden) body.totpCode = data.get('totpCode');
    const answer = await api('POST', '/auth/login', body);
    if (answer.totpRequired) {
      totp.hidden = false;
      const code = totp.querySelector('input');
      code.required = true;
      code.focus();
      return 'Enter the code from your authenticator app.';
    }
    await ctx.signIn(answer.token, ctx.query.get('next'));
    return 'Signed in.';
  });
  return [
    title('Sign in'),
    message ? h('p', { class: 'status info', role: 'status' }, message) : null,
    form,
    providerButtons(),
    h('p', {}, h('a', { href: '#/register' }, 'Create an account'), ' · ', h('a', { href: '#/forgot' }, 'Forgot your password?')),
  ];
}

export function registerPage(_, ctx) {
  const out = status();
  const form = h(
    'form',
    { class: 'card narrow' },
    field('Your name', input('name', 'text', { autocomplete: 'name', maxlength: '100' })),
    field('Organization', input('organizationName', 'text', { autocomplete: 'organization', maxlength: '100', required: false }), 'Optional; you can change it later.'),
    field('Email', input('email', 'email', { autocomplete: 'email' })),
    field('Password', input('password', 'password', { autocomplete: 'new-password', minlength: '8' }), 'At least 8 characters.'),
    h('button', { type: 'submit' }, 'Create account'),
    out,
  );
  onSubmit(form, out, async (data) => {
    const body = { name: data.get('name'), email: data.get('email'), password: data.get('password') };
    if (data.get('organizationName')) body.organizationName = data.get('organizationName');
    const answer = await api('POST', '/auth/register', body);
    await ctx.signIn(answer.token);
    return 'Account created.';
  });
  return [title('Create an account'), form, providerButtons(), h('p', {}, 'Already have an account? ', h('a', { href: '#/signin' }, 'Sign in'))];
}

export function forgotPage() {
  const out = status();
  const form = h('form', { class: 'card narrow' }, field('Email', input('email', 'email', { autocomplete: 'email' })), h('button', { type: 'submit' }, 'Send a reset link'), out);
  onSubmit(form, out, async (data) => {
    const answer = await api('POST', '/auth/forgot-password', { email: data.get('email') });
    return answer.message ?? 'If an account has this email, a reset link is on its way.';
  });
  return [title('Forgot your password?'), h('p', {}, 'We mail you a link to set a new one. It works once, for one hour.'), form, h('p', {}, h('a', { href: '#/signin' }, 'Back to sign in'))];
}

export function acceptPage(_, ctx) {
  const token = ctx.query.get('token');
  if (!token) return [title('Accept an invitation'), h('p', {}, 'This link has no invitation in it. Open the link from your invitation mail again.')];
  const out = status();
  const form = h(
    'form',
    { class: 'card narrow' },
    field('Your name', input('name', 'text', { autocomplete: 'name', maxlength: '100' })),
    field('Password', input('password', 'password', { autocomplete: 'new-password', minlength: '8' }), 'At least 8 characters.'),
    h('button', { type: 'submit' }, 'Join the team'),
    out,
  );
  onSubmit(form, out, async (data) => {
    const answer = await api('POST', '/auth/accept-invitation', { token, name: data.get('name'), password: data.get('password') });
    await ctx.signIn(answer.token);
    return 'Welcome to the team.';
  });
  return [title('Accept an invitation'), h('p', {}, 'Choose your name and a password to join.'), form];
}

