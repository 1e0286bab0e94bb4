import t from 'tap';
import { ChainAdapters } from '../../../../../plugins/wallet/market/adapters.js';
import { PriceFeed } from '../../../../../plugins/wallet/market/prices.js';
import { mountPortfolio } from '../../../../../plugins/wallet/http/routes/portfolio.js';
import { ERRORS_BASE, startWallet } from '../../harness.js';
import { json, upstream } from '../../market/upstream-server.js';

/**
 * The portfolio and price routes on a real node, with a real Ethereum JSON-RPC stand-in and a
 * CoinGecko-style feed on local ports: live ledger balances from committed state, other chains
 * through their adapters (unavailable, never zero, without one), USD values only from the feed.
 */

const ETH_ADDRESS = '0x00000000000000000000000000000000000000aa';
const BTC_ADDRESS = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
const DAY_MS = 86_400_000;

t.test('portfolio: the ledger balance and stake, eth through its adapter, btc unavailable, USD from the feed', async (t) => {
  const eth = await upstream(t, (call, res) => json(res, 200, { jsonrpc: '2.0', id: JSON.parse(call.body).id, result: '0xde0b6b3a7640000' }));
  const feed = await upstream(t, (call, res) => {
    const coin = /^\/coins\/([^/]+)\/market_chart/.exec(call.url)?.[1];
    if (coin === 'ethereum') return json(res, 200, { prices: [[Date.now() - DAY_MS, 3000], [Date.now(), 3500.5]] });
    if (coin === 'ledger-lgr') return json(res, 200, { prices: [[Date.now(), 2]] });
    return json(res, 404, { error: 'coin not found' });
  });
  const h = await startWallet(t, ({ base, router, users }) => {
    mountPortfolio(router, { chain: base.chain, users, adapters: new ChainAdapters({ eth: eth.origin }), prices: new PriceFeed({ url: feed.origin, coinIds: base.config.prices.coinIds }) });
  });
  const me = await h.signIn({ fund: 250_000_000n });
  await h.parts.users.update(me.user.id, (u) => ({ ...u, addresses: [...u.addresses, { chain: 'eth', address: ETH_ADDRESS, derivation: "m/44'/60'/0'/0/0" }, { chain: 'btc', address: BTC_ADDRESS, derivation: "m/84'/0'/0'/0/0" }] }));

  const res = await h.req('GET', '/v1/portfolio/assets', { cookie: me.cookie });
  t.equal(res.status, 200, res.text);
  const [ledger, ether, bitcoin] = res.body.assets;
  t.match(ledger, { available: true, chain: 'ledger', address: me.user.address, assetId: 'lgr', balance: '250000000', staked: '0', decimals: 8, usd: 5 });
  t.match(ether, { available: true, chain: 'eth', address: ETH_ADDRESS, balance: '1000000000000000000', decimals: 18, usd: 3500.5 });
  t.match(bitcoin, { available: false, chain: 'btc', address: BTC_ADDRESS, reason: /no adapter configured for btc/, usd: null });
  t.notOk('balance' in bitcoin, 'an unavailable chain has no balance, not a zero');
  t.match(res.body.totalUsd, { usd: 3505.5, complete: false, unvalued: 1 });
  t.equal(res.body.hideBalances, false);

  const series = await h.req('GET', '/v1/prices/eth/series?range=1d', { cookie: me.cookie });
  t.equal(series.status, 200, series.text);
  t.match(series.body, { assetId: 'eth', range: '1d', currency: 'usd', points: [{ price: 3000 }, { price: 3500.5 }] });
  const again = await h.req('GET', '/v1/prices/eth/series?range=1d', { cookie: me.cookie });
  t.same(again.body.points, series.body.points);
  t.equal(feed.calls.filter((c) => c.url.includes('/coins/ethereum/') && c.url.includes('days=1')).length, 1, 'the series is cached');
  const bad = await h.req('GET', '/v1/prices/doge/series', { cookie: me.cookie });
  t.match([bad.status, bad.body], [400, { type: `${ERRORS_BASE}/400` }]);
  const badRange = await h.req('GET', '/v1/prices/eth/series?range=2y', { cookie: me.cookie });
  t.equal(badRange.status, 400);
  t.same((await h.req('GET', '/v1/portfolio/assets')).body, { error: 'Unauthorized' });
});

t.test('no price feed: the series is an honest 503 and balances carry no USD value', async (t) => {
  const h = await startWallet(t, ({ base, router, users }) => {
    mountPortfolio(router, { chain: base.chain, users, adapters: new ChainAdapters({}), prices: new PriceFeed({ url: undefined }) });
  });
  const me = await h.signIn();
  const series = await h.req('GET', '/v1/prices/lgr/series', { cookie: me.cookie });
  t.match([series.status, series.body], [503, { type: `${ERRORS_BASE}/503`, status: 503, code: 'PRICE_FEED_NOT_CONFIGURED', instance: '/v1/prices/lgr/series' }]);
  const res = await h.req('GET', '/v1/portfolio/assets', { cookie: me.cookie });
  t.match(res.body.assets, [{ chain: 'ledger', balance: '0', usd: null, usdUnavailable: String }]);
  t.match(res.body.totalUsd, { usd: null, complete: false });
});
