import t from 'tap';
import { totalUsd, usdValue, valueHoldings, type PriceQuote } from '../../../../plugins/wallet/market/valuation.js';

const quotes: Record<string, PriceQuote> = {
  eth: { available: true, price: 2000, at: '2025-03-01T12:00:00.000Z' },
  btc: { available: true, price: 60_000.5 },
  lgr: { available: false, reason: 'no price feed is configured (plugins.wallet.prices.url)' },
};

t.test('usdValue: smallest units at their decimals times the price, to the cent', async (t) => {
  t.same(usdValue('1500000000000000000', 18, quotes['eth'], 'eth'), { usd: 3000 });
  t.same(usdValue(12_345_678n, 8, quotes['btc'], 'btc'), { usd: 7407.47 }, '0.12345678 BTC at 60000.5 = 7407.4686...');
  t.same(usdValue('0', 8, quotes['btc']), { usd: 0 });
  t.same(usdValue('1', 18, quotes['eth']), { usd: 0 }, 'a wei is worth less than a cent');
  t.same(usdValue(10n ** 30n, 18, { available: true, price: 1 }), { usd: 1e12 }, 'beyond 2^53 smallest units, still exact in whole units');
  t.same(usdValue('250000000', 8, { available: true, price: 0.1 }), { usd: 0.25 });
  t.same(usdValue('7', 0, { available: true, price: 1.5 }), { usd: 10.5 });
});

t.test('usdValue: null with the reason, never a made-up value', async (t) => {
  t.same(usdValue('1', 8, undefined, 'doge'), { usd: null, usdUnavailable: 'no price for doge' });
  t.same(usdValue('1', 8, quotes['lgr'], 'lgr'), { usd: null, usdUnavailable: 'no price feed is configured (plugins.wallet.prices.url)' });
  t.same(usdValue('1', 8, { available: true, price: Number.NaN }, 'x'), { usd: null, usdUnavailable: 'the price of x is not a usable number' });
  t.same(usdValue('1', 8, { available: true, price: -1 }, 'x'), { usd: null, usdUnavailable: 'the price of x is not a usable number' });
  t.same(usdValue('1.5', 8, quotes['btc'], 'btc'), { usd: null, usdUnavailable: 'the balance of btc is not a whole number of smallest units' });
  t.same(usdValue('', 8, quotes['btc'], 'btc'), { usd: null, usdUnavailable: 'the balance of btc is not a whole number of smallest units' });
  t.same(usdValue('1', 8.5, quotes['btc'], 'btc'), { usd: null, usdUnavailable: 'the decimals of btc are not a whole number from 0 to 36' });
  t.same(usdValue(`1${'0'.repeat(99)}`, 0, { available: true, price: Number.MAX_VALUE }, 'x'), { usd: null, usdUnavailable: 'the value of x is too large to express' });
});

t.test('valueHoldings: each holding keeps its fields and gains usd (or why not)', async (t) => {
  const holdings = [
    { chain: 'ledger', assetId: 'lgr', balance: '100000000', decimals: 8 },
    { available: true, chain: 'eth', address: '0xab', assetId: 'eth', balance: '250000000000000000', decimals: 18 },
    { available: true, chain: 'btc', address: 'bc1q', assetId: 'btc', balance: '100000000', pending: '-5', decimals: 8 },
    { available: false, chain: 'btc', address: 'bc1x', reason: 'no adapter configured for btc (plugins.wallet.chains.btc)' },
    { chain: 'eth', assetId: 'usdc', balance: '5', decimals: 6 },
  ];
  t.same(valueHoldings(holdings, quotes), [
    { chain: 'ledger', assetId: 'lgr', balance: '100000000', decimals: 8, usd: null, usdUnavailable: 'no price feed is configured (plugins.wallet.prices.url)' },
    { available: true, chain: 'eth', address: '0xab', assetId: 'eth', balance: '250000000000000000', decimals: 18, usd: 500 },
    { available: true, chain: 'btc', address: 'bc1q', assetId: 'btc', balance: '100000000', pending: '-5', decimals: 8, usd: 60_000.5 },
    { available: false, chain: 'btc', address: 'bc1x', reason: 'no adapter configured for btc (plugins.wallet.chains.btc)', usd: null, usdUnavailable: 'the balance is unavailable' },
    { chain: 'eth', assetId: 'usdc', balance: '5', decimals: 6, usd: null, usdUnavailable: 'no price for usdc' },
  ]);
  t.same(valueHoldings([{ assetId: 'toString', balance: '1', decimals: 0 }], quotes), [{ assetId: 'toString', balance: '1', decimals: 0, usd: null, usdUnavailable: 'no price for toString' }], 'no prototype lookups');
  t.same(valueHoldings([{ assetId: 'eth', available: false }], quotes), [{ assetId: 'eth', available: false, usd: null, usdUnavailable: 'the eth balance is unavailable' }]);
  t.same(valueHoldings([], quotes), []);
});

t.test('totalUsd: the sum, and whether it is complete', async (t) => {
  t.same(totalUsd([{ usd: 1.1 }, { usd: 2.2 }]), { usd: 3.3, complete: true, unvalued: 0 });
  t.same(totalUsd([{ usd: 10 }, { usd: null, usdUnavailable: 'x' }]), { usd: 10, complete: false, unvalued: 1 }, 'a lower bound, said so');
  t.same(totalUsd([{ usd: null, usdUnavailable: 'x' }]), { usd: null, complete: false, unvalued: 1 }, 'nothing valued: no total');
  t.same(totalUsd([]), { usd: 0, complete: true, unvalued: 0 });
});
