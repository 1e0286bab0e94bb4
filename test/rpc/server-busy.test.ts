import t, { type Test } from 'tap';
import { RpcClient } from '../../node/client/rpc-client.js';
import { RpcError, RpcTransportError, busyRetryAfterMs, isBusy } from '../../node/client/errors.js';
import { LedgerError } from '../../node/errors.js';
import { HttpServer } from '../../node/http/server.js';
import { parseJson, stringifyJson } from '../../node/protocol/json.js';
import type { BusyReason } from '../../node/rpc/errors.js';
import { param, string } from '../../node/rpc/params.js';
import { createRpcServer, defineMethod, type RpcServerOptions } from '../../node/rpc/server.js';

/** Busy answers (-32010, HTTP 503, Retry-After) through the real HTTP server on an ephemeral port. */

function gate() {
  let open!: () => void;
  let entered!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  const reached = new Promise<void>((r) => (entered = r));
  return { open, opened, entered, reached };
}

async function start(t: Test, opts: Partial<RpcServerOptions> = {}) {
  const slow = gate();
  const busy: BusyReason[] = [];
  const methods = [
    defineMethod({ name: 'test_echo', params: [param('text', string({ maxLength: 100 }))] as const, handler: (text) => text }),
    defineMethod({
      name: 'test_slow',
      params: [],
      handler: async () => {
        slow.entered();
        await slow.opened;
        return 'done';
      },
    }),
    defineMethod({ name: 'test_send', params: [param('text', string({ maxLength: 100 }))] as const, write: true, handler: (text) => `sent ${text}` }),
    defineMethod({
      name: 'test_full',
      params: [],
      write: true,
      handler: () => {
        throw new LedgerError('MEMPOOL_FULL', 'mempool is full (3 transactions, 900 bytes): no sender holds more pending transactions than this one', 'limit', {
          reason: 'count',
          maxTransactions: 3,
          maxBytes: 1000,
        });
      },
    }),
    defineMethod({
      name: 'test_senderFull',
      params: [],
      handler: () => {
        throw new LedgerError('MEMPOOL_FULL', 'sender already has 2 pending transactions, the most one sender may have', 'limit', { reason: 'per_sender', limit: 2 });
      },
    }),
  ];
  const http = new HttpServer({ host: '127.0.0.1', port: 0, maxBodyBytes: 1024 * 1024 });
  const rpc = createRpcServer({ methods, onBusy: (r) => busy.push(r), maxEventLoopLagMs: 0, ...opts });
  rpc.mount(http);
  const { port } = await http.listen();
  t.teardown(async () => {
    slow.open();
    rpc.close();
    await http.close();
  });
  const url = `http://127.0.0.1:${port}/`;
  const post = async (body: unknown) => {
    const res = await fetch(url, { method: 'POST', body: stringifyJson(body), headers: { 'content-type': 'application/json' } });
    const text = await res.text();
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: text ? (parseJson(text) as { error?: { code: number; message: string; data?: Record<string, unknown> } }) : undefined };
  };
  const call = (method: string, params: unknown[] = [], id: unknown = 1) => post({ jsonrpc: '2.0', method, params, id });
  return { url, rpc, slow, busy, post, call };
}

t.test('a full mempool is -32010 busy, HTTP 503 with Retry-After, MEMPOOL_FULL kept in data', async (t) => {
  const { call, post, busy } = await start(t);
  const full = await call('test_full');
  t.equal(full.status, 503);
  t.equal(full.retryAfter, '1', 'Retry-After in whole seconds');
  t.same(full.body, {
    jsonrpc: '2.0',
    id: 1,
    error: {
      code: -32010,
      message: 'mempool is full (3 transactions, 900 bytes): no sender holds more pending transactions than this one',
      data: { code: 'MEMPOOL_FULL', maxTransactions: 3, maxBytes: 1000, bound: 'count', reason: 'mempool_full', retryAfterMs: 1000 },
    },
  });
  const sender = await call('test_senderFull');
  t.equal(sender.status, 503);
  t.match(sender.body!.error, { code: -32010, data: { code: 'MEMPOOL_FULL', reason: 'sender_limit', bound: 'per_sender', limit: 2, retryAfterMs: 1000 } });
  const batch = await post([
    { jsonrpc: '2.0', method: 'test_full', id: 1 },
    { jsonrpc: '2.0', method: 'test_echo', params: ['x'], id: 2 },
  ]);
  t.equal(batch.status, 200, 'a batch that ran answers 200, the busy item in place');
  t.equal(batch.retryAfter, null);
  t.match(batch.body, [{ id: 1, error: { code: -32010 } }, { id: 2, result: 'x' }]);
  const notified = await post({ jsonrpc: '2.0', method: 'test_full' });
  t.equal(notified.status, 204, 'a notification gets no answer, busy or not');
  t.same(busy, ['mempool_full', 'sender_limit', 'mempool_full', 'mempool_full'], 'each busy answer counted by reason');
});

t.test('retryAfterMs sets data.retryAfterMs and a Retry-After rounded up to whole seconds', async (t) => {
  const { call } = await start(t, { retryAfterMs: 2500 });
  const full = await call('test_full');
  t.equal(full.retryAfter, '3');
  t.match(full.body!.error!.data, { retryAfterMs: 2500 });
});

t.test('past maxInFlight a request is refused at once, and served again once one finishes', async (t) => {
  const { call, post, slow, rpc, busy, url } = await start(t, { maxInFlight: 1 });
  const first = call('test_slow');
  await slow.reached;
  t.equal(rpc.inFlight, 1);
  const refused = await call('test_echo', ['x'], 7);
  t.equal(refused.status, 503, 'refused while the slow one runs, without waiting for it');
  t.equal(refused.retryAfter, '1');
  t.same(refused.body, {
    jsonrpc: '2.0',
    id: 7,
    error: { code: -32010, message: 'busy: the node is processing 1 requests, its limit is 1; retry after 1000 ms', data: { inFlight: 1, maxInFlight: 1, reason: 'overloaded', retryAfterMs: 1000 } },
  });
  const batch = await post([
    { jsonrpc: '2.0', method: 'test_echo', params: ['a'], id: 1 },
    { jsonrpc: '2.0', method: 'test_echo', params: ['b'], id: 2 },
  ]);
  t.equal(batch.status, 503, 'a batch refused as a whole');
  t.match(batch.body, { jsonrpc: '2.0', id: null, error: { code: -32010, data: { reason: 'overloaded' } } }, 'one busy answer, not an array');
  const note = await post({ jsonrpc: '2.0', method: 'test_echo', params: ['n'] });
  t.equal(note.status, 503, 'a refused notification: no body, but the status says it did not run');
  t.equal(note.retryAfter, '1');
  t.equal(note.body, undefined);
  const client = new RpcClient(url);
  const err = await client.call('test_echo', ['c']).catch((e: unknown) => e);
  t.ok(err instanceof RpcError && err.busy, 'the client sees RpcError busy');
  t.equal((err as RpcError).retryAfterMs, 1000);
  t.equal(busyRetryAfterMs(err), 1000);
  t.ok(isBusy(err));
  slow.open();
  t.match((await first).body, { result: 'done' }, 'the slow request completes');
  t.equal(rpc.inFlight, 0);
  t.match((await call('test_echo', ['again'])).body, { result: 'again' }, 'served again');
  t.same(busy, ['overloaded', 'overloaded', 'overloaded', 'overloaded']);
});

t.test('a batch larger than maxInFlight still runs on an idle server', async (t) => {
  const { post } = await start(t, { maxInFlight: 1 });
  const batch = await post([1, 2, 3].map((id) => ({ jsonrpc: '2.0', method: 'test_echo', params: [String(id)], id })));
  t.equal(batch.status, 200);
  t.match(batch.body, [{ result: '1' }, { result: '2' }, { result: '3' }]);
});

t.test('while the event loop lags, writes are busy at once and reads are served', async (t) => {
  let lag = 800;
  const { call, post, busy } = await start(t, { maxEventLoopLagMs: 500, eventLoopLagMs: () => lag });
  const write = await call('test_send', ['x']);
  t.equal(write.status, 503);
  t.equal(write.retryAfter, '1');
  t.same(write.body!.error, {
    code: -32010,
    message: 'busy: the node lags (event loop 800 ms behind); test_send is refused until it catches up',
    data: { lagMs: 800, maxLagMs: 500, reason: 'event_loop_lag', retryAfterMs: 1000 },
  });
  const read = await call('test_echo', ['r']);
  t.equal(read.status, 200);
  t.match(read.body, { result: 'r' });
  const mixed = await post([
    { jsonrpc: '2.0', method: 'test_send', params: ['w'], id: 1 },
    { jsonrpc: '2.0', method: 'test_echo', params: ['r'], id: 2 },
  ]);
  t.equal(mixed.status, 200);
  t.match(mixed.body, [{ id: 1, error: { code: -32010, data: { reason: 'event_loop_lag' } } }, { id: 2, result: 'r' }]);
  const note = await post({ jsonrpc: '2.0', method: 'test_send', params: ['n'] });
  t.same([note.status, note.retryAfter, note.body], [503, '1', undefined], 'a refused write notification: no body, status 503');
  t.equal((await post({ jsonrpc: '2.0', method: 'test_echo', params: ['n'] })).status, 204, 'a read notification runs');
  lag = 500;
  t.match((await call('test_send', ['y'])).body, { result: 'sent y' }, 'at the threshold writes go through');
  t.same(busy, ['event_loop_lag', 'event_loop_lag', 'event_loop_lag']);
});

t.test('maxEventLoopLagMs 0 turns the lag check off', async (t) => {
  const { call } = await start(t, { maxEventLoopLagMs: 0, eventLoopLagMs: () => 10_000 });
  t.match((await call('test_send', ['x'])).body, { result: 'sent x' });
});

t.test('a 503 without a JSON-RPC body is still busy to the client, from Retry-After', async (t) => {
  const http = new HttpServer({ host: '127.0.0.1', port: 0, maxBodyBytes: 1024 });
  http.route('POST', '/', (ctx) => ctx.send(503, 'upstream busy', 'text/plain', { 'retry-after': '7' }));
  const { port } = await http.listen();
  t.teardown(() => http.close());
  const err = await new RpcClient(`http://127.0.0.1:${port}/`).call('x').catch((e: unknown) => e);
  t.ok(err instanceof RpcTransportError);
  t.match(err, { status: 503, retryAfterMs: 7000 });
  t.equal(busyRetryAfterMs(err), 7000);
  t.notOk(isBusy(new RpcError(-32000, 'nonce too low')), 'other errors are not busy');
  t.equal(new RpcError(-32010, 'busy').retryAfterMs, 1000, 'a busy answer without data waits the default');
});
