import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import t, { type Test } from 'tap';
import { HttpServer } from '../../../node/http/server.js';
import { findStaticDir, IMMUTABLE, ifNoneMatch, loadStaticBundle, pageHeaders, pageSecurityPolicy, routeStaticAssets, sendStatic, sharedStaticDir, type StaticBundleOptions } from '../../../plugins/common/static-assets.js';

// A folder of static files served as one versioned bundle: links rewritten to the version, the
// version following every file, immutable and revalidated caching, 304s, and typed mount errors.

const PAGE = '<!doctype html><link rel="stylesheet" href="/s/app.css"><script type="module" src="/s/app.js"></script>';
const APP = "import { x } from './lib.js';\nconsole.log(x);\n";

async function folder(t: Test, files: Record<string, string> = { 'index.html': PAGE, 'app.js': APP, 'lib.js': 'export const x = 1;', 'app.css': 'body{}' }) {
  const dir = await mkdtemp(join(tmpdir(), 'static-assets-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

const opts = (dir: string): StaticBundleOptions => ({
  dir,
  assets: { 'app.js': 'text/javascript; charset=utf-8', 'lib.js': 'text/javascript; charset=utf-8', 'app.css': 'text/css; charset=utf-8' },
  prefix: '/s/',
  label: 'the test page',
  source: 'test/static',
  code: 'TEST_ASSETS',
});

t.test('every link in the page and in the modules carries the version; the version follows every file', async (t) => {
  const dir = await folder(t);
  const bundle = loadStaticBundle(opts(dir));
  t.match(bundle.version, /^[A-Za-z0-9_-]{16}$/);
  t.equal(bundle.etag, `"${bundle.version}"`);
  const page = bundle.page.body.toString('utf8');
  t.match(page, `href="/s/app.css?v=${bundle.version}"`);
  t.match(page, `src="/s/app.js?v=${bundle.version}"`);
  t.match(bundle.assets.get('app.js')!.body.toString('utf8'), `from './lib.js?v=${bundle.version}'`);
  t.equal(bundle.assets.get('app.css')!.type, 'text/css; charset=utf-8');

  await writeFile(join(dir, 'lib.js'), 'export const x = 2;');
  const next = loadStaticBundle(opts(dir));
  t.not(next.version, bundle.version, 'a change to an imported module changes the version');
  t.match(next.page.body.toString('utf8'), `src="/s/app.js?v=${next.version}"`, 'and the link to the module importing it');
});

t.test('a missing or unlinked file fails the mount with the caller\'s code', async (t) => {
  const dir = await folder(t, { 'index.html': PAGE, 'app.js': APP, 'app.css': 'body{}' });
  t.throws(() => loadStaticBundle(opts(dir)), { code: 'TEST_ASSETS', message: /the test page's lib\.js is missing from .*: the build must copy test\/static/ });
  await writeFile(join(dir, 'lib.js'), 'export const x = 1;');
  await writeFile(join(dir, 'app.js'), 'console.log(1);');
  t.throws(() => loadStaticBundle(opts(dir)), { code: 'TEST_ASSETS', message: 'nothing in the test page links /s/lib.js' });
});

t.test('a shared module of plugins/common/static is served under the page\'s prefix, versioned, and must be imported', async (t) => {
  const dir = await folder(t, { 'index.html': PAGE, 'app.js': "import { h } from './dom-core.js';\nimport { x } from './lib.js';\nconsole.log(h, x);\n", 'lib.js': 'export const x = 1;', 'app.css': 'body{}' });
  const bundle = loadStaticBundle({ ...opts(dir), shared: ['dom-core.js'] });
  const core = bundle.assets.get('dom-core.js')!;
  t.equal(core.type, 'text/javascript; charset=utf-8');
  t.match(core.body.toString('utf8'), /export function h\(/, 'the shared file itself');
  t.match(bundle.assets.get('app.js')!.body.toString('utf8'), `from './dom-core.js?v=${bundle.version}'`);
  t.match(sharedStaticDir(), /plugins\/common\/static\/?$/, 'found beside the module or in the source tree');

  await writeFile(join(dir, 'app.js'), APP);
  t.throws(() => loadStaticBundle({ ...opts(dir), shared: ['dom-core.js'] }), { code: 'TEST_ASSETS', message: 'nothing in the test page links /s/dom-core.js' });
  t.throws(() => loadStaticBundle({ ...opts(dir), shared: ['nope.js'] }), { code: 'TEST_ASSETS', message: /the test page's nope\.js is missing from .*: the build must copy plugins\/common\/static/ });
});

t.test('page headers: the policy, no sniffing, no Referer, no framing; the camera only when asked for', async (t) => {
  const plain = pageHeaders("default-src 'none'");
  t.same(plain, {
    'content-security-policy': "default-src 'none'",
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    'permissions-policy': 'camera=(), microphone=(), geolocation=()',
  });
  t.equal(pageHeaders('x', { camera: true })['permissions-policy'], 'camera=(self), microphone=(), geolocation=()');
});

t.test('served: immutable under the version, no-cache otherwise, 304 on a matching ETag, 404 through the caller', async (t) => {
  const bundle = loadStaticBundle(opts(await folder(t)));
  const http = new HttpServer({ host: '127.0.0.1', port: 0, maxBodyBytes: 1024 });
  const headers = { 'x-content-type-options': 'nosniff' };
  http.route('GET', '/', (ctx) => sendStatic(ctx, bundle, bundle.page, 'no-cache', headers));
  routeStaticAssets(http, bundle, '/s/', headers, (ctx, name) => ctx.problem(404, `no asset ${name}`, 'TEST_NO_ASSET'));
  const { port } = await http.listen();
  t.teardown(() => http.close());
  const url = `http://127.0.0.1:${port}`;

  const page = await fetch(`${url}/`);
  t.equal(page.headers.get('cache-control'), 'no-cache');
  t.equal(page.headers.get('etag'), bundle.etag);
  t.equal(page.headers.get('x-content-type-options'), 'nosniff');
  t.equal((await fetch(`${url}/`, { headers: { 'if-none-match': bundle.etag } })).status, 304);

  const current = await fetch(`${url}/s/app.js?v=${bundle.version}`);
  t.equal(current.status, 200);
  t.equal(current.headers.get('cache-control'), IMMUTABLE);
  t.equal(current.headers.get('content-type'), 'text/javascript; charset=utf-8');
  t.equal(await current.text(), bundle.assets.get('app.js')!.body.toString('utf8'));
  t.equal((await fetch(`${url}/s/app.js?v=old`)).headers.get('cache-control'), 'no-cache');
  const revalidated = await fetch(`${url}/s/app.css`, { headers: { 'if-none-match': `W/"x", W/${bundle.etag}` } });
  t.equal(revalidated.status, 304);
  t.equal(revalidated.headers.get('etag'), bundle.etag);
  const missing = await fetch(`${url}/s/other.js`);
  t.equal(missing.status, 404);
  t.match(await missing.json(), { code: 'TEST_NO_ASSET' });
});

t.test('If-None-Match: a list, the weak form and * match; another tag does not', async (t) => {
  t.ok(ifNoneMatch('"a", "b"', '"b"'));
  t.ok(ifNoneMatch('W/"b"', '"b"'));
  t.ok(ifNoneMatch('*', '"b"'));
  t.notOk(ifNoneMatch('"c"', '"b"'));
  t.notOk(ifNoneMatch(undefined, '"b"'));
});

t.test('the folder: beside the module when it holds the page, else the source tree\'s', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'static-dir-'));
  t.teardown(() => rm(root, { recursive: true, force: true }));
  await mkdir(join(root, 'dist'));
  await mkdir(join(root, 'src'));
  const beside = pathToFileURL(join(root, 'dist') + '/');
  const source = pathToFileURL(join(root, 'src') + '/');
  t.equal(findStaticDir(beside, source), join(root, 'dist') + '/', 'neither: beside, so the mount names it');
  await writeFile(join(root, 'src', 'index.html'), PAGE);
  t.equal(findStaticDir(beside, source), join(root, 'src') + '/');
  await writeFile(join(root, 'dist', 'index.html'), PAGE);
  t.equal(findStaticDir(beside, source), join(root, 'dist') + '/');
});

t.test('the page policy: this origin only, no inline code; extra directives add or replace', async (t) => {
  const parse = (policy: string) => new Map(policy.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1).join(' ')]));
  const base = parse(pageSecurityPolicy());
  t.equal(base.get('default-src'), "'none'");
  t.equal(base.get('script-src'), "'self'");
  t.equal(base.get('require-trusted-types-for'), "'script'");
  t.notMatch(pageSecurityPolicy(), /unsafe-inline|unsafe-eval|\*/);
  const media = parse(pageSecurityPolicy({ 'img-src': "'self' blob:", 'media-src': "'self' blob:" }));
  t.equal(media.get('img-src'), "'self' blob:");
  t.equal(media.get('media-src'), "'self' blob:");
  t.equal(media.get('connect-src'), "'self'");
});
