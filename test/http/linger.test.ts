import t, { type Test } from 'tap';
import { HttpServer } from '../../node/http/server.js';
import { chunked, parseResponse, pump, rawConnection } from '../fixtures/raw-connection.js';

const LIMIT = 1024;
const MiB = 1024 * 1024;

async function start(t: Test) {
  const http = new HttpServer({ host: '127.0.0.1', port: 0, maxBodyBytes: LIMIT });
  http.route('GET', '/health', (ctx) => ctx.json(200, { status: 'ok' }));
  http.route('POST', '/raw', async (ctx) => ctx.send(200, await ctx.readBody(), 'application/octet-stream'));
  const { port } = await http.listen();
  t.teardown(() => http.close());
  return { http, port, base: `http://127.0.0.1:${port}` };
}

t.test('a body declared over the limit gets a 413 Problem naming the limit on any path, before any route runs', async (t) => {
  const { port } = await start(t);
  const over = 'x'.repeat(LIMIT + 1);
  for (const head of [
    `GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: ${LIMIT + 1}\r\n\r\n${over}`,
    `POST /nowhere HTTP/1.1\r\nHost: x\r\nContent-Length: ${LIMIT + 1}\r\n\r\n${over}`,
    // declared past the drain bound: the FIN comes at once, without waiting for the body
    `POST /raw HTTP/1.1\r\nHost: x\r\nContent-Length: ${1024 * MiB}\r\n\r\n`,
  ]) {
    const c = await rawConnection(port);
    c.socket.write(head);
    await c.ended;
    const res = parseResponse(c.received());
    t.equal(res.status, 413, head.split('\r\n')[0]!);
    t.equal(res.headers['connection'], 'close', 'the connection is not reused');
    t.same(JSON.parse(res.body), {
      type: '/errors/413',
      title: 'Payload Too Large',
      status: 413,
      detail: `request body exceeds ${LIMIT} bytes`,
      instance: head.split(' ')[1],
      code: 'BODY_TOO_LARGE',
      maxBytes: LIMIT,
    });
    c.socket.destroy();
  }
});

t.test('a body declared far over the limit and sent: fetch reads the 413, not a reset', async (t) => {
  const { base } = await start(t);
  // past the drain bound (16 MiB): before, the server cut such a connection at once
  const res = await fetch(`${base}/raw`, { method: 'POST', body: Buffer.alloc(24 * MiB, 0x61) });
  t.equal(res.status, 413);
  t.match(await res.json(), { code: 'BODY_TOO_LARGE', maxBytes: LIMIT });
});

t.test('the 413 is followed by a FIN while the client still sends; the rest is read, up to a bound', async (t) => {
  const { port } = await start(t);
  // a client that stops at the FIN closes cleanly
  const polite = await rawConnection(port);
  polite.socket.write(`POST /raw HTTP/1.1\r\nHost: x\r\nContent-Length: ${64 * MiB}\r\n\r\n`);
  void pump(polite.socket, 64 * MiB);
  await polite.ended;
  t.match(polite.received(), /^HTTP\/1\.1 413 /, 'the whole answer, then the FIN');
  t.equal((await polite.closed).error, undefined, 'closed, not reset');

  // one that goes on sending is read up to the drain bound, max(4 × 1 KiB, 16 MiB), then cut
  const stubborn = await rawConnection(port, '127.0.0.1', true);
  stubborn.socket.write(`POST /raw HTTP/1.1\r\nHost: x\r\nContent-Length: ${64 * MiB}\r\n\r\n`);
  const sent = await pump(stubborn.socket, 64 * MiB);
  const { text, error } = await stubborn.closed;
  t.match(text, /^HTTP\/1\.1 413 /);
  t.ok(sent >= 16 * MiB && sent < 64 * MiB, `the server stopped reading after ${sent} bytes (${error ?? 'closed'})`);
});

t.test('Expect: 100-continue: a body declared over the limit is refused before it is sent', async (t) => {
  const { port } = await start(t);
  const over = await rawConnection(port);
  over.socket.write(`POST /raw HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: ${LIMIT + 1}\r\n\r\n`);
  await over.ended;
  t.match(over.received(), /^HTTP\/1\.1 413 /, 'no 100 Continue first');
  over.socket.destroy();

  const within = await rawConnection(port);
  within.socket.write(`POST /raw HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n`);
  await new Promise<void>((resolve) => within.socket.once('data', () => resolve()));
  t.match(within.received(), /^HTTP\/1\.1 100 Continue\r\n\r\n/);
  within.socket.end('hello');
  const { text } = await within.closed;
  t.match(text, /200 OK[\s\S]*hello$/);
});

t.test('a chunked body over the limit: 413 at the crossing chunk where a route reads it; closed past the limit where it does not', async (t) => {
  const { port } = await start(t);
  const read = await rawConnection(port);
  read.socket.write('POST /raw HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n');
  await pump(read.socket, 8 * MiB, chunked);
  read.socket.write('0\r\n\r\n');
  await read.ended;
  const res = parseResponse(read.received());
  t.equal(res.status, 413);
  t.equal(res.headers['connection'], 'close');
  t.match(JSON.parse(res.body), { code: 'BODY_TOO_LARGE', maxBytes: LIMIT, instance: '/raw' });
  read.socket.destroy();

  // the route answers without reading: node would read and drop the body to its end, however long
  const unread = await rawConnection(port);
  unread.socket.write('GET /health HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n');
  const sent = pump(unread.socket, 256 * MiB, chunked);
  await unread.closed;
  t.match(unread.received(), /^HTTP\/1\.1 200 /, 'the answer came first');
  t.ok((await sent) < 256 * MiB, `closed after ${await sent} bytes`);
});

t.test('a body within the limit to a route that does not read it keeps the connection', async (t) => {
  const { port } = await start(t);
  const c = await rawConnection(port);
  c.socket.write(`GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n0123456789GET /health HTTP/1.1\r\nHost: x\r\n\r\n`);
  await new Promise<void>((resolve) => {
    const check = () => ((c.received().match(/HTTP\/1\.1 200/g) ?? []).length === 2 ? resolve() : setTimeout(check, 10));
    check();
  });
  t.notMatch(c.received(), /connection: close/i);
  c.socket.destroy();
});
