import t from 'tap';
import { LedgerError } from '../../node/errors.js';
import { busyReasonOf, retryAfterHeader, RPC_BUSY, toRpcError } from '../../node/rpc/errors.js';

t.test('Retry-After is whole seconds, rounded up, at least 1', async (t) => {
  t.same([0, 1, 999, 1000, 1001, 2500, 60_000].map(retryAfterHeader), ['1', '1', '1', '1', '2', '3', '60']);
});

t.test('only MEMPOOL_FULL is busy; other limits stay -32005', async (t) => {
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
