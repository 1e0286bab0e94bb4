import { createServer, type Server } from 'node:http';
import t from 'tap';
import { boundOrigin } from '../../../plugins/common/bound-origin.js';

/** A real server bound to `host` on a free port; closed at teardown. */
async function listening(t: { teardown(fn: () => unknown): void }, host: string): Promise<Server> {
  const server = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, resolve);
  });
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return server;
}

t.test('a wildcard bind is announced as 127.0.0.1, and a client reaches it there', async (t) => {
  for (const host of ['0.0.0.0', '::']) {
    const server = await listening(t, host);
    const origin = boundOrigin(server.address(), 9999);
    const { port } = server.address() as { port: number };
    t.equal(origin, `http://127.0.0.1:${port}`, `${host}: the bound port, not the configured one`);
    t.equal(await (await fetch(origin)).text(), 'ok', `${host}: the origin answers`);
  }
});

t.test('a specific address is kept; IPv6 gets brackets', async (t) => {
  const v4 = await listening(t, '127.0.0.1');
  t.equal(boundOrigin(v4.address(), 1), `http://127.0.0.1:${(v4.address() as { port: number }).port}`);
  const v6 = await listening(t, '::1');
  const origin = boundOrigin(v6.address(), 1);
  t.equal(origin, `http://[::1]:${(v6.address() as { port: number }).port}`);
  t.equal(await (await fetch(origin)).text(), 'ok', 'the bracketed origin is a URL clients can use');
  t.equal(boundOrigin({ address: 'fe80::1', family: 'IPv6', port: 8082 }, 1), 'http://[fe80::1]:8082');
});

t.test('before listening (or on a pipe): 127.0.0.1 and the configured port', async (t) => {
  t.equal(boundOrigin(null, 8083), 'http://127.0.0.1:8083');
  t.equal(boundOrigin('/run/ledger.sock', 8084), 'http://127.0.0.1:8084');
});
