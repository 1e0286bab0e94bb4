// The explorer's web app: a hash router (#/block/12) over the pages. Each URL is stable and can be
// shared; the server answers only `/`, so any path after `#` is the app's.
import { ApiError } from './api.js';
import { blockPage, blocksPage, txPage, txsPage, validatorsPage } from './chain-pages.js';
import { h } from './dom.js';
import { chartsPage, homePage, notFound, searchPage } from './home.js';
import { addressPage, credentialPage, didPage, issuerPage, issuersPage } from './identity-pages.js';
import { verificationPage, verificationsPage } from './verification-pages.js';

const routes = [
  [/^\/?$/, homePage, 'Home'],
  [/^\/blocks$/, blocksPage, 'Blocks'],
  [/^\/block\/(\d{1,16})$/, blockPage, 'Block'],
  [/^\/txs$/, txsPage, 'Transactions'],
  [/^\/tx\/([0-9a-f]{64})$/, txPage, 'Transaction'],
  [/^\/address\/([1-9A-HJ-NP-Za-km-z]{1,64})$/, addressPage, 'Address'],
  [/^\/did\/([^/]+)$/, didPage, 'DID'],
  [/^\/credential\/([^/]+)$/, credentialPage, 'Credential'],
  [/^\/issuers$/, issuersPage, 'Issuers'],
  [/^\/issuer\/([^/]+)$/, issuerPage, 'Issuer'],
  [/^\/validators$/, validatorsPage, 'Validators'],
  [/^\/verifications$/, verificationsPage, 'Verifications'],
  [/^\/verification\/([^/]+)$/, verificationPage, 'Verification'],
  [/^\/charts\/([^/]+)$/, chartsPage, 'Charts'],
  [/^\/search$/, searchPage, 'Search'],
];

const main = document.getElementById('main');
const announce = document.getElementById('announce');
let current = 0;
let leaving = [];

function parse() {
  const raw = location.hash.replace(/^#/, '') || '/';
  const at = raw.indexOf('?');
  const path = at < 0 ? raw : raw.slice(0, at);
  return { path, query: new URLSearchParams(at < 0 ? '' : raw.slice(at + 1)) };
}

async function render() {
  const nav = ++current;
  for (const stop of leaving) stop();
  leaving = [];
  const { path, query } = parse();
  const page = { onLeave: (fn) => leaving.push(fn) };
  let content;
  let name = 'Not found';
  const match = routes.map(([re, fn, label]) => [re.exec(path), fn, label]).find(([m]) => m);
  main.setAttribute('aria-busy', 'true');
  try {
    if (!match) content = notFound(`This page does not exist: ${path}`);
    else {
      const [m, fn, label] = match;
      name = label;
      content = await fn(m.slice(1).map(decodeURIComponent), query, page);
    }
  } catch (err) {
    name = 'Error';
    if (err instanceof ApiError && (err.status === 404 || err.status === 400)) content = notFound(err.message);
    else if (err instanceof URIError) content = notFound(`This address is malformed: ${location.hash.slice(0, 200)}`);
    else content = [h('h1', { tabindex: '-1' }, 'Something went wrong'), h('p', { class: 'detail' }, err instanceof Error ? err.message : String(err)), h('p', {}, 'The explorer API did not answer as expected. Try again in a moment.')];
  }
  if (nav !== current) return;
  main.replaceChildren(...[content].flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
  main.removeAttribute('aria-busy');
  main.dataset.page = main.querySelector('[data-not-found]') ? 'not found' : name.toLowerCase();
  const heading = main.querySelector('h1');
  document.title = `${heading?.textContent || name} · Ledger explorer`;
  for (const a of document.querySelectorAll('header nav a')) {
    const here = a.getAttribute('href') === `#${path}` || (path === '/' && a.getAttribute('href') === '#/');
    if (here) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  // the first render's time since navigation start, for the browser test and anyone measuring
  if (nav === 1) performance.mark('explorer:first-render');
  // focus the heading so that keyboard and screen-reader users start at the new content
  if (nav > 1) {
    heading?.focus();
    announce.textContent = `${document.title} loaded`;
  }
}

// the skip link moves focus; following its #main would be a route change
document.getElementById('skip').addEventListener('click', (e) => {
  e.preventDefault();
  main.focus();
});
window.addEventListener('hashchange', render);
render();
