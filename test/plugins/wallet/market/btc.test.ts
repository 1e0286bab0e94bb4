import t from 'tap';
import { rejection } from '../../../fixtures/wait.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bech32, bech32m, createBase58check } from '@scure/base';
import { BtcAdapter, isBtcAddress } from '../../../../plugins/wallet/market/btc.js';
import { MarketError } from '../../../../plugins/wallet/market/errors.js';
import { deadOrigin, json, upstream, type Handler } from './upstream-server.js';

const GENESIS = '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa';
const SEGWIT = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';

const stats = (funded: number | bigint | string, spent: number | bigint | string) => ({ funded_txo_count: 3, funded_txo_sum: funded, spent_txo_count: 1, spent_txo_sum: spent, tx_count: 4 });

/** An Esplora-like API under /api: the address object for any address, as `body` says. */
function esplora(body: (address: string) => unknown): Handler {
  return (call, res) => {
    const m = /^\/api\/address\/([^/?]+)$/.exec(call.url);
    if (call.method !== 'GET' || !m) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
    const answer = body(decodeURIComponent(m[1]!));
    if (typeof answer === 'string') return void res.writeHead(200, { 'content-type': 'application/json' }).end(answer);
    json(res, 200, answer);
  };
}

t.test('isBtcAddress: base58check P2PKH/P2SH and bech32/bech32m segwit, checksums checked', async (t) => {
  const b58 = createBase58check(sha256);
  const hash = new Uint8Array(20).fill(7);
  const good = [
    GENESIS,
    '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy',
    SEGWIT,
    SEGWIT.toUpperCase(),
    'bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3',
    'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7',
    'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0',
    b58.encode(Uint8Array.from([0x6f, ...hash])), // testnet P2PKH (m/n...)
    b58.encode(Uint8Array.from([0xc4, ...hash])), // testnet P2SH (2...)
    bech32.encode('bcrt', [0, ...bech32.toWords(hash)]),
  ];
  for (const a of good) t.ok(isBtcAddress(a), a);
  const bad = [
    '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb', // checksum
    'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5', // checksum
    'bc1qw508d6qejxtdg4c5r3zarvary0c5xw7kv8f3t4', // one letter mistyped
    'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd', // version 1 with a bech32 checksum (BIP 350)
    'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh', // version 0 with a bech32m checksum (BIP 350)
    'bc1rw5uspcuh', // version 3 with a bech32 checksum (BIP 350)
    bech32m.encode('bc', [1, ...bech32m.toWords(Uint8Array.of(1))]), // a 1-byte program
    bech32.encode('bc', [0, ...bech32.toWords(new Uint8Array(25))]), // version 0 of 25 bytes
    'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sL5k7', // mixed case
    bech32m.encode('ltc', [1, ...bech32m.toWords(hash)]), // another chain's prefix
    b58.encode(Uint8Array.from([0x30, ...hash])), // a Litecoin version byte
    '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    '',
    `1${'1'.repeat(40)}`,
  ];
  for (const a of bad) t.notOk(isBtcAddress(a), JSON.stringify(a));
});

t.test('reads <url>/address/<addr>: confirmed balance and mempool change in satoshis', async (t) => {
  const api = await upstream(t, esplora(() => ({ address: SEGWIT, chain_stats: stats(150_000, 50_000), mempool_stats: stats(1_000, 3_000) })));
  const btc = new BtcAdapter({ url: `${api.origin}/api/` });
  t.same(await btc.balance(SEGWIT), { chain: 'btc', address: SEGWIT, assetId: 'btc', balance: '100000', pending: '-2000', decimals: 8 });
  t.equal(api.calls.length, 1);
  t.equal(api.calls[0]!.method, 'GET');
  t.equal(api.calls[0]!.url, `/api/address/${SEGWIT}`, 'the base path kept, one slash');
});

t.test('sums beyond 2^53 satoshis are exact', async (t) => {
  const api = await upstream(t, esplora(() => `{"chain_stats":{"funded_txo_sum":90071992547409930,"spent_txo_sum":1},"mempool_stats":{"funded_txo_sum":0,"spent_txo_sum":0}}`));
  t.equal((await new BtcAdapter({ url: `${api.origin}/api` }).balance(GENESIS)).balance, '90071992547409929');
});

t.test('an invalid address is refused before anything is asked', async (t) => {
  const api = await upstream(t, esplora(() => ({})));
  const btc = new BtcAdapter({ url: `${api.origin}/api` });
  for (const bad of ['1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb', '../../admin', `${SEGWIT}?x=1`]) {
    await t.rejects(btc.balance(bad), { code: 'BTC_ADDRESS_INVALID', kind: 'invalid', data: { field: 'address' } }, bad);
  }
  t.equal(api.calls.length, 0);
});

t.test('malformed address objects are 502s that say what was wrong', async (t) => {
  const cases: Array<[string, unknown, RegExp]> = [
    ['an array', [], /answered something that is not an address object$/],
    ['no chain_stats', { mempool_stats: stats(0, 0) }, /answered without chain_stats$/],
    ['no mempool_stats', { chain_stats: stats(0, 0) }, /answered without mempool_stats$/],
    ['a fractional sum', { chain_stats: stats(1.5, 0), mempool_stats: stats(0, 0) }, /answered chain_stats\.funded_txo_sum that is not a whole number of satoshis$/],
    ['a negative sum', { chain_stats: stats(10, 0), mempool_stats: stats(0, -1) }, /answered mempool_stats\.spent_txo_sum that is not a whole number/],
    ['a sum as a string', { chain_stats: stats('10', 0), mempool_stats: stats(0, 0) }, /funded_txo_sum that is not a whole number/],
    ['more spent than funded', { chain_stats: stats(10, 11), mempool_stats: stats(0, 0) }, /answered chain_stats that spend more than they fund$/],
    ['not JSON', 'Invalid', /answered something that is not JSON/],
  ];
  for (const [what, body, message] of cases) {
    const api = await upstream(t, esplora(() => body));
    const err = await rejection(new BtcAdapter({ url: `${api.origin}/api` }).balance(GENESIS), MarketError);
    t.equal(err.code, 'CHAIN_ADAPTER_FAILED', what);
    t.equal(err.status, 502, what);
    t.match(err.message, message, what);
    t.match(err.message, /^the Esplora API at 127\.0\.0\.1:\d+ /, what);
  }
});

t.test("Esplora's own refusal is quoted: a 400 is 502, a 503 is 503", async (t) => {
  const api = await upstream(t, (call, res) =>
    call.url.endsWith(GENESIS) ? res.writeHead(400, { 'content-type': 'text/plain' }).end('Invalid Bitcoin address') : res.writeHead(503).end('busy'),
  );
  const btc = new BtcAdapter({ url: `${api.origin}/api` });
  let err = await rejection(btc.balance(GENESIS), MarketError);
  t.equal(err.status, 502);
  t.match(err.message, /answered HTTP 400: Invalid Bitcoin address$/);
  err = await rejection(btc.balance(SEGWIT), MarketError);
  t.equal(err.status, 503);
  t.match(err.message, /answered HTTP 503: busy$/);
});

t.test('oversized, slow and unreachable APIs', async (t) => {
  const big = await upstream(t, esplora(() => ({ chain_stats: stats(1, 0), mempool_stats: stats(0, 0), pad: 'x'.repeat(70_000) })));
  let err = await rejection(new BtcAdapter({ url: `${big.origin}/api` }).balance(GENESIS), MarketError);
  t.equal(err.status, 502);
  t.match(err.message, /answered more than 65536 bytes/);
  const slow = await upstream(t, (_c, res) => setTimeout(() => json(res, 200, { chain_stats: stats(1, 0), mempool_stats: stats(0, 0) }), 1_000));
  err = await rejection(new BtcAdapter({ url: `${slow.origin}/api`, timeoutMs: 150 }).balance(GENESIS), MarketError);
  t.equal(err.status, 503);
  t.match(err.message, /did not answer within 150 ms$/);
  const dead = await deadOrigin();
  err = await rejection(new BtcAdapter({ url: `${dead}/api` }).balance(GENESIS), MarketError);
  t.equal(err.status, 503);
  t.match(err.message, /is unreachable/);
});
