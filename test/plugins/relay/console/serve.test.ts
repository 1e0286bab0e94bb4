import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { HttpServer } from '../../../../node/http/server.js';
import { consoleSecurityPolicy, defaultStaticDir, mountConsole } from '../../../../plugins/relay/console/serve.js';
import { assertNoInlineCode, assertPageHeaders, assertStrictPolicy, cspDirectives } from '../../common/page-checks.js';

// The console's HTTP surface: the page at /console and /console/ (never cached), the assets with
// their types and cache headers, the security headers, and 404 Problems for anything else.

const ERRORS = 'https://errors.test/relay';
const STATIC = fileURLToPath(new URL('../../../../plugins/relay/console/static/', import.meta.url));

async function start(t: Test, opts: { oidcIssuer?: string; staticDir?: string } = {}) {
  const http = new HttpServer({ host: '127.0.0.1', port: 0, maxBodyBytes: 1024 });
  mountConsole(http, { errorsBase: ERRORS, ...opts });
  const { port } = await http.listen();
  t.teardown(() => http.close());
  return `http://127.0.0.1:${port}`;
}


t.test('the policy: this origin only, no inline script or style; the provider joins connect-src only', async (t) => {
  assertStrictPolicy(t, consoleSecurityPolicy(), { 'connect-src': "'self'" });
  assertStrictPolicy(t, consoleSecurityPolicy('https://login.example.org/realms/ops'), { 'connect-src': "'self' https://login.example.org" });
  const withProvider = cspDirectives(consoleSecurityPolicy('https://login.example.org/realms/ops'));
  t.equal(withProvider.get('connect-src'), "'self' https://login.example.org", 'the issuer origin, for discovery and the token exchange');
  t.equal(withProvider.get('script-src'), "'self'", 'scripts stay this origin');
});

t.test('GET /console and /console/ serve the page, never cached, with versioned asset links', async (t) => {
  const url = await start(t, { oidcIssuer: 'http://127.0.0.1:9999' });
  for (const path of ['/console', '/console/', '/console/?code=abc&state=xyz']) {
    const res = await fetch(url + path);
    t.equal(res.status, 200, path);
    t.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
    t.equal(res.headers.get('cache-control'), 'no-store');
    assertPageHeaders(t, res, consoleSecurityPolicy('http://127.0.0.1:9999'));
    const html = await res.text();
    t.match(html, /<script type="module" src="\/console\/assets\/app\.js\?v=[A-Za-z0-9_-]{16}"><\/script>/);
    t.match(html, /<link rel="stylesheet" href="\/console\/assets\/app\.css\?v=[A-Za-z0-9_-]{16}">/);
    assertNoInlineCode(t, html);
    t.match(html, /<main id="main"/, 'a main landmark');
  }
});

t.test('the assets: every file of static/, with its type, immutable under the version, revalidated otherwise', async (t) => {
  const url = await start(t);
  const html = await (await fetch(`${url}/console/`)).text();
  const version = /app\.js\?v=([A-Za-z0-9_-]{16})/.exec(html)![1]!;
  const files = (await readdir(STATIC)).filter((f) => f !== 'index.html');
  t.ok(files.length >= 9, `the console's files: ${files.join(', ')}`);
  for (const name of files) {
    const res = await fetch(`${url}/console/assets/${name}?v=${version}`);
    t.equal(res.status, 200, name);
    t.equal(res.headers.get('content-type'), name.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8', `${name} type`);
    t.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    t.equal(res.headers.get('x-content-type-options'), 'nosniff');
    t.ok(res.headers.get('content-security-policy'), 'the policy on assets too');
    const body = await res.text();
    t.equal(body.replace(/\?v=[A-Za-z0-9_-]{16}/g, ''), await readFile(join(STATIC, name), 'utf8'), `${name} as in static/, links versioned`);
    if (name.endsWith('.js')) t.notMatch(body, /innerHTML|outerHTML|insertAdjacentHTML|document\.write|localStorage|eval\(/, `${name}: no HTML sinks, no persistent storage`);
  }
  const plain = await fetch(`${url}/console/assets/app.css`);
  t.equal(plain.headers.get('cache-control'), 'no-cache', 'without the version: revalidated');
  const etag = plain.headers.get('etag')!;
  const again = await fetch(`${url}/console/assets/app.css`, { headers: { 'if-none-match': etag } });
  t.equal(again.status, 304, 'a 304 when unchanged');
});

t.test('what the console does not have is a 404 Problem', async (t) => {
  const url = await start(t);
  for (const path of ['/console/assets/missing.js', '/console/assets/index.html', '/console/mediations', '/console/assets/../serve.ts']) {
    const res = await fetch(url + path);
    t.ok(res.status === 404 || res.status === 400, `${path}: ${res.status}`);
    if (res.status === 404) {
      t.match(res.headers.get('content-type'), /application\/problem\+json/);
      t.match(await res.json(), { type: `${ERRORS}/not-found`, status: 404 });
    } else await res.body?.cancel();
  }
  t.equal((await fetch(`${url}/console/`, { method: 'POST' })).status, 405, 'the page is GET only');
});

t.test('a static folder without a file the page links fails the mount with a stable code', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-console-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  for (const name of await readdir(STATIC)) if (name !== 'chart.js') await writeFile(join(dir, name), await readFile(join(STATIC, name)));
  t.throws(() => mountConsole(new HttpServer({ host: '127.0.0.1', port: 0, maxBodyBytes: 1024 }), { errorsBase: ERRORS, staticDir: dir }), { code: 'RELAY_CONSOLE_ASSETS' });
  t.equal(defaultStaticDir().replace(/\/$/, ''), STATIC.replace(/\/$/, ''), 'from the source tree, static/ beside the module');
});
