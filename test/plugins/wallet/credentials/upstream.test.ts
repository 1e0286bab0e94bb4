import t from 'tap';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { boundedFetch, isLoopbackHost, quote, upstreamCause, UpstreamError, urlRefusal } from '../../../../plugins/wallet/credentials/upstream.js';

/** The URL rule and the bounded fetch the credential code contacts issuers with, against real local servers. */

async function serve(t: { teardown(fn: () => unknown): void }, handler: Parameters<typeof createServer>[1]): Promise<{ url: string }> {
  const server: Server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

t.test('which URLs may be contacted', async (t) => {
  const kyc = 'http://kyc.internal:8083';
  t.equal(urlRefusal('https://issuer.example.com/offer', kyc), null, 'https anywhere');
  t.equal(urlRefusal('http://kyc.internal:8083/v1/oid4vci/offers/x', kyc), null, 'the configured verification service, whatever its scheme');
  t.equal(urlRefusal('http://127.0.0.1:9/x', kyc), null, 'plain http on loopback');
  t.equal(urlRefusal('http://localhost:9/x', kyc), null);
  t.equal(urlRefusal('http://[::1]:9/x', kyc), null);
  t.match(urlRefusal('http://kyc.internal:8084/x', kyc), /only https URLs are/, 'another port of that host is another origin');
  t.match(urlRefusal('http://10.0.0.1/x', kyc), /only https URLs are/);
  t.match(urlRefusal('ftp://example.com/x', kyc), /only https URLs are/);
  t.match(urlRefusal('https://user:pw@example.com/x', kyc), /credentials in it/);
  t.match(urlRefusal('not a url', kyc), /is not a URL/);
  t.ok(isLoopbackHost('127.1.2.3'));
  t.notOk(isLoopbackHost('128.0.0.1'));
  t.notOk(isLoopbackHost('localhost.example.com'));
  t.equal(quote(`a\nb\u0000c${'x'.repeat(400)}`).length, 301, 'quotes are one line and bounded');
});

t.test('the bounded fetch: refused before connecting, no redirects, size and time bounds', async (t) => {
  const ok = await serve(t, (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"a":1}'));
  const fetchIt = boundedFetch({ kycUrl: () => 'https://kyc.example.com', timeoutMs: 500, maxBytes: 1024 });
  const res = await fetchIt(`${ok.url}/x`);
  t.same([res.status, await res.json()], [200, { a: 1 }]);

  const refused = await fetchIt('http://192.0.2.1/x').catch((e: unknown) => e);
  t.ok(refused instanceof UpstreamError && refused.failure === 'refused', 'a refused URL throws before any request');
  t.equal(upstreamCause(new Error('wrapped', { cause: refused })), refused, 'found through a wrapper');

  const redirect = await serve(t, (_req, res) => res.writeHead(302, { location: 'http://192.0.2.1/' }).end());
  t.match(await fetchIt(`${redirect.url}/`).catch((e: unknown) => e), { failure: 'redirect', message: /redirect \(HTTP 302\)/ });

  const big = await serve(t, (_req, res) => res.writeHead(200).end('x'.repeat(5000)));
  t.match(await fetchIt(`${big.url}/`).catch((e: unknown) => e), { failure: 'too-large', message: /more than 1024 bytes/ });
  const chunked = await serve(t, (_req, res) => {
    res.writeHead(200);
    res.write('x'.repeat(800));
    res.end('y'.repeat(800));
  });
  t.match(await fetchIt(`${chunked.url}/`).catch((e: unknown) => e), { failure: 'too-large' }, 'also without a content-length');

  // a server that never answers: only the timeout can end the fetch
  const slow = await serve(t, () => undefined);
  t.match(await fetchIt(`${slow.url}/`).catch((e: unknown) => e), { failure: 'timeout', message: /did not answer within 500 ms/ }, 'the timeout fires');

  const empty = await serve(t, (_req, res) => res.writeHead(204).end());
  t.equal((await fetchIt(`${empty.url}/`)).status, 204);
});
