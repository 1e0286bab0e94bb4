import t, { type Test } from 'tap';
import { rejection } from '../../../fixtures/wait.js';
import { toProblem } from '../../../../plugins/common/http/problems.js';
import { MarketError, marketFailure } from '../../../../plugins/wallet/market/errors.js';
import { PriceFeed, type PriceFeedOptions } from '../../../../plugins/wallet/market/prices.js';
import { json, upstream, type Call, type Handler } from './upstream-server.js';

const T0 = Date.UTC(2025, 2, 1, 12, 0, 0);
const HOUR = 3_600_000;

/** A CoinGecko-like API under /api/v3: market_chart for the coins it knows, after `delayMs`. */
function coingecko(coins: Record<string, Array<[number, number]>>, opts: { delayMs?: number } = {}): Handler {
  return (call, res) => {
    const url = new URL(call.url, 'http://x');
    const m = /^\/api\/v3\/coins\/([^/]+)\/market_chart$/.exec(url.pathname);
    const answer = () => {
      if (!m || url.searchParams.get('vs_currency') !== 'usd') return json(res, 400, { error: 'bad request' });
      const prices = coins[decodeURIComponent(m[1]!)];
      if (!prices) return json(res, 404, { error: 'coin not found' });
      json(res, 200, { prices, market_caps: prices, total_volumes: prices });
    };
    if (opts.delayMs) setTimeout(answer, opts.delayMs);
    else answer();
  };
}

async function feed(t: Test, handler: Handler, opts: Partial<PriceFeedOptions> = {}) {
  const api = await upstream(t, handler);
  let now = T0;
  const prices = new PriceFeed({ url: `${api.origin}/api/v3`, now: () => now, ...opts });
  return { api, prices, host: api.origin.slice(7), advance: (ms: number) => (now += ms) };
}

const days = (call: Call) => new URL(call.url, 'http://x').searchParams.get('days');

t.test('with no feed configured every call is a typed error that maps to a 503 Problem', async (t) => {
  const prices = new PriceFeed({ url: undefined });
  t.equal(prices.configured, false);
  t.equal(prices.source, null);
  const err = await rejection(prices.series('eth', '7d'), MarketError);
  t.equal(err.code, 'PRICE_FEED_NOT_CONFIGURED');
  t.equal(err.kind, 'disabled');
  t.equal(err.status, 503);
  t.equal(err.message, 'no price feed is configured (plugins.wallet.prices.url)');
  const problem = toProblem(err, 'https://ledger.dev/problems/wallet', '/v1/prices/eth/series', 'wallet', 'status');
  t.match(problem.body, { type: 'https://ledger.dev/problems/wallet/503', status: 503, detail: err.message, code: 'PRICE_FEED_NOT_CONFIGURED' });
  t.equal(problem.internal, false);
  t.same(marketFailure(err), { slug: 'not-configured', status: 503, detail: err.message, code: 'PRICE_FEED_NOT_CONFIGURED' });
  await t.rejects(prices.spot('btc'), { code: 'PRICE_FEED_NOT_CONFIGURED' });
  t.same(await prices.quotes(['eth', 'lgr']), {
    eth: { available: false, reason: 'no price feed is configured (plugins.wallet.prices.url)' },
    lgr: { available: false, reason: 'no price feed is configured (plugins.wallet.prices.url)' },
  });
});

t.test('a series: the market_chart URL, points oldest first as ISO times, the source host and cachedAt', async (t) => {
  const { api, prices, host } = await feed(t, coingecko({ ethereum: [[T0 - HOUR, 2001.5], [T0 - 2 * HOUR, 2000], [T0, 1999.25]] }));
  t.equal(prices.source, host);
  const series = await prices.series('eth', '7d');
  t.same(series, {
    assetId: 'eth',
    range: '7d',
    currency: 'usd',
    points: [
      { t: '2025-03-01T10:00:00.000Z', price: 2000 },
      { t: '2025-03-01T11:00:00.000Z', price: 2001.5 },
      { t: '2025-03-01T12:00:00.000Z', price: 1999.25 },
    ],
    source: host,
    cachedAt: '2025-03-01T12:00:00.000Z',
  });
  t.equal(api.calls.length, 1);
  t.equal(api.calls[0]!.method, 'GET');
  t.equal(api.calls[0]!.url, '/api/v3/coins/ethereum/market_chart?vs_currency=usd&days=7');
  await prices.series('eth', '1d');
  await prices.series('eth', '30d');
  t.same(api.calls.map(days), ['7', '1', '30']);
});

t.test('coin ids: bitcoin and ledger-lgr by default, overridable per asset', async (t) => {
  const coins = { bitcoin: [[T0, 60_000]], 'ledger-lgr': [[T0, 0.5]], 'my-ledger': [[T0, 0.75]] } as Record<string, Array<[number, number]>>;
  const byDefault = await feed(t, coingecko(coins));
  t.equal((await byDefault.prices.spot('btc')).price, 60_000);
  t.equal((await byDefault.prices.spot('lgr')).price, 0.5);
  const overridden = await feed(t, coingecko(coins), { coinIds: { lgr: 'my-ledger' } });
  t.same(await overridden.prices.spot('lgr'), { assetId: 'lgr', currency: 'usd', price: 0.75, at: '2025-03-01T12:00:00.000Z', source: overridden.host, cachedAt: '2025-03-01T12:00:00.000Z' });
  t.equal(overridden.api.calls[0]!.url, '/api/v3/coins/my-ledger/market_chart?vs_currency=usd&days=1');
});

t.test('answers are cached per (asset, range) for cacheSeconds; spot shares the 1d series', async (t) => {
  const { api, prices, advance } = await feed(t, coingecko({ ethereum: [[T0, 2000]], bitcoin: [[T0, 60_000]] }), { cacheSeconds: 30 });
  const first = await prices.series('eth', '1d');
  t.same(await prices.series('eth', '1d'), first);
  t.equal((await prices.spot('eth')).price, 2000);
  t.equal(api.calls.length, 1, 'the series twice and the spot: one upstream call');
  await prices.series('eth', '7d');
  await prices.series('btc', '1d');
  t.equal(api.calls.length, 3, 'another range or asset is another entry');
  advance(29_999);
  await prices.series('eth', '1d');
  t.equal(api.calls.length, 3, 'still fresh just before 30 s');
  advance(1);
  const again = await prices.series('eth', '1d');
  t.equal(api.calls.length, 4, 'expired: asked again');
  t.equal(again.cachedAt, new Date(T0 + 30_000).toISOString());
});

t.test('concurrent identical requests make one upstream call', async (t) => {
  const { api, prices } = await feed(t, coingecko({ bitcoin: [[T0, 60_000]] }, { delayMs: 100 }));
  const all = await Promise.all([prices.series('btc', '30d'), prices.series('btc', '30d'), prices.series('btc', '30d'), prices.spot('btc'), prices.spot('btc')]);
  t.same(api.calls.map(days).sort(), ['1', '30'], 'one call per (asset, range)');
  t.equal(all[0], all[1], 'the very same answer');
  t.same(all[3], all[4]);
});

t.test('malformed answers are 502 PRICE_FEED_FAILED saying what was wrong', async (t) => {
  const cases: Array<[string, unknown, RegExp]> = [
    ['no prices', { market_caps: [] }, /answered without a prices array$/],
    ['prices not an array', { prices: { a: 1 } }, /answered without a prices array$/],
    ['an array answer', [[T0, 1]], /answered without a prices array$/],
    ['a point without a price', { prices: [[T0, 1], [T0]] }, /answered prices\[1\] that is not \[milliseconds, USD price\]$/],
    ['a price as a string', { prices: [[T0, '1.0']] }, /prices\[0\] that is not/],
    ['a negative price', { prices: [[T0, -1]] }, /prices\[0\] that is not/],
    ['a fractional time', { prices: [[T0 + 0.5, 1]] }, /prices\[0\] that is not/],
    ['a time past what a Date holds', { prices: [[9e15, 1]] }, /prices\[0\] that is not/],
    ['a point of three', { prices: [[T0, 1, 2]] }, /prices\[0\] that is not/],
    ['not JSON', '{"prices": [', /answered something that is not JSON/],
  ];
  for (const [what, body, message] of cases) {
    const { prices, host } = await feed(t, (_c, res) => json(res, 200, body));
    const err = await rejection(prices.series('eth', '1d'), MarketError);
    t.equal(err.code, 'PRICE_FEED_FAILED', what);
    t.equal(err.status, 502, what);
    t.match(err.message, message, what);
    t.ok(err.message.startsWith(`the price feed at ${host} (coin "ethereum") `), what);
  }
});

t.test('an empty series is a series; its spot is a 502 saying there is no price', async (t) => {
  const { prices, host } = await feed(t, coingecko({ ethereum: [] }));
  t.same((await prices.series('eth', '1d')).points, []);
  const err = await rejection(prices.spot('eth'), MarketError);
  t.equal(err.status, 502);
  t.equal(err.message, `the price feed at ${host} has no price for eth in the last day`);
});

t.test('upstream failures: an unknown coin (502), rate limits and outages (503), slow and oversized answers', async (t) => {
  const { prices, host } = await feed(t, coingecko({}));
  let err = await rejection(prices.series('lgr', '7d'), MarketError);
  t.equal(err.status, 502);
  t.equal(err.message, `the price feed at ${host} (coin "ledger-lgr") answered HTTP 404: coin not found`);
  const limited = await feed(t, (_c, res) => json(res, 429, { status: { error_code: 429, error_message: "You've exceeded the Rate Limit." } }));
  err = await rejection(limited.prices.series('btc', '7d'), MarketError);
  t.equal(err.status, 503);
  t.match(err.message, /answered HTTP 429: You've exceeded the Rate Limit\.$/);
  const slow = await feed(t, coingecko({ bitcoin: [[T0, 1]] }, { delayMs: 1_000 }), { timeoutMs: 100 });
  err = await rejection(slow.prices.series('btc', '7d'), MarketError);
  t.equal(err.status, 503);
  t.match(err.message, /\(coin "bitcoin"\) did not answer within 100 ms$/);
  const big = await feed(t, coingecko({ bitcoin: Array.from({ length: 2_000 }, (_, i) => [T0 + i, 60_000.123456] as [number, number]) }), { maxBytes: 10_000 });
  err = await rejection(big.prices.series('btc', '7d'), MarketError);
  t.equal(err.status, 502);
  t.match(err.message, /answered more than 10000 bytes/);
});

t.test('a failure reaches the waiting callers and is not kept: the next call asks again', async (t) => {
  let fail = true;
  const good = coingecko({ ethereum: [[T0, 2000]] }, { delayMs: 50 });
  const { api, prices } = await feed(t, (call, res) => (fail ? setTimeout(() => json(res, 500, 'oops'), 50) : good(call, res)));
  const both = await Promise.allSettled([prices.series('eth', '1d'), prices.series('eth', '1d')]);
  t.same(both.map((r) => r.status), ['rejected', 'rejected']);
  t.equal(api.calls.length, 1);
  fail = false;
  t.equal((await prices.spot('eth')).price, 2000);
  t.equal(api.calls.length, 2);
});

t.test('a long series is thinned to maxPoints, first and last kept', async (t) => {
  const long = Array.from({ length: 2_500 }, (_, i) => [T0 + i * 60_000, i] as [number, number]);
  const { prices } = await feed(t, coingecko({ ethereum: long }), { maxPoints: 100 });
  const { points } = await prices.series('eth', '1d');
  t.equal(points.length, 100);
  t.same(points[0], { t: new Date(T0).toISOString(), price: 0 });
  t.same(points.at(-1), { t: new Date(T0 + 2_499 * 60_000).toISOString(), price: 2_499 });
  t.ok(points.every((p, i) => i === 0 || p.price > points[i - 1]!.price), 'in order, no point twice');
  t.equal((await prices.spot('eth')).price, 2_499);
});

t.test('an unknown asset or range is a 400-kind error, asked of nobody', async (t) => {
  const { api, prices } = await feed(t, coingecko({}));
  await t.rejects(prices.series('doge', '1d'), { code: 'PRICE_ASSET_UNSUPPORTED', kind: 'invalid', data: { field: 'assetId' } });
  await t.rejects(prices.series('eth', '1y'), { code: 'PRICE_RANGE_INVALID', kind: 'invalid', data: { field: 'range' } });
  t.equal(api.calls.length, 0);
});

t.test('quotes: one per asset, the reason where there is no price', async (t) => {
  const { prices, host } = await feed(t, coingecko({ ethereum: [[T0 - HOUR, 1], [T0, 2000]], bitcoin: [[T0, 60_000]] }));
  t.same(await prices.quotes(['eth', 'btc', 'lgr', 'doge', 'eth']), {
    eth: { available: true, price: 2000, at: '2025-03-01T12:00:00.000Z' },
    btc: { available: true, price: 60_000, at: '2025-03-01T12:00:00.000Z' },
    lgr: { available: false, reason: `the price feed at ${host} (coin "ledger-lgr") answered HTTP 404: coin not found` },
    doge: { available: false, reason: 'no prices for asset "doge" (supported: lgr, eth, btc)' },
  });
});

t.test('an API key in the base URL query is sent along and never quoted', async (t) => {
  const api = await upstream(t, (_c, res) => json(res, 401, { error: 'invalid key' }));
  const prices = new PriceFeed({ url: `${api.origin}/api/v3?x_cg_pro_api_key=SECRET` });
  const err = await rejection(prices.series('eth', '1d'), MarketError);
  t.equal(api.calls[0]!.url, '/api/v3/coins/ethereum/market_chart?x_cg_pro_api_key=SECRET&vs_currency=usd&days=1');
  t.notMatch(err.message, /SECRET/);
  t.equal(err.status, 502);
  t.same(marketFailure(err), { slug: 'bad-gateway', status: 502, detail: err.message, code: 'PRICE_FEED_FAILED' });
  // today's common problems map answers it 503 (kind disabled), with the message
  t.match(toProblem(err, 'https://e', '/p', 'wallet', 'status').body, { status: 503, detail: err.message, code: 'PRICE_FEED_FAILED' });
});
