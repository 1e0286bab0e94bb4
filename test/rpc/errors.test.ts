import t from 'tap';
import { LedgerError, unavailable } from '../../node/errors.js';
import { toProblem } from '../../plugins/common/http/problems.js';
import { busyReasonOf, problemFromError, retryAfterHeader, RPC_BUSY, toRpcError } from '../../node/rpc/errors.js';

t.test('Retry-After is whole seconds, rounded up, at least 1', async (t) => {
  t.same([0, 1, 999, 1000, 1001, 2500, 60_000].map(retryAfterHeader), ['1', '1', '1', '1', '2', '3', '60']);
});

t.test('a full mempool or verification queue is busy; other limits stay -32005', async (t) => {
  const full = new LedgerError('MEMPOOL_FULL', 'full', 'limit', { reason: 'bytes', maxBytes: 10 });
  t.equal(busyReasonOf(full), 'mempool_full');
  t.equal(busyReasonOf(new LedgerError('MEMPOOL_FULL', 'full', 'limit', { reason: 'per_sender', limit: 1 })), 'sender_limit');
  t.same(toRpcError(full, { retryAfterMs: 250 }), {
    code: RPC_BUSY,
    message: 'full',
    data: { code: 'MEMPOOL_FULL', maxBytes: 10, bound: 'bytes', reason: 'mempool_full', retryAfterMs: 250 },
    internal: false,
  });
  const tooHigh = new LedgerError('NONCE_TOO_HIGH', 'too far ahead', 'limit', { maxGap: 64 });
  t.equal(busyReasonOf(tooHigh), undefined);
  t.match(toRpcError(tooHigh), { code: -32005, data: { code: 'NONCE_TOO_HIGH' } });
  const raw = new LedgerError('MEMPOOL_FULL', 'full', 'limit', { reason: 'count', odd: new Uint8Array(1) });
  t.same(toRpcError(raw).data, { code: 'MEMPOOL_FULL', reason: 'mempool_full', retryAfterMs: 1000 }, 'data that cannot be encoded is cut to the essentials');
});

t.test('a full verification queue is busy, with its detail and no bound', async (t) => {
  const full = new LedgerError('VERIFY_QUEUE_FULL', 'busy: queued', 'limit', { queuedCost: 90, maxQueuedCost: 100, cost: 20 });
  t.equal(busyReasonOf(full), 'verify_queue_full');
  t.same(toRpcError(full, { retryAfterMs: 500 }).data, { code: 'VERIFY_QUEUE_FULL', queuedCost: 90, maxQueuedCost: 100, cost: 20, reason: 'verify_queue_full', retryAfterMs: 500 });
});

t.test('REST: busy is a 503 Problem with Retry-After; other limits a 413', async (t) => {
  const busy = problemFromError(new LedgerError('MEMPOOL_FULL', 'mempool is full', 'limit', { reason: 'count' }), { instance: '/tx' });
  t.same(busy, { problem: { type: '/errors/503', title: 'Service Unavailable', status: 503, detail: 'mempool is full', instance: '/tx', code: 'MEMPOOL_FULL' }, internal: false, headers: { 'retry-after': '1' } });
  const limit = problemFromError(new LedgerError('TX_TOO_LARGE', 'too large', 'limit'));
  t.match(limit, { problem: { status: 413, code: 'TX_TOO_LARGE' }, internal: false });
  t.equal(limit.headers, undefined);
});

t.test('a dependency that is down is busy on JSON-RPC and a 503 with Retry-After on REST, never internal', async (t) => {
  const down = unavailable('RELAY_REDIS_UNAVAILABLE', 'Redis at redis://127.0.0.1:6379 cannot be reached', { retryAfterSeconds: 2 });
  t.same(toRpcError(down), {
    code: RPC_BUSY,
    message: 'Redis at redis://127.0.0.1:6379 cannot be reached',
    data: { code: 'RELAY_REDIS_UNAVAILABLE', reason: 'dependency_unavailable', retryAfterMs: 2000 },
    internal: false,
  });
  const rest = problemFromError(down);
  t.equal(rest.problem.status, 503);
  t.equal(rest.problem.code, 'RELAY_REDIS_UNAVAILABLE');
  t.same(rest.headers, { 'retry-after': '2' });
  t.equal(rest.internal, false);
  const plugin = toProblem(down, 'https://errors.test', '/x', 'relay');
  t.equal(plugin.body.status, 503, "the plugins' Problem mapping agrees");
  t.same(plugin.headers, { 'retry-after': '2' });
});
