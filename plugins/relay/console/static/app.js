// The relay operator console: a hash router (#/mediations?state=requested) over the pages, behind a
// sign-in screen. Every fact shown comes from the operator REST (/v1) on this origin.
import { ApiError, signIn, signOut, signedIn, whenSignedOut } from './api.js';
import { completeOidc, oidcConfig, startOidc } from './auth.js';
import { field, form, h, say, outcome, title } from './dom.js';
import { apiKeysPage, deliveryLogPage, webhooksPage } from './access.js';
import { agentsPage, keylistPage, mediationsPage } from './mediations.js';
import { messagesPage, queuePage } from './messages.js';
import { notificationsPage, policiesPage, settingsPage } from './settings.js';

const routes = [
  [/^\/mediations$/, mediationsPage, 'Mediations'],
  [/^\/mediations\/([^/]+)\/keylist$/, keylistPage, 'Keylist'],
  [/^\/agents$/, agentsPage, 'Agents'],
  [/^\/messages$/, messagesPage, 'Messages'],
  [/^\/queue$/, queuePage, 'Queue'],
  [/^\/policies$/, policiesPage, 'Policies'],
  [/^\/api-keys$/, apiKeysPage, 'API keys'],
  [/^\/webhooks$/, webhooksPage, 'Webhooks'],
  [/^\/delivery-log$/, deliveryLogPage, 'Delivery log'],
  [/^\/notifications$/, notificationsPage, 'Notifications'],
  [/^\/settings$/, settingsPage, 'Settings'],
];

const main = document.getElementById('main');
const announce = document.getElementById('announce');
const nav = document.getElementById('sections');
const whoBox = document.getElementById('who');
let current = 0;
let shownBefore = false;
let firstDone = false;

function parse() {
  const raw = location.hash.replace(/^#/, '') || '/mediations';
  const at = raw.indexOf('?');
  return { path: at < 0 ? raw : raw.slice(0, at), query: new URLSearchParams(at < 0 ? '' : raw.slice(at + 1)) };
}

/** Puts `content` in <main> as page `name`; the first page after sign-in marks the console's first render. */
function show(content, name, { focus = true } = {}) {
  main.replaceChildren(...[content].flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
  main.dataset.page = name;
  main.removeAttribute('aria-busy');
  const heading = main.querySelector('h1');
  document.title = `${heading?.textContent || name} · Relay console`;
  if (!firstDone && name !== 'sign-in') {
    firstDone = true;
    // since navigation start (and since the `console:sign-in` mark when a key was typed), for the tests and the bench
    performance.mark('console:first-render', { detail: name });
  }
  if (shownBefore && focus) heading?.focus();
  shownBefore = true;
}

async function render(message) {
  const navId = ++current;
  const who = signedIn();
  if (!who) return signInScreen();
  const { path, query } = parse();
  const match = routes.map(([re, fn, label]) => [re.exec(path), fn, label]).find(([m]) => m);
  main.setAttribute('aria-busy', 'true');
  let content;
  let name = 'not found';
  const page = { refresh: (msg) => render(msg) };
  try {
    if (!match) content = [title('Not found'), h('p', {}, `The console has no page ${path}.`), h('p', {}, h('a', { href: '#/mediations' }, 'Go to the mediations'))];
    else {
      const [m, fn, label] = match;
      name = label.toLowerCase().replaceAll(' ', '-');
      content = await fn(m.slice(1).map(decodeURIComponent), query, page);
    }
  } catch (err) {
    if (!signedIn()) return;
    name = 'error';
    content = [title('Something went wrong'), h('p', { class: 'outcome bad' }, err instanceof Error ? err.message : String(err)), err instanceof ApiError ? h('p', {}, `The operator API answered HTTP ${err.status}.`) : null];
  }
  if (navId !== current) return;
  show(content, name);
  for (const a of nav.querySelectorAll('a')) {
    if (path === a.getAttribute('href').slice(1) || path.startsWith(`${a.getAttribute('href').slice(1)}/`)) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  announce.textContent = message ?? `${document.title} loaded`;
}

function chrome(who) {
  nav.hidden = !who;
  whoBox.hidden = !who;
  document.getElementById('who-text').textContent = who ? `Signed in: ${who.label} · tenant ${who.tenantId}` : '';
}

async function signInScreen(notice) {
  ++current;
  chrome(null);
  main.setAttribute('aria-busy', 'true');
  let config = null;
  let configError = null;
  try {
    config = await oidcConfig();
  } catch (err) {
    configError = err.message;
  }
  const line = outcome();
  const oidc = config
    ? h(
        'section',
        { 'aria-labelledby': 'oidc-title', class: 'panel' },
        h('h2', { id: 'oidc-title' }, 'With your OpenID provider'),
        h('p', {}, 'Sign in at ', h('span', { class: 'mono wrap' }, config.issuer), '; you come back here signed in.'),
        h('button', {
          type: 'button',
          id: 'oidc-sign-in',
          onclick: async (e) => {
            e.currentTarget.disabled = true;
            try {
              await startOidc(config, location.hash || '#/mediations');
            } catch (err) {
              e.currentTarget.disabled = false;
              say(line, err.message, false);
            }
          },
        }, 'Sign in with OpenID Connect'),
        line,
      )
    : h(
        'section',
        { 'aria-labelledby': 'oidc-title', class: 'panel' },
        h('h2', { id: 'oidc-title' }, 'OpenID sign-in is not configured'),
        configError
          ? h('p', { class: 'outcome bad' }, `The relay did not say whether it is: ${configError}`)
          : [
              h('p', {}, 'This relay accepts no operator sessions yet. To let operators sign in through your OpenID provider, register this console as a public client (authorization code with PKCE, redirect URI ', h('span', { class: 'mono wrap' }, `${location.origin}/console/`), ') and set, in the node’s config.json:'),
              h('pre', { class: 'mono wrap', tabindex: '0' }, '"plugins": { "relay": { "oidc": { "issuer": "https://login.example.org", "audience": "<the client id>" } } }'),
              h('p', {}, 'Until then, sign in with an API key below.'),
            ],
      );
  const keyForm = form({ 'aria-label': 'Sign in with an API key', id: 'key-sign-in' }, [field('API key', h('input', { name: 'key', type: 'password', required: true, autocomplete: 'off', spellcheck: 'false', pattern: 'slk_[A-Za-z0-9_-]{43}', placeholder: 'slk_…' }), 'An slk_ key of scope read, manage or full; what its scope cannot do is hidden.'), h('button', { type: 'submit' }, 'Sign in with the key')], async (data) => {
    performance.mark('console:sign-in');
    try {
      await signIn(String(data.get('key')).trim());
    } catch (err) {
      throw new Error(err instanceof ApiError && err.status === 401 ? 'This key is not accepted (unknown, revoked or mistyped).' : err.message);
    }
    await enter();
  });
  show(
    [
      title('Sign in to the relay console'),
      notice ? h('p', { class: 'outcome bad', role: 'alert' }, notice) : null,
      oidc,
      h('section', { 'aria-labelledby': 'key-title', class: 'panel' }, h('h2', { id: 'key-title' }, 'With an API key'), keyForm),
    ],
    'sign-in',
    { focus: Boolean(notice) },
  );
}

async function enter() {
  chrome(signedIn());
  await render();
}

whenSignedOut((reason) => void signInScreen(reason));
document.getElementById('sign-out').addEventListener('click', () => signOut());
document.getElementById('skip').addEventListener('click', (e) => {
  e.preventDefault();
  main.focus();
});
window.addEventListener('hashchange', () => {
  if (signedIn()) void render();
});

(async () => {
  let back = null;
  try {
    back = await completeOidc();
  } catch (err) {
    return signInScreen(err.message);
  }
  if (!back) return signInScreen();
  if (location.hash !== back) history.replaceState(null, '', `/console/${back}`);
  await enter();
})();
