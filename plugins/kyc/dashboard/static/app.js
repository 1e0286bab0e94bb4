// The dashboard: a hash router (#/sessions) over the pages, a sign-in gate, the navigation by
// what this node's API has and the member's role may use (api.js probe), and the sandbox/live
// switch. The server answers only /dashboard, so any path after `#` is the app's.
import { ApiError, get, probe, role, state } from './api.js';
import { acceptPage, forgotPage, registerPage, signInPage } from './auth-pages.js';
import { credentialsPage } from './credential-pages.js';
import { apiKeysPage, securityPage } from './developer-pages.js';
import { h } from './dom.js';
import { reviewListPage, reviewPage } from './review-page.js';
import { sessionPage, sessionsPage } from './session-pages.js';
import { organizationPage, teamPage } from './team-pages.js';
import { webhookPage, webhooksPage } from './webhook-pages.js';

/** [path, page, name, the capability it needs (api.js PROBES) or 'public'] */
const routes = [
  [/^\/signin$/, signInPage, 'Sign in', 'public'],
  [/^\/register$/, registerPage, 'Register', 'public'],
  [/^\/forgot$/, forgotPage, 'Forgot password', 'public'],
  [/^\/accept$/, acceptPage, 'Accept invitation', 'public'],
  [/^\/sessions$/, sessionsPage, 'Sessions', 'sessions'],
  [/^\/session\/([^/]+)$/, sessionPage, 'Session', 'sessions'],
  [/^\/review$/, reviewListPage, 'Review', 'review'],
  [/^\/review\/([^/]+)$/, reviewPage, 'Review session', 'review'],
  [/^\/credentials$/, credentialsPage, 'Credentials', 'credentials'],
  [/^\/api-keys$/, apiKeysPage, 'API keys', 'apiKeys'],
  [/^\/webhooks$/, webhooksPage, 'Webhooks', 'webhooks'],
  [/^\/webhook\/([^/]+)$/, webhookPage, 'Webhook', 'webhooks'],
  [/^\/team$/, teamPage, 'Team', 'team'],
  [/^\/organization$/, organizationPage, 'Organization', 'organization'],
  [/^\/security$/, securityPage, 'Security', 'signed-in'],
];

/** the navigation, in order; each shown only when its capability is there */
const NAV = [
  ['#/sessions', 'Sessions', 'sessions'],
  ['#/review', 'Review', 'review'],
  ['#/credentials', 'Credentials', 'credentials'],
  ['#/api-keys', 'API keys', 'apiKeys'],
  ['#/webhooks', 'Webhooks', 'webhooks'],
  ['#/team', 'Team', 'team'],
  ['#/organization', 'Organization', 'organization'],
  ['#/security', 'Security', 'signed-in'],
];

const main = document.getElementById('main');
const announce = document.getElementById('announce');
const nav = document.getElementById('nav');
const account = document.getElementById('account');
const banner = document.getElementById('sandbox-banner');
let current = 0;
let leaving = [];
let rendered = false;
let shownBefore = false;

function parse() {
  const raw = location.hash.replace(/^#/, '') || '/';
  const at = raw.indexOf('?');
  const path = at < 0 ? raw : raw.slice(0, at);
  return { path, query: new URLSearchParams(at < 0 ? '' : raw.slice(at + 1)) };
}

const allowed = (need) => need === 'public' || need === 'signed-in' || state.can[need];

function home() {
  const first = NAV.find(([, , need]) => allowed(need));
  return first ? first[0] : '#/security';
}

/** signs in with `token`, then goes to `next` (the page asked for before signing in) or the first page */
async function signIn(token, next) {
  performance.mark('dashboard:sign-in');
  state.token = token;
  const me = await get('/auth/me');
  state.me = me;
  await probe();
  shell();
  go(next && next.startsWith('/') && !next.startsWith('/signin') ? `#${next}` : home());
}

/** `why`: a key of auth-pages.js SIGN_IN_NOTES (the address carries a key, never free text) */
function signOut(why) {
  state.token = null;
  state.me = null;
  state.can = {};
  shell();
  go(`#/signin${why ? `?m=${why}` : ''}`);
}

function go(hash) {
  if (location.hash === hash) render();
  else location.hash = hash;
}

/** the header: navigation, who is signed in, the sandbox switch */
function shell() {
  const signedIn = Boolean(state.token);
  nav.hidden = !signedIn;
  account.hidden = !signedIn;
  // the review desk holds live sessions only, whatever the switch says
  banner.hidden = !signedIn || state.mode !== 'sandbox' || parse().path.startsWith('/review');
  document.body.classList.toggle('sandbox', signedIn && state.mode === 'sandbox');
  if (!signedIn) {
    nav.replaceChildren();
    account.replaceChildren();
    return;
  }
  nav.replaceChildren(h('ul', {}, NAV.filter(([, , need]) => allowed(need)).map(([href, label]) => h('li', {}, h('a', { href }, label)))));
  const sw = h('input', { type: 'checkbox', id: 'mode-switch', role: 'switch', checked: state.mode === 'sandbox' });
  sw.addEventListener('change', () => {
    state.mode = sw.checked ? 'sandbox' : 'live';
    shell();
    render();
  });
  const { user, organization } = state.me;
  account.replaceChildren(
    h('p', { class: 'who' }, h('span', { class: 'org' }, organization?.name ?? ''), ' ', h('span', { class: 'user' }, `${user.email} · ${role()}`)),
    h('div', { class: 'mode' }, sw, h('label', { for: 'mode-switch' }, 'Sandbox data')),
    h('button', { type: 'button', class: 'secondary', onclick: () => signOut('signed-out') }, 'Sign out'),
  );
  markNav(parse().path);
}

function markNav(path) {
  for (const a of nav.querySelectorAll('a')) {
    const target = a.getAttribute('href').slice(1);
    const here = path === target || (target !== '/' && path.startsWith(target.replace(/s$/, '')));
    if (here) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
}

async function render() {
  const navId = ++current;
  for (const stop of leaving) stop();
  leaving = [];
  const { path, query } = parse();
  if (!state.token && !['/signin', '/register', '/forgot', '/accept'].includes(path)) {
    return go(path === '/' ? '#/signin' : `#/signin?next=${encodeURIComponent(location.hash.slice(1))}`);
  }
  if (state.token && (path === '/' || path === '/signin')) return go(home());
  const ctx = { query, signIn, signOut, go, onLeave: (fn) => leaving.push(fn), refresh: render };
  let content;
  let name = 'Not found';
  const match = routes.map(([re, fn, label, need]) => [re.exec(path), fn, label, need]).find(([m]) => m);
  main.setAttribute('aria-busy', 'true');
  try {
    if (!match) content = notFound(`This page does not exist: ${path}`);
    else if (!allowed(match[3])) content = notFound('This page is not available to your role on this service.');
    else {
      const [m, fn, label] = match;
      name = label;
      content = await fn(m.slice(1).map(decodeURIComponent), ctx);
    }
  } catch (err) {
    if (err instanceof ApiError && err.status === 401 && state.token) return signOut('expired');
    name = 'Error';
    if (err instanceof ApiError && err.status === 404) content = notFound(err.message);
    else content = [h('h1', { tabindex: '-1' }, 'Something went wrong'), h('p', { class: 'detail' }, err instanceof Error ? err.message : String(err))];
  }
  if (navId !== current) return;
  main.replaceChildren(...[content].flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
  main.removeAttribute('aria-busy');
  main.dataset.page = name.toLowerCase();
  const heading = main.querySelector('h1');
  document.title = `${heading?.textContent || name} · KYC dashboard`;
  markNav(path);
  banner.hidden = !state.token || state.mode !== 'sandbox' || path.startsWith('/review');
  // the first page after signing in, measured from the token's arrival (`dashboard:sign-in`) by the bench
  if (!rendered && state.token) {
    rendered = true;
    performance.mark('dashboard:first-render', { detail: main.dataset.page });
  }
  if (shownBefore) {
    // keyboard and screen-reader users start at the new content
    heading?.focus();
    announce.textContent = `${document.title} loaded`;
  }
  shownBefore = true;
}

function notFound(text) {
  return [h('h1', { tabindex: '-1' }, 'Not found'), h('p', {}, text), h('p', {}, h('a', { href: '#/' }, 'Back to the dashboard'))];
}

document.getElementById('skip').addEventListener('click', (e) => {
  e.preventDefault();
  main.focus();
});

async function start() {
  state.config = await fetch('/dashboard/config.json').then((r) => r.json()).catch(() => state.config);
  // a provider login lands here with #token=<JWT>; the token leaves the address bar at once
  const landed = /^#token=([\w-]+\.[\w-]+\.[\w-]+)/.exec(location.hash);
  if (landed) {
    history.replaceState(null, '', `${location.pathname}#/`);
    try {
      await signIn(landed[1]);
    } catch {
      state.token = null;
      location.hash = '#/signin?m=failed';
    }
  }
  window.addEventListener('hashchange', render);
  await render();
}
start();
