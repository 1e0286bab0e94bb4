import t, { type Test } from 'tap';
import { HttpServer } from '../../node/http/server.js';
import { createRpcServer } from '../../node/rpc/server.js';
import { chunked, parseResponse, pump, rawConnection, type RawConnection } from '../fixtures/raw-connection.js';
import { rawGet } from '../fixtures/raw-http.js';
import { until } from '../fixtures/wait.js';

/** The RPC port as the node composes it: JSON-RPC on `/`, the DID resolver, `/metrics`. */
async function rpcPort(t: Test, connections = { maxConnections: 1024, maxConnectionsPerIp: 256 }) {
  const maxBodyBytes = 1024 * 1024;
  const http = new HttpServer({ host: '127.0.0.1', port: 0, maxBodyBytes, connections });
  const rpc = createRpcServer({ methods: [], maxBodyBytes, maxEventLoopLagMs: 0 });
  rpc.mount(http, '/');
  http.route('GET', /^\/1\.0\/identifiers\/(.+)$/, (ctx) => ctx.json(200, { did: ctx.params[0] }));
  http.route('GET', '/metrics', (ctx) => ctx.send(200, 'secret_metric 1\n', 'text/plain'));
  const { port } = await http.listen();
  t.teardown(async () => {
    await http.close();
    await rpc.close();
  });
  return { port, base: `http://127.0.0.1:${port}` };
}

t.test('a path under the resolver cannot walk to /metrics', async (t) => {
  const { port } = await rpcPort(t);
  for (const target of ['/1.0/identifiers/%2e%2e/%2e%2e/metrics', '/1.0/identifiers/../../metrics', '/1.0/identifiers/%2E%2E%5C%2E%2E%5Cmetrics', '/1.0/identifiers\\..\\..\\metrics']) {
    const res = await rawGet(port, target);
    t.equal(res.status, 400, target);
    t.notMatch(res.body, /secret_metric/, target);
  }
  t.same(JSON.parse((await rawGet(port, '/1.0/identifiers/did%3Aledger%3Aabc')).body), { did: 'did:ledger:abc' });
});

const TOO_LARGE = {
  type: '/errors/413',
  title: 'Payload Too Large',
  status: 413,
  detail: 'request body exceeds 1048576 bytes',
  instance: '/',
  code: 'BODY_TOO_LARGE',
  maxBytes: 1048576,
  jsonrpc: '2.0',
  id: null,
  error: { code: -32600, message: 'request body exceeds 1048576 bytes' },
};

t.test('a JSON-RPC body over the limit, declared or streamed, gets the documented 413: a Problem that is also a JSON-RPC error', async (t) => {
  const { base, port } = await rpcPort(t);
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ledger_status', params: ['x'.repeat(5 * 1024 * 1024)] });
  for (const init of [{ body }, { body: new Blob([body]).stream(), duplex: 'half' }, { body: Buffer.alloc(40 * 1024 * 1024, 0x20) }] as RequestInit[]) {
    const res = await fetch(base, { method: 'POST', headers: { 'content-type': 'application/json' }, ...init });
    t.equal(res.status, 413);
    t.equal(res.headers.get('connection'), 'close');
    t.match(res.headers.get('content-type'), /^application\/problem\+json/);
    t.same(await res.json(), TOO_LARGE);
  }
  // chunked, on a raw connection: answered at the chunk that crosses the limit; the FIN once the rest is read
  const c = await rawConnection(port);
  c.socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n');
  await pump(c.socket, 4 * 1024 * 1024, chunked);
  c.socket.write('0\r\n\r\n');
  await c.ended;
  t.same(JSON.parse(parseResponse(c.received()).body), TOO_LARGE);
  c.socket.destroy();
});

t.test('the RPC port caps connections from one address: the one over the cap gets a 503 Problem', async (t) => {
  const { base, port } = await rpcPort(t, { maxConnections: 1024, maxConnectionsPerIp: 4 });
  const idle: RawConnection[] = [];
  for (let i = 0; i < 4; i++) idle.push(await rawConnection(port));
  t.teardown(() => idle.forEach((c) => c.socket.destroy()));
  const res = parseResponse((await (await rawConnection(port)).closed).text);
  t.equal(res.status, 503);
  t.equal(res.headers['retry-after'], '1');
  t.match(JSON.parse(res.body), { code: 'TOO_MANY_CONNECTIONS_PER_IP', limit: 4 });
  idle[0]!.socket.destroy();
  await idle[0]!.closed;
  const answer = await until('a JSON-RPC answer', async () => {
    const r = await fetch(base, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"nope"}' }).catch(() => undefined);
    return r?.status === 200 && r.json();
  }, 5000, 20);
  t.match(answer, { error: { code: -32601 } }, 'a freed place serves JSON-RPC again');
});
