import { mkdtemp, readFile, rm, writeFile, cp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { HttpServer } from '../../../node/http/server.js';
import { IMMUTABLE, mountWebApp, WEB_ASSETS, WEB_CONTENT_SECURITY_POLICY } from '../../../plugins/explorer/web.js';

// The web app's HTTP surface: the page at `/`, every asset it links under a versioned URL cached
// for a year, revalidation by ETag, the security headers, and a missing asset's 404.

const SOURCE = fileURLToPath(new URL('../../../plugins/explorer/web/', import.meta.url));

async function start(t: Test, dir = SOURCE) {
  const http = new HttpServer({ host: '127.0.0.1', port: 0, maxBodyBytes: 1024 });
  const { version } = mountWebApp(http, dir);
  const { port } = await http.listen();
  t.teardown(() => http.close());
  return { url: `http://127.0.0.1:${port}`, version };
}

t.test('GET / is the page: no-cache with an ETag, a 304 when unchanged, the security headers', async (t) => {
  const { url, version } = await start(t);
  const res = await fetch(`${url}/`);
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^text\/html/);
  t.equal(res.headers.get('cache-control'), 'no-cache');
  t.equal(res.headers.get('etag'), `"${version}"`);
  t.equal(res.headers.get('content-security-policy'), WEB_CONTENT_SECURITY_POLICY);
  t.equal(res.headers.get('x-content-type-options'), 'nosniff');
  t.notMatch(WEB_CONTENT_SECURITY_POLICY, /unsafe-inline|unsafe-eval|\*/);
  const html = await res.text();
  t.match(html, `/assets/app.js?v=${version}`);
  t.match(html, `/assets/app.css?v=${version}`);
  const again = await fetch(`${url}/`, { headers: { 'if-none-match': `"${version}"` } });
  t.equal(again.status, 304);
  t.equal((await fetch(`${url}/`, { headers: { 'if-none-match': '"other"' } })).status, 200);
});

t.test('every asset is linked with the version and served immutable; a module links its imports the same way', async (t) => {
  const { url, version } = await start(t);
  const texts = [await (await fetch(`${url}/`)).text()];
  for (const [name, type] of Object.entries(WEB_ASSETS)) {
    const res = await fetch(`${url}/assets/${name}?v=${version}`);
    t.equal(res.status, 200, name);
    t.equal(res.headers.get('content-type'), type, `${name} type`);
    t.equal(res.headers.get('cache-control'), IMMUTABLE, `${name} is cached for a year`);
    texts.push(await res.text());
    const stale = await fetch(`${url}/assets/${name}?v=old`);
    t.equal(stale.headers.get('cache-control'), 'no-cache', `${name} under another version is revalidated`);
  }
  const all = texts.join('\n');
  for (const name of Object.keys(WEB_ASSETS)) t.ok(all.includes(`${name}?v=${version}`), `${name} is linked with the version`);
  t.notMatch(all, /from '\.\/[a-z-]+\.js'/, 'no module import without the version');
  const missing = await fetch(`${url}/assets/nothing.js`);
  t.equal(missing.status, 404);
  t.match(await missing.json(), { title: 'Not Found' });
});

t.test('a changed file changes the version of every link', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'explorer-web-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await cp(SOURCE, dir, { recursive: true });
  const before = (await start(t, dir)).version;
  await writeFile(join(dir, 'app.css'), `${await readFile(join(dir, 'app.css'), 'utf8')}\n/* changed */\n`);
  const after = await start(t, dir);
  t.not(after.version, before);
  t.match(await (await fetch(`${after.url}/assets/app.js?v=${after.version}`)).text(), `'./dom.js?v=${after.version}'`);
});

t.test('a missing file fails the mount with a stable code', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'explorer-web-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const http = new HttpServer({ host: '127.0.0.1', port: 0, maxBodyBytes: 1024 });
  t.throws(() => mountWebApp(http, dir), { code: 'EXPLORER_WEB_ASSETS' });
});
