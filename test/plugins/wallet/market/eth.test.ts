import t from 'tap';
import { rejection } from '../../../fixtures/wait.js';
import { isLedgerError } from '../../../../node/errors.js';
import { EthAdapter, isEthAddress } from '../../../../plugins/wallet/market/eth.js';
import { MarketError } from '../../../../plugins/wallet/market/errors.js';
import { deadOrigin, json, upstream, type Handler } from './upstream-server.js';

const ADDRESS = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

/** A JSON-RPC node whose eth_getBalance answers `result` (or whatever `answer` says). */
function rpc(result: unknown): Handler {
  return (call, res) => {
    const req = JSON.parse(call.body) as { id: unknown };
    json(res, 200, { jsonrpc: '2.0', id: req.id, result });
  };
}

t.test('isEthAddress: 0x and 40 hex digits; a mixed-case address must carry a valid EIP-55 checksum', async (t) => {
  for (const good of [ADDRESS, '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359', '0xdbf03b407c01e7cd3cbea99509d93f8dddc8c6fb', '0xD1220A0CF47C7B9BE7A2E6BA89F429762E7B9ADB']) {
    t.ok(isEthAddress(good), good);
  }
  const bad = [
    '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD', // last letter's case flipped: the checksum fails
    '5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beae',
    '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed0',
    '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaeg',
    '',
  ];
  for (const b of bad) t.notOk(isEthAddress(b), JSON.stringify(b));
});

t.test('reads the balance with eth_getBalance at latest and answers wei as a decimal string', async (t) => {
  const node = await upstream(t, rpc('0x1bc16d674ec80000'));
  const eth = new EthAdapter({ url: `${node.origin}/rpc` });
  t.same(await eth.balance(ADDRESS), { chain: 'eth', address: ADDRESS, assetId: 'eth', balance: '2000000000000000000', decimals: 18 });
  t.equal(node.calls.length, 1);
  const call = node.calls[0]!;
  t.equal(call.method, 'POST');
  t.equal(call.url, '/rpc');
  t.match(call.headers['content-type'], /^application\/json/);
  t.same(JSON.parse(call.body), { jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [ADDRESS, 'latest'] });
});

t.test('a balance beyond 2^64 wei comes back exact, and zero is 0', async (t) => {
  let result = '0xffffffffffffffffffffffffff';
  const node = await upstream(t, (call, res) => rpc(result)(call, res));
  const eth = new EthAdapter({ url: node.origin });
  t.equal((await eth.balance(ADDRESS)).balance, (2n ** 104n - 1n).toString());
  result = '0x0';
  t.equal((await eth.balance(ADDRESS)).balance, '0');
});

t.test('an invalid address is refused before anything is asked', async (t) => {
  const node = await upstream(t, rpc('0x1'));
  const eth = new EthAdapter({ url: node.origin });
  for (const bad of ['0x123', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD', 'bc1qw508d6qejxtdg4c5r3zarvary0c5xw7kv8f3t4']) {
    await t.rejects(eth.balance(bad), { code: 'ETH_ADDRESS_INVALID', kind: 'invalid', data: { field: 'address' } }, bad);
  }
  t.equal(node.calls.length, 0);
});

t.test('a JSON-RPC error is a 502 CHAIN_ADAPTER_FAILED that quotes the node', async (t) => {
  const node = await upstream(t, (_call, res) => json(res, 200, { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'invalid argument 0: hex string has length 38' } }));
  const err = await rejection(new EthAdapter({ url: node.origin }).balance(ADDRESS), MarketError);
  t.ok(isLedgerError(err));
  t.equal(err.code, 'CHAIN_ADAPTER_FAILED');
  t.equal(err.kind, 'disabled');
  t.equal(err.status, 502);
  t.equal(err.message, `the Ethereum node at ${node.origin.slice(7)} answered eth_getBalance with JSON-RPC error -32602: invalid argument 0: hex string has length 38`);
});

t.test('malformed answers are 502s that say what was wrong', async (t) => {
  const cases: Array<[string, Handler, RegExp]> = [
    ['not JSON', (_c, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('<html>oops</html>'), /answered something that is not JSON \(invalid JSON at byte 0/],
    ['an array', (_c, res) => json(res, 200, [{ jsonrpc: '2.0', id: 1, result: '0x1' }]), /answered something that is not a JSON-RPC response$/],
    ['another id', (_c, res) => json(res, 200, { jsonrpc: '2.0', id: 2, result: '0x1' }), /not a JSON-RPC 2\.0 response to the request$/],
    ['no jsonrpc member', (_c, res) => json(res, 200, { id: 1, result: '0x1' }), /not a JSON-RPC 2\.0 response to the request$/],
    ['a result that is not hex', rpc('0xzz'), /answered eth_getBalance with "0xzz", not a hex quantity$/],
    ['a decimal number', rpc(1000), /answered eth_getBalance with number, not a hex quantity$/],
    ['no result', rpc(undefined), /answered eth_getBalance with undefined, not a hex quantity$/],
    ['a quantity over 256 bits', rpc(`0x1${'0'.repeat(64)}`), /not a hex quantity$/],
    ['bytes that are not UTF-8', (_c, res) => res.writeHead(200).end(Buffer.from([0x7b, 0xff, 0x7d])), /answered something that is not UTF-8$/],
  ];
  for (const [what, handler, message] of cases) {
    const node = await upstream(t, handler);
    const err = await rejection(new EthAdapter({ url: node.origin }).balance(ADDRESS), MarketError);
    t.equal(err.status, 502, what);
    t.match(err.message, message, what);
  }
});

t.test('an answer over the size bound is refused, declared or streamed', async (t) => {
  const big = JSON.stringify({ jsonrpc: '2.0', id: 1, result: '0x1', pad: 'x'.repeat(70_000) });
  const declared = await upstream(t, (_c, res) => res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(big) }).end(big));
  let err = await rejection(new EthAdapter({ url: declared.origin }).balance(ADDRESS), MarketError);
  t.equal(err.status, 502);
  t.match(err.message, /answered more than 65536 bytes \(70\d{3}\)$/);
  const streamed = await upstream(t, (_c, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    for (let i = 0; i < 10; i++) res.write(big.slice(i * 7_100, (i + 1) * 7_100));
    res.end(big.slice(71_000));
  });
  err = await rejection(new EthAdapter({ url: streamed.origin }).balance(ADDRESS), MarketError);
  t.equal(err.status, 502);
  t.match(err.message, /answered more than 65536 bytes$/);
  // a smaller bound is honoured
  const small = await upstream(t, rpc('0x1'));
  err = await rejection(new EthAdapter({ url: small.origin, maxBytes: 20 }).balance(ADDRESS), MarketError);
  t.match(err.message, /answered more than 20 bytes/);
});

t.test('a node that does not answer in time, stops halfway or breaks off is a 503', async (t) => {
  // a node that never answers: only the timeout can end the call
  const silent = await upstream(t, () => undefined);
  let err = await rejection(new EthAdapter({ url: silent.origin, timeoutMs: 150 }).balance(ADDRESS), MarketError);
  t.equal(err.status, 503);
  t.equal(err.message, `the Ethereum node at ${silent.origin.slice(7)} did not answer within 150 ms`);
  const halfway = await upstream(t, (_c, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"jsonrpc":"2.0",');
  });
  err = await rejection(new EthAdapter({ url: halfway.origin, timeoutMs: 150 }).balance(ADDRESS), MarketError);
  t.equal(err.status, 503);
  t.match(err.message, /did not answer within 150 ms$/);
  const broken = await upstream(t, (_c, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"jsonrpc":"2.0",', () => res.destroy());
  });
  err = await rejection(new EthAdapter({ url: broken.origin }).balance(ADDRESS), MarketError);
  t.equal(err.status, 503);
  t.match(err.message, /broke off its answer \(.+\)$/);
});

t.test('HTTP errors: 5xx is 503, another refusal 502, both quote the reason; a redirect is not followed', async (t) => {
  const down = await upstream(t, (_c, res) => json(res, 500, { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'header not found' } }));
  let err = await rejection(new EthAdapter({ url: down.origin }).balance(ADDRESS), MarketError);
  t.equal(err.status, 503);
  t.match(err.message, /answered HTTP 500: header not found$/);
  const refused = await upstream(t, (_c, res) => res.writeHead(401, { 'content-type': 'text/plain' }).end('invalid project id\nmore'));
  err = await rejection(new EthAdapter({ url: refused.origin }).balance(ADDRESS), MarketError);
  t.equal(err.status, 502);
  t.match(err.message, /answered HTTP 401: invalid project id$/);
  const redirect = await upstream(t, (_c, res) => res.writeHead(302, { location: 'http://127.0.0.1:1/' }).end());
  err = await rejection(new EthAdapter({ url: redirect.origin }).balance(ADDRESS), MarketError);
  t.equal(err.status, 502);
  t.equal(err.message, `the Ethereum node at ${redirect.origin.slice(7)} answered a redirect (HTTP 302), which is not followed: configure the final URL`);
});

t.test('an unreachable node is a 503, and the URL path (an API key) is never quoted', async (t) => {
  const origin = await deadOrigin();
  const err = await rejection(new EthAdapter({ url: `${origin}/v3/SECRETKEY` }).balance(ADDRESS), MarketError);
  t.equal(err.status, 503);
  t.match(err.message, /^the Ethereum node at 127\.0\.0\.1:\d+ is unreachable \(.+\)$/);
  t.notMatch(err.message, /SECRETKEY/);
  t.same(err.data, { upstream: origin.slice(7), status: 503 });
});
