import { createServer } from 'node:net';
import { Registry } from 'prom-client';
import t, { type Test } from 'tap';
import { ConnectionGate, ipKey, REFUSAL_SLOTS, type ConnectionLimits } from '../../node/http/connections.js';
import { registerConnectionMetrics } from '../../node/http/metrics.js';
import { HttpServer, type HttpServerOptions } from '../../node/http/server.js';
import { parseResponse, rawConnection, type RawConnection } from '../fixtures/raw-connection.js';
import { until } from '../fixtures/wait.js';

async function serve(t: Test, connections: ConnectionLimits, more: Partial<HttpServerOptions> = {}) {
  const http = new HttpServer({ host: '127.0.0.1', port: 0, maxBodyBytes: 1024, connections, ...more });
  http.route('GET', '/health', (ctx) => ctx.json(200, { status: 'ok' }));
  const { port } = await http.listen();
  t.teardown(() => http.close());
  return { http, port };
}

/** Opens `n` connections one after another; the server admits them in that order. */
async function open(t: Test, port: number, n: number, host = '127.0.0.1'): Promise<RawConnection[]> {
  const out: RawConnection[] = [];
  for (let i = 0; i < n; i++) out.push(await rawConnection(port, host));
  t.teardown(() => out.forEach((c) => c.socket.destroy()));
  return out;
}

/** Whether this machine can listen on ::1. */
async function hasIpv6(): Promise<boolean> {
  const probe = createServer();
  return new Promise((resolve) => {
    probe.once('error', () => resolve(false));
    probe.listen(0, '::1', () => probe.close(() => resolve(true)));
  });
}

t.test('ipKey: IPv4 as it is, IPv4-mapped as IPv4, IPv6 by its /64', async (t) => {
  t.equal(ipKey('127.0.0.1'), '127.0.0.1');
  t.equal(ipKey('::ffff:127.0.0.1'), '127.0.0.1', 'a dual-stack socket sees IPv4 clients mapped');
  t.equal(ipKey('::1'), '0:0:0:0::/64');
  t.equal(ipKey('2001:db8::1'), ipKey('2001:DB8:0:0:ffff::2'), 'one /64, however written');
  t.not(ipKey('2001:db8::1'), ipKey('2001:db8:0:1::1'), 'another /64');
  t.equal(ipKey('fe80::1%eth0'), 'fe80:0:0:0::/64', 'the zone is dropped');
  t.equal(ipKey('64:ff9b::192.0.2.1'), '64:ff9b:0:0::/64', 'an embedded IPv4 tail');
  t.equal(ipKey(undefined), 'unknown', 'a socket already closed has no address');
});

t.test('the gate: caps per address and in all, 0 for none, and a bound on refusals answered at once', async (t) => {
  const gate = new ConnectionGate({ maxConnections: 3, maxConnectionsPerIp: 2 });
  t.equal(gate.admit('a'), undefined);
  t.equal(gate.admit('a'), undefined);
  t.equal(gate.admit('a'), 'per_ip', 'a third from one address');
  t.equal(gate.admit('b'), undefined, 'another address still comes in');
  t.equal(gate.admit('c'), 'total', 'the fourth in all');
  gate.release('a');
  t.equal(gate.admit('c'), undefined, 'a released place is taken again');
  t.same(gate.stats(), { open: 3, refused: { total: 0, per_ip: 0, overflow: 0 } }, 'admit only says why; refuse counts');

  t.ok(Array.from({ length: REFUSAL_SLOTS }, () => gate.refuse('total')).every(Boolean), 'refusals answered up to the slots');
  t.equal(gate.refuse('per_ip'), false, 'past the slots: closed unanswered');
  gate.refusalEnded();
  t.equal(gate.refuse('per_ip'), true, 'a slot freed by a refusal that ended');
  gate.dropped();
  t.same(gate.stats().refused, { total: REFUSAL_SLOTS, per_ip: 1, overflow: 2 });

  const open = new ConnectionGate({ maxConnections: 0, maxConnectionsPerIp: 0 });
  t.ok(Array.from({ length: 1000 }, () => open.admit('a')).every((over) => over === undefined), '0 is no cap');
  t.equal(open.stats().open, 1000);
});

t.test('a real server: the connection over the per-address cap gets a 503 Problem and is closed; another address still comes in', async (t) => {
  const v6 = await hasIpv6();
  const http = new HttpServer({ host: v6 ? '::' : '127.0.0.1', port: 0, maxBodyBytes: 1024, connections: { maxConnections: 0, maxConnectionsPerIp: 3 } });
  http.route('GET', '/health', (ctx) => ctx.json(200, { status: 'ok' }));
  const { port } = await http.listen();
  t.teardown(() => http.close());
  const idle = await open(t, port, 3);
  const refused = await rawConnection(port);
  const { text, error } = await refused.closed;
  t.equal(error, undefined, 'a FIN after the answer, not a reset');
  const res = parseResponse(text);
  t.equal(res.status, 503);
  t.equal(res.headers['retry-after'], '1');
  t.equal(res.headers['connection'], 'close');
  t.match(res.headers['content-type'], /^application\/problem\+json/);
  t.match(JSON.parse(res.body), { type: '/errors/503', status: 503, code: 'TOO_MANY_CONNECTIONS_PER_IP', limit: 3, detail: /3 connections from one address/ });
  t.match(http.connectionStats(), { open: 3, refused: { per_ip: 1, total: 0 } });

  if (v6) {
    const other = await rawConnection(port, '::1');
    t.teardown(() => other.socket.destroy());
    other.socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
    await until('the answer on ::1', async () => other.received().includes('"ok"'), 5000, 20);
    t.match(other.received(), /^HTTP\/1\.1 200 /, '::1 is another address');
  } else t.comment('no IPv6 on this machine: ::1 not tried');

  idle[0]!.socket.destroy();
  await until('the closed connection released', async () => http.connectionStats().open === (v6 ? 3 : 2), 5000, 20);
  const again = await rawConnection(port);
  t.teardown(() => again.socket.destroy());
  again.socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
  await until('the answer', async () => again.received().includes('"ok"'), 5000, 20);
  t.pass('a place freed on close is taken again');
});

t.test('the total cap: the connection over it gets a 503 Problem; node closes past the refusal slots at accept', async (t) => {
  const { http, port } = await serve(t, { maxConnections: 2, maxConnectionsPerIp: 0 });
  t.equal(http.server.maxConnections, 2 + REFUSAL_SLOTS);
  await open(t, port, 2);
  const res = parseResponse((await (await rawConnection(port)).closed).text);
  t.equal(res.status, 503);
  t.match(JSON.parse(res.body), { code: 'TOO_MANY_CONNECTIONS', limit: 2, detail: /limit of 2 connections/ });

  const registry = new Registry();
  registerConnectionMetrics(registry, () => [{ name: 'rpc', http }]);
  const text = await registry.metrics();
  t.match(text, /ledger_http_connections\{server="rpc"\} 2/);
  t.match(text, /ledger_http_connections_refused_total\{server="rpc",reason="total"\} 1/);
  t.match(text, /ledger_http_connections_refused_total\{server="rpc",reason="overflow"\} 0/);
});

t.test('idle and slow connections are closed by the timeouts', async (t) => {
  const { port } = await serve(t, { maxConnections: 0, maxConnectionsPerIp: 0 }, { keepAliveTimeoutMs: 200, headersTimeoutMs: 1000 });
  const started = Date.now();
  const silent = await rawConnection(port);
  const slow = await rawConnection(port);
  const drip = setInterval(() => slow.socket.write('X'), 200);
  t.teardown(() => clearInterval(drip));
  slow.socket.write('GET /health HTTP/1.1\r\nX-Slow: ');
  const kept = await rawConnection(port);
  kept.socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
  await Promise.all([silent.closed, slow.closed, kept.closed]);
  const took = Date.now() - started;
  t.ok(took < 4000, `all three closed in ${took} ms (headers timeout 1 s, checked every second)`);
  t.match(slow.received(), /^HTTP\/1\.1 408 /, 'headers sent a byte at a time get 408');
  t.match(kept.received(), /^HTTP\/1\.1 200 /, 'a keep-alive connection is answered, then closed when idle');
});
