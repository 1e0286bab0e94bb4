import { request as httpRequest } from 'node:http';
import t, { type Test } from 'tap';
import { RpcClient } from '../../node/client/rpc-client.js';
import { base58Encode } from '../../node/crypto/base58.js';
import { LedgerError, invalid } from '../../node/errors.js';
import { HttpServer, type HttpLog } from '../../node/http/server.js';
import { parseJson, stringifyJson } from '../../node/protocol/json.js';
import { RPC_DISABLED, RpcMethodError } from '../../node/rpc/errors.js';
import { address, array, hex, object, optionalParam, param, string, uint } from '../../node/rpc/params.js';
import { createRpcServer, defineMethod } from '../../node/rpc/server.js';
import { bigIntegerRequest } from '../../bench/lib/codec-inputs.js';

const BIG = 2n ** 60n + 7n;
const ADDR = base58Encode(new Uint8Array(20).fill(9));

function methods(state: { notified: number }) {
  return [
    defineMethod({ name: 'test_echo', params: [param('text', string({ maxLength: 100 }))] as const, handler: (text) => text }),
    defineMethod({ name: 'test_big', params: [], handler: () => BIG }),
    defineMethod({ name: 'test_double', params: [param('n', uint())], handler: (n) => BigInt(n) * 2n ** 40n }),
    defineMethod({ name: 'test_balance', params: [param('address', address())], handler: async (a) => ({ address: a, balance: 123456789012345678901234567890n }) }),
    defineMethod({
      name: 'test_bbs',
      params: [param('proof_hex', hex({ maxBytes: 16 })), param('disclosed_messages', array(object({ index: uint(), message: hex({ maxBytes: 8 }) }), { max: 4 })), optionalParam('total', uint())],
      handler: (proof, disclosed, total) => ({ proof, indexes: disclosed.map((d) => d.index), total: total ?? null }),
    }),
    defineMethod({ name: 'test_void', params: [], handler: () => undefined }),
    defineMethod({
      name: 'test_boom',
      params: [],
      handler: () => {
        throw new Error('secret database path /var/lib/x');
      },
    }),
    defineMethod({
      name: 'test_nonce',
      params: [],
      handler: async () => {
        throw new LedgerError('NONCE_TOO_LOW', 'nonce 3 is below the next nonce 5', 'conflict', { expected: 5, got: 3 });
      },
    }),
    defineMethod({
      name: 'test_badTx',
      params: [],
      handler: () => {
        throw invalid('MALFORMED_TRANSACTION', 'tx_json has no signature', { field: 'signature' });
      },
    }),
    defineMethod({
      name: 'test_disabled',
      params: [],
      handler: () => {
        throw new RpcMethodError(RPC_DISABLED, 'test_disabled is disabled on this node');
      },
    }),
    defineMethod({ name: 'test_bytes', params: [], handler: () => new Uint8Array(3) }),
    defineMethod({
      name: 'test_notify',
      params: [],
      handler: () => {
        state.notified++;
        return true;
      },
    }),
  ];
}

function captureLog(): HttpLog & { errors: Array<{ obj: Record<string, unknown>; msg?: string }> } {
  const errors: Array<{ obj: Record<string, unknown>; msg?: string }> = [];
  return {
    errors,
    debug: () => undefined,
    warn: () => undefined,
    error: (obj, msg) => void errors.push({ obj: obj as Record<string, unknown>, ...(msg !== undefined ? { msg } : {}) }),
  };
}

interface Answer {
  status: number;
  type: string | null;
  text: string;
  body: unknown;
}

async function start(t: Test, opts: { maxBatch?: number; maxBodyBytes?: number } = {}) {
  const state = { notified: 0 };
  const log = captureLog();
  const http = new HttpServer({ host: '127.0.0.1', port: 0, maxBodyBytes: 16 * 1024 * 1024, log });
  createRpcServer({ methods: methods(state), log, ...opts }).mount(http);
  const { port } = await http.listen();
  t.teardown(() => http.close());
  const url = `http://127.0.0.1:${port}/`;
  const post = async (body: string, headers: Record<string, string> = { 'content-type': 'application/json' }): Promise<Answer> => {
    const res = await fetch(url, { method: 'POST', body, headers });
    const text = await res.text();
    return { status: res.status, type: res.headers.get('content-type'), text, body: text ? parseJson(text) : undefined };
  };
  const call = (method: string, params?: unknown, id: unknown = 1) => post(stringifyJson({ jsonrpc: '2.0', method, ...(params !== undefined ? { params } : {}), id }));
  // After every bad request the server must still answer a good one.
  const alive = async () => t.same((await call('test_echo', ['still here'])).body, { jsonrpc: '2.0', id: 1, result: 'still here' }, 'still answering');
  return { state, log, url, port, post, call, alive };
}

t.test('results, including integers beyond 2^53 written exactly', async (t) => {
  const { call, post } = await start(t);
  const echo = await call('test_echo', ['hi'], 'abc');
  t.equal(echo.status, 200);
  t.match(echo.type, /^application\/json/);
  t.same(echo.body, { jsonrpc: '2.0', id: 'abc', result: 'hi' });
  const big = await call('test_big');
  t.equal(big.text, `{"jsonrpc":"2.0","id":1,"result":${BIG}}`, 'params omitted; bigint is a bare literal');
  t.equal((await call('test_big', [])).text, big.text, 'an empty params array is the same as none');
  t.equal((await call('test_double', [2 ** 52])).text, `{"jsonrpc":"2.0","id":1,"result":${2n ** 92n}}`);
  t.equal((await call('test_balance', [ADDR])).text, `{"jsonrpc":"2.0","id":1,"result":{"address":"${ADDR}","balance":123456789012345678901234567890}}`);
  t.same((await call('test_void')).body, { jsonrpc: '2.0', id: 1, result: null }, 'undefined is sent as null');
  t.same((await call('test_bbs', ['00ff', [{ index: 2, message: 'aa' }]])).body, { jsonrpc: '2.0', id: 1, result: { proof: '00ff', indexes: [2], total: null } });
  const hugeId = await post('{"jsonrpc":"2.0","method":"test_echo","params":["x"],"id":18446744073709551617}');
  t.equal(hugeId.text, '{"jsonrpc":"2.0","id":18446744073709551617,"result":"x"}', 'a huge id is echoed exactly');
  t.same((await call('test_echo', ['n'], null)).body, { jsonrpc: '2.0', id: null, result: 'n' }, 'id null is a request, not a notification');
});

t.test('-32700 parse errors', async (t) => {
  const { post, url, alive } = await start(t);
  for (const body of ['{"jsonrpc":"2.0","method":"test_big","id":1', '', '{,}', '{"a":1,"a":2}', "{'jsonrpc':'2.0'}", '[1,]']) {
    const r = await post(body);
    t.equal(r.status, 200);
    t.match(r.body, { jsonrpc: '2.0', id: null, error: { code: -32700, message: /^parse error: invalid JSON at byte \d+/ } }, JSON.stringify(body));
    await alive();
  }
  const bad = await post('{"x": 1 2}');
  t.same(bad.body, { jsonrpc: '2.0', id: null, error: { code: -32700, message: "parse error: invalid JSON at byte 8: unexpected character '2'", data: { position: 8 } } });
  const utf8 = await fetch(url, { method: 'POST', body: Buffer.from([0x22, 0xff, 0x22]), headers: { 'content-type': 'application/json' } });
  t.match(parseJson(await utf8.text()), { error: { code: -32700, message: /not valid UTF-8/ } });
  const deep = await post('['.repeat(65) + ']'.repeat(65));
  t.match(deep.body, { error: { code: -32700, message: /deeper than 64/ } });
});

t.test('-32600 invalid requests', async (t) => {
  const { post, call, alive } = await start(t);
  const cases: Array<[string, RegExp, unknown]> = [
    ['1', /a request must be a JSON object/, null],
    ['"x"', /a request must be a JSON object/, null],
    ['null', /a request must be a JSON object/, null],
    ['{"method":"test_big","id":1}', /jsonrpc must be "2.0"/, 1],
    ['{"jsonrpc":"1.0","method":"test_big","id":2}', /jsonrpc must be "2.0"/, 2],
    ['{"jsonrpc":2.0,"method":"test_big","id":3}', /jsonrpc must be "2.0"/, 3],
    ['{"jsonrpc":"2.0","method":1,"id":4}', /method must be a string/, 4],
    ['{"jsonrpc":"2.0","id":5}', /method must be a string/, 5],
    ['{"jsonrpc":"2.0","method":"test_big","id":{}}', /id must be a string, a number or null/, null],
    ['{"jsonrpc":"2.0","method":"test_big","id":[1]}', /id must be/, null],
    ['{"jsonrpc":"2.0","method":"test_big","params":"x","id":6}', /params must be an array/, 6],
    ['{"jsonrpc":"2.0","method":"test_big","params":null,"id":7}', /params must be an array/, 7],
    ['[]', /empty batch/, null],
  ];
  for (const [body, message, id] of cases) {
    const r = await post(body);
    t.equal(r.status, 200);
    t.match(r.body, { jsonrpc: '2.0', id, error: { code: -32600, message } }, body);
    await alive();
  }
  const noId = await post('{"jsonrpc":"2.0","method":1}');
  t.match(noId.body, { id: null, error: { code: -32600 } }, 'an invalid request without id still gets an answer');
  t.match((await call('test_big', undefined, true)).body, { id: null, error: { code: -32600, message: /id must be/ } }, 'a boolean id');
});

t.test('-32601 names the method', async (t) => {
  const { call, alive } = await start(t);
  t.same((await call('ledger_getAccount', [ADDR], 9)).body, { jsonrpc: '2.0', id: 9, error: { code: -32601, message: 'method not found: ledger_getAccount' } });
  t.same((await call('toString')).body, { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'method not found: toString' } });
  await alive();
});

t.test('-32602 invalid params', async (t) => {
  const { call, alive } = await start(t);
  const cases: Array<[string, unknown, string]> = [
    ['test_balance', ['short'], 'invalid params: address (param 1) must be a base58 address of 20 bytes'],
    ['test_balance', [], 'invalid params: address (param 1) is required and must be a base58 address of 20 bytes'],
    ['test_balance', [ADDR, 1], 'invalid params: test_balance takes at most 1 param (address), got 2'],
    ['test_big', [1], 'invalid params: test_big takes no params, got 1'],
    ['test_double', [1.5], 'invalid params: n (param 1) must be a non-negative integer no larger than 9007199254740991'],
    ['test_double', ['7'], 'invalid params: n (param 1) must be a non-negative integer no larger than 9007199254740991'],
    ['test_double', [-1], 'invalid params: n (param 1) must be a non-negative integer no larger than 9007199254740991'],
    ['test_double', [2n ** 64n], 'invalid params: n (param 1) must be a non-negative integer no larger than 9007199254740991'],
    ['test_bbs', ['00', [{ index: 0, message: 'AA' }]], 'invalid params: disclosed_messages (param 2) [0].message must be lowercase hex without 0x of at most 8 bytes'],
    ['test_balance', { address: ADDR }, 'invalid params: params must be a positional array; named params (an object) are not supported'],
  ];
  for (const [method, params, message] of cases) {
    const r = await call(method, params);
    t.equal(r.status, 200);
    t.match(r.body, { jsonrpc: '2.0', id: 1, error: { code: -32602, message } }, message);
    await alive();
  }
  t.same(((await call('test_balance', ['short'])).body as { error: unknown }).error, {
    code: -32602,
    message: 'invalid params: address (param 1) must be a base58 address of 20 bytes',
    data: { param: 'address', position: 1 },
  });
  t.same(((await call('test_badTx')).body as { error: unknown }).error, {
    code: -32602,
    message: 'tx_json has no signature',
    data: { code: 'MALFORMED_TRANSACTION', field: 'signature' },
  }, 'a LedgerError of kind invalid is -32602 with its code in data');
});

t.test('-32603 internal errors are logged, never leaked', async (t) => {
  const { call, log, alive } = await start(t);
  const r = await call('test_boom');
  t.same(r.body, { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'internal error' } });
  t.notMatch(r.text, /secret|var\/lib|at /);
  t.equal(log.errors.length, 1);
  t.equal((log.errors[0]!.obj.err as Error).message, 'secret database path /var/lib/x');
  t.equal(log.errors[0]!.obj.method, 'test_boom');
  const bytes = await call('test_bytes');
  t.same(bytes.body, { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'internal error' } }, 'an unencodable result is an internal error');
  t.equal(log.errors.length, 2);
  await alive();
});

t.test('domain errors: -32000 with data, -32001 disabled', async (t) => {
  const { call } = await start(t);
  t.same((await call('test_nonce')).body, {
    jsonrpc: '2.0',
    id: 1,
    error: { code: -32000, message: 'nonce 3 is below the next nonce 5', data: { code: 'NONCE_TOO_LOW', expected: 5, got: 3 } },
  });
  t.same((await call('test_disabled')).body, { jsonrpc: '2.0', id: 1, error: { code: -32001, message: 'test_disabled is disabled on this node' } });
});

t.test('notifications and batches', async (t) => {
  const { post, state, alive } = await start(t);
  const single = await post('{"jsonrpc":"2.0","method":"test_notify"}');
  t.equal(single.status, 204);
  t.equal(single.text, '');
  t.equal(state.notified, 1, 'a notification runs');
  const failing = await post('{"jsonrpc":"2.0","method":"test_boom"}');
  t.equal(failing.status, 204, 'a failing notification gets no answer');
  const onlyNotes = await post('[{"jsonrpc":"2.0","method":"test_notify"},{"jsonrpc":"2.0","method":"nope"},{"jsonrpc":"2.0","method":"test_balance","params":["x"]}]');
  t.equal(onlyNotes.status, 204, 'a batch of notifications gets no body');
  t.equal(state.notified, 2);

  const mixed = await post(
    stringifyJson([
      { jsonrpc: '2.0', method: 'test_echo', params: ['a'], id: 1 },
      { jsonrpc: '2.0', method: 'test_notify' },
      { jsonrpc: '2.0', method: 'test_big', id: 'two' },
      { jsonrpc: '2.0', method: 'missing', id: 3 },
      { foo: 'boo' },
      5,
      { jsonrpc: '2.0', method: 'test_double', params: ['x'], id: 4 },
    ]),
  );
  t.equal(mixed.status, 200);
  t.same(mixed.body, [
    { jsonrpc: '2.0', id: 1, result: 'a' },
    { jsonrpc: '2.0', id: 'two', result: BIG },
    { jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'method not found: missing' } },
    { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request: jsonrpc must be "2.0"' } },
    { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request: a request must be a JSON object' } },
    { jsonrpc: '2.0', id: 4, error: { code: -32602, message: 'invalid params: n (param 1) must be a non-negative integer no larger than 9007199254740991', data: { param: 'n', position: 1 } } },
  ]);
  const one = await post('[{"jsonrpc":"2.0","method":"test_echo","params":["solo"],"id":1}]');
  t.same(one.body, [{ jsonrpc: '2.0', id: 1, result: 'solo' }], 'a batch of one is answered with an array');
  const withBytes = await post('[{"jsonrpc":"2.0","method":"test_bytes","id":1},{"jsonrpc":"2.0","method":"test_big","id":2}]');
  t.same(withBytes.body, [
    { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'internal error' } },
    { jsonrpc: '2.0', id: 2, result: BIG },
  ], 'one unencodable result does not spoil the batch');
  await alive();
});

t.test('batch limit', async (t) => {
  const { post, alive } = await start(t, { maxBatch: 3 });
  const req = (i: number) => ({ jsonrpc: '2.0', method: 'test_echo', params: [String(i)], id: i });
  t.equal(((await post(stringifyJson([0, 1, 2].map(req)))).body as unknown[]).length, 3);
  const over = await post(stringifyJson([0, 1, 2, 3].map(req)));
  t.same(over.body, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request: batch of 4 requests exceeds the limit of 3' } });
  await alive();
  const dflt = await start(t);
  const hundredOne = await dflt.post(stringifyJson(Array.from({ length: 101 }, (_, i) => req(i))));
  t.match(hundredOne.body, { error: { code: -32600, message: /batch of 101 requests exceeds the limit of 100/ } });
});

t.test('body limit: 413 with a Problem that is also a JSON-RPC error response', async (t) => {
  const { post, port, alive } = await start(t);
  const big = stringifyJson({ jsonrpc: '2.0', method: 'test_echo', params: ['x'.repeat(1024 * 1024)], id: 1 });
  const r = await post(big);
  t.equal(r.status, 413);
  const tooLarge = { type: '/errors/413', status: 413, code: 'BODY_TOO_LARGE', maxBytes: 1048576, jsonrpc: '2.0', id: null, error: { code: -32600, message: 'request body exceeds 1048576 bytes' } };
  t.match(r.body, tooLarge);
  await alive();
  // streamed without Content-Length
  const streamed = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: '/', method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', reject);
    });
    req.on('error', () => undefined);
    req.write('{"jsonrpc":"2.0","method":"test_echo","params":["');
    const chunk = 'y'.repeat(64 * 1024);
    let n = 0;
    const pump = () => {
      while (n++ < 64) if (!req.write(chunk)) return void req.once('drain', pump);
      req.end('"],"id":1}');
    };
    pump();
  });
  t.equal(streamed.status, 413);
  t.match(parseJson(streamed.text), tooLarge);
  await alive();

  const small = await start(t, { maxBodyBytes: 64 });
  t.match((await small.post(stringifyJson({ jsonrpc: '2.0', method: 'test_echo', params: ['z'.repeat(64)], id: 1 }))).body, {
    error: { code: -32600, message: 'request body exceeds 64 bytes' },
  });
});

t.test('transport: content type, method, and near-limit bodies', async (t) => {
  const { post, url, alive } = await start(t);
  const ok = '{"jsonrpc":"2.0","method":"test_echo","params":["ct"],"id":1}';
  const bare = await new Promise<number>((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST' }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(ok);
  });
  t.equal(bare, 200, 'no content type is accepted');
  t.equal((await post(ok, {})).status, 415, 'text/plain (what fetch sends by default) is not');
  t.equal((await post(ok, { 'content-type': 'application/json; charset=UTF-8' })).status, 200);
  t.equal((await post(ok, { 'content-type': 'application/json-rpc' })).status, 200);
  const html = await post(ok, { 'content-type': 'text/html' });
  t.equal(html.status, 415);
  t.match(html.body, { jsonrpc: '2.0', id: null, error: { code: -32600, message: /unsupported content type "text\/html"; send application\/json/ } });
  t.equal((await post(ok, { 'content-type': 'application/x-www-form-urlencoded' })).status, 415);
  t.equal((await post(ok, { 'content-type': 'application/json; charset=latin1' })).status, 415);
  const get = await fetch(url);
  t.equal(get.status, 405);
  t.match(get.headers.get('allow'), /POST/);
  await alive();
  // a request of 40,000 integers above 2^64 is parsed to its end (how fast: npm run bench:codec)
  const many = await post(bigIntegerRequest('test_echo', 40_000));
  t.match(many.body, { error: { code: -32602, message: 'invalid params: test_echo takes at most 1 param (text), got 40000' } });
});

t.test('method definitions are typed and unique', async (t) => {
  defineMethod({
    name: 'typed',
    params: [param('n', uint()), optionalParam('s', string({ maxLength: 3 }))],
    handler: (n: number, s: string | undefined) => n + (s?.length ?? 0),
  });
  defineMethod({
    name: 'typed_wrong',
    params: [param('n', uint())],
    // @ts-expect-error n is a number, not a string
    handler: (n: string) => n,
  });
  t.throws(() => createRpcServer({ methods: [...methods({ notified: 0 }), ...methods({ notified: 0 })] }), { code: 'RPC_DUPLICATE_METHOD' });
});

t.test('the project client talks to this server losslessly', async (t) => {
  const { url } = await start(t);
  const client = new RpcClient(url);
  t.equal(await client.call('test_big'), BIG);
  t.same(await client.call('test_balance', [ADDR]), { address: ADDR, balance: 123456789012345678901234567890n });
  await t.rejects(client.call('test_nonce'), { code: -32000, data: { code: 'NONCE_TOO_LOW' } });
  const batch = await client.batch([{ method: 'test_echo', params: ['b'] }, { method: 'nope' }]);
  t.match(batch, [{ ok: true, result: 'b' }, { ok: false, error: { code: -32601 } }]);
});
