import t from 'tap';
import { busyRetryAfterMs, isBusy, parseRetryAfter, RpcError, RpcTransportError } from '../../node/client/errors.js';

t.test('RpcError busy and retryAfterMs', async (t) => {
  const busy = new RpcError(-32010, 'busy', { reason: 'mempool_full', retryAfterMs: 1500 });
  t.equal(busy.busy, true);
  t.equal(busy.retryAfterMs, 1500);
  t.equal(busyRetryAfterMs(busy), 1500);
  t.equal(new RpcError(-32010, 'busy', { retryAfterMs: 'soon' }).retryAfterMs, 1000, 'unusable data: the default wait');
  const other = new RpcError(-32005, 'limit', { retryAfterMs: 5 });
  t.equal(other.busy, false);
  t.equal(other.retryAfterMs, undefined);
  t.notOk(isBusy(other));
  t.notOk(isBusy(new Error('x')));
  t.notOk(isBusy(new RpcTransportError('down', 'http://x', 502)));
  t.ok(isBusy(new RpcTransportError('busy', 'http://x', 503, { retryAfterMs: 2000 })));
});

t.test('parseRetryAfter: seconds or an HTTP date', async (t) => {
  t.equal(parseRetryAfter('3'), 3000);
  t.equal(parseRetryAfter(null), undefined);
  t.equal(parseRetryAfter(' '), undefined);
  t.equal(parseRetryAfter('soon'), undefined);
  const now = Date.parse('2024-01-01T00:00:00Z');
  t.equal(parseRetryAfter('Mon, 01 Jan 2024 00:00:05 GMT', now), 5000);
  t.equal(parseRetryAfter('Sun, 31 Dec 2023 23:59:00 GMT', now), 0, 'a date in the past: now');
});
