import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { PNG } from 'pngjs';
import { HttpServer } from '../../../../node/http/server.js';
import { CONTENT_SECURITY_POLICY, mountHostedPage, type HostedOffer } from '../../../../plugins/kyc/hosted/serve.js';
import { assertNoInlineCode, assertPageHeaders, assertStrictPolicy } from '../../common/page-checks.js';

// The hosted page's HTTP surface: the page for any well-formed token, the assets with their
// types and cache headers, the security headers, and the credential offer with its QR code.

const TOKEN = 'sess_tok_AbC123_-xyz';
const OFFER = 'openid-credential-offer://?credential_offer_uri=https%3A%2F%2Fverify.example%2Foffers%2Foff_1';

async function start(t: Test, offers: Record<string, HostedOffer> = {}, staticDir?: string) {
  const http = new HttpServer({ host: '127.0.0.1', port: 0, maxBodyBytes: 1024 });
  const asked: string[] = [];
  mountHostedPage(http, {
    errorsBase: 'https://errors.example/kyc',
    offer: async (token) => {
      asked.push(token);
      return offers[token] ?? null;
    },
    sessionUrl: async (token) => (token === TOKEN ? `https://verify.example/v/s/${token}` : null),
    ...(staticDir ? { staticDir } : {}),
  });
  const { port } = await http.listen();
  t.teardown(() => http.close());
  return { url: `http://127.0.0.1:${port}`, asked };
}

const securityHeaders = (t: Test, res: Response) => assertPageHeaders(t, res, CONTENT_SECURITY_POLICY);

t.test('the policy: self only, no inline script, camera frames and photos as blob:, images as data:', async (t) => {
  assertStrictPolicy(t, CONTENT_SECURITY_POLICY, { 'img-src': "'self' data: blob:", 'media-src': "'self' blob:", 'connect-src': "'self'" });
});

t.test('GET /v/s/<token> serves the page, never cached, with versioned asset links', async (t) => {
  const { url } = await start(t);
  for (const path of [`/v/s/${TOKEN}`, `/v/s/${TOKEN}/`]) {
    const res = await fetch(url + path);
    t.equal(res.status, 200, path);
    t.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
    t.equal(res.headers.get('cache-control'), 'no-store');
    securityHeaders(t, res);
    const html = await res.text();
    t.match(html, /<script type="module" src="\/v\/assets\/app\.js\?v=[A-Za-z0-9_-]{16}"><\/script>/);
    t.match(html, /<link rel="stylesheet" href="\/v\/assets\/app\.css\?v=[A-Za-z0-9_-]{16}">/);
    assertNoInlineCode(t, html);
    t.equal((html.match(/<h1[\s>]/g) ?? []).length, 1, 'one h1');
  }
  const head = await fetch(`${url}/v/s/${TOKEN}`, { method: 'HEAD' });
  t.equal(head.status, 200);
  t.equal(await head.text(), '');
  for (const bad of ['/v/s/', '/v/s/has.dot', `/v/s/${'a'.repeat(257)}`, `/v/s/${TOKEN}/extra`]) {
    t.equal((await fetch(url + bad)).status, 404, `${bad.slice(0, 40)} is not a page`);
  }
  t.equal((await fetch(`${url}/v/s/${TOKEN}`, { method: 'POST' })).status, 405);
});

t.test('assets: content types, immutable under their hash, ETag revalidation otherwise', async (t) => {
  const { url } = await start(t);
  const html = await (await fetch(`${url}/v/s/${TOKEN}`)).text();
  const versionedApp = /\/v\/assets\/app\.js\?v=[A-Za-z0-9_-]+/.exec(html)![0];
  const app = await (await fetch(url + versionedApp)).text();
  t.match(app, /from '\.\/media\.js\?v=[A-Za-z0-9_-]{16}';/, 'the module imports its dependency under its hash');
  t.match(html, new RegExp(`<link rel="modulepreload" href="/v/assets/media\\.js\\?v=${/media\.js\?v=([A-Za-z0-9_-]{16})/.exec(app)![1]}">`), 'and the page preloads the same URL');
  const js = 'text/javascript; charset=utf-8';
  const names = ['app.js', 'steps.js', 'media.js', 'messages.js', 'brand.js', 'i18n.js', 'strings.en.js'].map((n) => [n, js] as const);
  for (const [name, type] of [...names, ['app.css', 'text/css; charset=utf-8']] as const) {
    const versioned = new RegExp(`/v/assets/${name.replaceAll('.', '\\.')}\\?v=[A-Za-z0-9_-]+`).exec(html)![0];
    const res = await fetch(url + versioned);
    t.equal(res.status, 200);
    t.equal(res.headers.get('content-type'), type);
    t.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    securityHeaders(t, res);
    const etag = res.headers.get('etag')!;
    t.match(etag, /^"[A-Za-z0-9_-]{16}"$/);
    t.ok((await res.text()).length > 100);

    const plain = await fetch(`${url}/v/assets/${name}`);
    t.equal(plain.headers.get('cache-control'), 'no-cache', 'an unversioned or stale link is revalidated');
    await plain.arrayBuffer();
    const stale = await fetch(`${url}/v/assets/${name}?v=0000000000000000`);
    t.equal(stale.headers.get('cache-control'), 'no-cache');
    await stale.arrayBuffer();
    const notModified = await fetch(`${url}/v/assets/${name}`, { headers: { 'if-none-match': `W/"x", ${etag}` } });
    t.equal(notModified.status, 304);
    t.equal(notModified.headers.get('etag'), etag);
  }
  const missing = await fetch(`${url}/v/assets/other.js`);
  t.equal(missing.status, 404);
  t.equal(missing.headers.get('content-type'), 'application/problem+json; charset=utf-8');
  t.match(await missing.json(), { type: 'https://errors.example/kyc/not-found', status: 404 });
});

t.test('GET /v/s/<token>/offer.json: the offer and its QR code as a PNG data URI, or 404', async (t) => {
  const { url, asked } = await start(t, { [TOKEN]: { uri: OFFER }, sess_tok_pin: { uri: OFFER, txCode: '493021' } });
  const res = await fetch(`${url}/v/s/${TOKEN}/offer.json`);
  t.equal(res.status, 200);
  t.equal(res.headers.get('cache-control'), 'no-store');
  securityHeaders(t, res);
  const body = (await res.json()) as { uri: string; qr: string; txCode?: string };
  t.equal(body.uri, OFFER);
  t.notOk('txCode' in body);
  t.match(body.qr, /^data:image\/png;base64,/);
  const png = PNG.sync.read(Buffer.from(body.qr.slice('data:image/png;base64,'.length), 'base64'));
  t.equal(png.width, 320, 'a real PNG');
  t.equal(png.width, png.height);

  const pin = (await (await fetch(`${url}/v/s/sess_tok_pin/offer.json`)).json()) as { txCode?: string };
  t.equal(pin.txCode, '493021');

  const none = await fetch(`${url}/v/s/sess_tok_unknown/offer.json`);
  t.equal(none.status, 404);
  t.match(await none.json(), { type: 'https://errors.example/kyc/not-found', detail: 'this verification has no credential offer (yet)' });
  t.same(asked, [TOKEN, 'sess_tok_pin', 'sess_tok_unknown'], 'the token from the path goes to the callback');
});

t.test('GET /v/s/<token>/handoff.json: the session URL and nothing else, as a QR code; 404 for an unknown token', async (t) => {
  const { url } = await start(t);
  const res = await fetch(`${url}/v/s/${TOKEN}/handoff.json`);
  t.equal(res.status, 200);
  t.equal(res.headers.get('cache-control'), 'no-store');
  securityHeaders(t, res);
  const body = (await res.json()) as { url: string; qr: string };
  t.same(Object.keys(body).sort(), ['qr', 'url']);
  t.equal(body.url, `https://verify.example/v/s/${TOKEN}`);
  t.match(body.qr, /^data:image\/png;base64,/);
  const png = PNG.sync.read(Buffer.from(body.qr.slice('data:image/png;base64,'.length), 'base64'));
  t.equal(png.width, 320, 'a real PNG');

  const none = await fetch(`${url}/v/s/sess_tok_unknown/handoff.json`);
  t.equal(none.status, 404);
  t.match(await none.json(), { type: 'https://errors.example/kyc/not-found', detail: 'no verification session for this link' });
});

t.test('an offer that cannot be a QR code is an internal error, not a broken image', async (t) => {
  const { url } = await start(t, { [TOKEN]: { uri: `https://verify.example/${'x'.repeat(5000)}` } });
  const res = await fetch(`${url}/v/s/${TOKEN}/offer.json`);
  t.equal(res.status, 500);
  t.match(await res.json(), { detail: 'internal error' });
});

t.test('mounting without the page files fails loudly', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'kyc-hosted-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const http = new HttpServer({ host: '127.0.0.1', port: 0, maxBodyBytes: 1024 });
  const mount = () => mountHostedPage(http, { errorsBase: 'https://errors.example/kyc', offer: async () => null, sessionUrl: async () => null, staticDir: dir });
  t.throws(mount, { code: 'KYC_HOSTED_ASSETS', message: /index\.html is missing/ });
  await writeFile(join(dir, 'index.html'), '<!doctype html><title>x</title><script type="module" src="/v/assets/app.js"></script>');
  const modules = ['steps.js', 'media.js', 'messages.js', 'brand.js', 'i18n.js', 'strings.en.js'];
  await writeFile(join(dir, 'app.js'), modules.map((m) => `import './${m}';`).join('\n'));
  t.throws(mount, { code: 'KYC_HOSTED_ASSETS', message: /steps\.js is missing/ });
  for (const m of modules) await writeFile(join(dir, m), 'export {};');
  await writeFile(join(dir, 'app.css'), 'body{}');
  t.throws(mount, { code: 'KYC_HOSTED_ASSETS', message: 'nothing in the hosted page links /v/assets/app.css' });
  await writeFile(join(dir, 'index.html'), '<!doctype html><title>x</title><link rel="stylesheet" href="/v/assets/app.css"><script type="module" src="/v/assets/app.js"></script>');
  t.doesNotThrow(mount, 'app.js links its modules through its imports');
});
