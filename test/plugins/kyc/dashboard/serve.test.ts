import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { isLedgerError } from '../../../../node/errors.js';
import { HttpServer } from '../../../../node/http/server.js';
import { CONTENT_SECURITY_POLICY, defaultStaticDir, mountDashboard, type DashboardOptions } from '../../../../plugins/kyc/dashboard/serve.js';
import { assertNoInlineCode, assertPageHeaders, assertStrictPolicy } from '../../common/page-checks.js';

// The dashboard's HTTP surface: the page, config.json, every asset with its type and cache
// headers, the security headers, and 404s for what is not there.

async function start(t: Test, opts: Partial<DashboardOptions> = {}) {
  const http = new HttpServer({ host: '127.0.0.1', port: 0, maxBodyBytes: 1024 });
  mountDashboard(http, { errorsBase: 'https://errors.example/kyc', providers: ['zitadel', 'google'], explorerUrl: 'https://explorer.example', ...opts });
  const { port } = await http.listen();
  t.teardown(() => http.close());
  return `http://127.0.0.1:${port}`;
}

const securityHeaders = (t: Test, res: Response) => assertPageHeaders(t, res, CONTENT_SECURITY_POLICY);

t.test('the policy: self only, no inline script or style, images also as blob: and data:', async (t) => {
  assertStrictPolicy(t, CONTENT_SECURITY_POLICY, { 'img-src': "'self' blob: data:", 'connect-src': "'self'" });
});

t.test('GET /dashboard serves the page, never cached, with versioned asset links and no inline script', async (t) => {
  const url = await start(t);
  for (const path of ['/dashboard', '/dashboard/']) {
    const res = await fetch(url + path);
    t.equal(res.status, 200, path);
    t.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
    t.equal(res.headers.get('cache-control'), 'no-store');
    securityHeaders(t, res);
    const html = await res.text();
    t.match(html, /<script type="module" src="\/dashboard\/assets\/app\.js\?v=[A-Za-z0-9_-]{16}"><\/script>/);
    t.match(html, /<link rel="stylesheet" href="\/dashboard\/assets\/app\.css\?v=[A-Za-z0-9_-]{16}">/);
    assertNoInlineCode(t, html);
    t.match(html, /<main id="main"/, 'a main landmark');
  }
});

t.test('GET /dashboard/config.json names the providers and the explorer, never cached', async (t) => {
  const url = await start(t, { explorerUrl: 'https://explorer.example/' });
  const res = await fetch(`${url}/dashboard/config.json`);
  t.equal(res.status, 200);
  t.equal(res.headers.get('cache-control'), 'no-store');
  securityHeaders(t, res);
  t.same(await res.json(), { providers: ['google', 'zitadel'], explorerUrl: 'https://explorer.example' });
  const none = await start(t, { providers: [], explorerUrl: undefined });
  t.same(await (await fetch(`${none}/dashboard/config.json`)).json(), { providers: [], explorerUrl: null }, 'none configured: an empty list and null');
});

t.test('every asset: its type, immutable under the current version, revalidated by ETag otherwise', async (t) => {
  const url = await start(t);
  const html = await (await fetch(`${url}/dashboard`)).text();
  const version = /app\.js\?v=([A-Za-z0-9_-]{16})/.exec(html)![1];
  const app = await (await fetch(`${url}/dashboard/assets/app.js?v=${version}`)).text();
  const modules = [...app.matchAll(/from '\.\/([a-z-]+\.js)\?v=/g)].map((m) => m[1]!);
  t.ok(modules.length >= 8, 'app.js imports the page modules with versioned links');
  for (const name of ['app.css', 'app.js', ...modules]) {
    const res = await fetch(`${url}/dashboard/assets/${name}?v=${version}`);
    t.equal(res.status, 200, name);
    t.equal(res.headers.get('content-type'), name.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8', `${name}'s type`);
    t.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    securityHeaders(t, res);
  }
  const old = await fetch(`${url}/dashboard/assets/app.js`);
  t.equal(old.headers.get('cache-control'), 'no-cache', 'without the version: revalidated');
  const etag = old.headers.get('etag')!;
  const again = await fetch(`${url}/dashboard/assets/app.js`, { headers: { 'if-none-match': etag } });
  t.equal(again.status, 304, 'a 304 for the same ETag');
});

t.test('404s: an unknown asset as a Problem, an unknown page path', async (t) => {
  const url = await start(t);
  const res = await fetch(`${url}/dashboard/assets/nope.js`);
  t.equal(res.status, 404);
  t.match(res.headers.get('content-type'), /^application\/problem\+json/);
  t.match(await res.json(), { type: 'https://errors.example/kyc/not-found', status: 404, detail: /no asset \/dashboard\/assets\/nope\.js/ });
  for (const path of ['/dashboard/settings', '/dashboard/assets/', '/dashboard/assets/../serve.ts', '/dashboard/index.html']) {
    t.equal((await fetch(url + path)).status, 404, path);
  }
  t.not((await fetch(`${url}/dashboard`, { method: 'POST' })).status, 200, 'POST is not the page');
});

t.test('a missing file or an asset nothing links fails the mount with KYC_DASHBOARD_ASSETS', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'kyc-dashboard-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await cp(defaultStaticDir(), dir, { recursive: true });
  await writeFile(join(dir, 'team-pages.js'), '// linked by nothing now\n');
  await writeFile(join(dir, 'app.js'), (await import('node:fs')).readFileSync(join(defaultStaticDir(), 'app.js'), 'utf8').replace("import { organizationPage, teamPage } from './team-pages.js';\n", ''));
  const http = new HttpServer({ host: '127.0.0.1', port: 0, maxBodyBytes: 1024 });
  const code = (fn: () => void) => {
    try {
      fn();
      return 'mounted';
    } catch (err) {
      return isLedgerError(err) ? err.code : String(err);
    }
  };
  t.equal(code(() => mountDashboard(http, { errorsBase: 'https://e.example', providers: [], staticDir: dir })), 'KYC_DASHBOARD_ASSETS', 'an unlinked module');
  await rm(join(dir, 'team-pages.js'));
  t.equal(code(() => mountDashboard(http, { errorsBase: 'https://e.example', providers: [], staticDir: dir })), 'KYC_DASHBOARD_ASSETS', 'a missing module');
});
