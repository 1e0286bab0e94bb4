import t, { type Test } from 'tap';
import { HttpServer } from '../../node/http/server.js';
import { createRpcServer } from '../../node/rpc/server.js';
import { rawGet } from '../fixtures/raw-http.js';

/** The RPC port as the node composes it: JSON-RPC on `/`, the DID resolver, `/metrics`. */
async function rpcPort(t: Test) {
  const maxBodyBytes = 1024 * 1024;
  const http = new HttpServer({ host: '127.0.0.1', port: 0, maxBodyBytes });
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

t.test('a 5 MiB JSON-RPC body sent with fetch gets the documented 413', async (t) => {
  const { base } = await rpcPort(t);
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ledger_status', params: ['x'.repeat(5 * 1024 * 1024)] });
  for (const init of [{ body }, { body: new Blob([body]).stream(), duplex: 'half' }] as RequestInit[]) {
    const res = await fetch(base, { method: 'POST', headers: { 'content-type': 'application/json' }, ...init });
    t.equal(res.status, 413);
    t.equal(res.headers.get('connection'), 'close');
    t.same(await res.json(), { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'request body exceeds 1048576 bytes' } });
  }
});
