import t from 'tap';
import { ChainAdapters, isExternalChain } from '../../../../plugins/wallet/market/adapters.js';
import { json, upstream, type Handler } from './upstream-server.js';

const ETH = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const BTC = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';

/** A JSON-RPC node that answers `wei()` (hex) to each eth_getBalance, or fails while `down` says so. */
function ethNode(wei: () => bigint, down: () => boolean = () => false): Handler {
  return (call, res) => {
    if (down()) return json(res, 502, 'bad gateway');
    const req = JSON.parse(call.body) as { id: unknown };
    json(res, 200, { jsonrpc: '2.0', id: req.id, result: `0x${wei().toString(16)}` });
  };
}

const esplora: Handler = (_call, res) =>
  json(res, 200, { chain_stats: { funded_txo_sum: 5_000, spent_txo_sum: 1_000 }, mempool_stats: { funded_txo_sum: 250, spent_txo_sum: 0 } });

t.test('isExternalChain', async (t) => {
  t.ok(isExternalChain('eth'));
  t.ok(isExternalChain('btc'));
  t.notOk(isExternalChain('ledger'));
  t.notOk(isExternalChain('ETH'));
});

t.test('with no adapter configured every chain is unavailable with the reason, never a balance', async (t) => {
  const chains = new ChainAdapters({});
  t.notOk(chains.configured('eth'));
  t.same(await chains.balanceOf('eth', ETH), { available: false, chain: 'eth', address: ETH, reason: 'no adapter configured for eth (plugins.wallet.chains.eth)' });
  t.same(await chains.balanceOf('btc', BTC), { available: false, chain: 'btc', address: BTC, reason: 'no adapter configured for btc (plugins.wallet.chains.btc)' });
  t.same(await chains.balanceOf('doge', 'D123'), { available: false, chain: 'doge', address: 'D123', reason: 'no balances for chain "doge" (supported: eth, btc)' });
});

t.test('configured chains answer their real balances; the other one stays unavailable', async (t) => {
  const node = await upstream(t, ethNode(() => 10n ** 18n));
  const api = await upstream(t, esplora);
  const both = new ChainAdapters({ eth: node.origin, btc: `${api.origin}/api` });
  t.ok(both.configured('eth'));
  t.ok(both.configured('btc'));
  t.same(await both.balanceOf('eth', ETH), { available: true, chain: 'eth', address: ETH, assetId: 'eth', balance: '1000000000000000000', decimals: 18 });
  t.same(await both.balanceOf('btc', BTC), { available: true, chain: 'btc', address: BTC, assetId: 'btc', balance: '4000', pending: '250', decimals: 8 });
  const ethOnly = new ChainAdapters({ eth: node.origin, btc: undefined });
  t.equal((await ethOnly.balanceOf('eth', ETH)).available, true);
  t.same(await ethOnly.balanceOf('btc', BTC), { available: false, chain: 'btc', address: BTC, reason: 'no adapter configured for btc (plugins.wallet.chains.btc)' });
  t.equal(api.calls.length, 1, 'the unconfigured chain asked nobody');
});

t.test('a failing adapter or a bad address is unavailable with the error message, not zero', async (t) => {
  const node = await upstream(t, ethNode(() => 1n, () => true));
  const chains = new ChainAdapters({ eth: node.origin });
  const down = await chains.balanceOf('eth', ETH);
  t.same(down, { available: false, chain: 'eth', address: ETH, reason: `the Ethereum node at ${node.origin.slice(7)} answered HTTP 502: bad gateway` });
  t.notOk('balance' in down);
  const bad = await chains.balanceOf('eth', '0x1234');
  t.equal(bad.available, false);
  t.match(bad, { reason: /^an Ethereum address is 0x and 40 hex digits/ });
  const slow = await upstream(t, () => undefined);
  const timed = await new ChainAdapters({ btc: slow.origin }, { timeoutMs: 100 }).balanceOf('btc', BTC);
  t.same(timed, { available: false, chain: 'btc', address: BTC, reason: `the Esplora API at ${slow.origin.slice(7)} did not answer within 100 ms` });
});

t.test('balances are cached per (chain, address) for cacheMs, concurrent asks share one call, failures are not kept', async (t) => {
  let wei = 5n;
  let down = false;
  const node = await upstream(t, (call, res) => setTimeout(() => ethNode(() => wei, () => down)(call, res), 50));
  let now = 1_000_000;
  const chains = new ChainAdapters({ eth: node.origin }, { now: () => now });
  const answers = await Promise.all([1, 2, 3, 4].map(() => chains.balanceOf('eth', ETH)));
  t.equal(node.calls.length, 1, 'four concurrent asks, one upstream call');
  for (const a of answers) t.match(a, { available: true, balance: '5' });
  wei = 6n;
  now += 14_999;
  t.match(await chains.balanceOf('eth', ETH), { balance: '5' }, 'still cached just before 15 s');
  t.equal(node.calls.length, 1);
  const other = ETH.toLowerCase();
  t.match(await chains.balanceOf('eth', other), { balance: '6' }, 'another address is another entry');
  t.equal(node.calls.length, 2);
  now += 1;
  down = true;
  t.match(await chains.balanceOf('eth', ETH), { available: false, reason: /HTTP 502/ }, 'expired: asked again, and the failure is told');
  down = false;
  t.match(await chains.balanceOf('eth', ETH), { available: true, balance: '6' }, 'the failure was not kept');
  t.equal(node.calls.length, 4);
});
