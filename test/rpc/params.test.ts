import t from 'tap';
import { base58Encode } from '../../node/crypto/base58.js';
import { parseJson } from '../../node/protocol/json.js';
import { RPC_INVALID_PARAMS, RpcMethodError } from '../../node/rpc/errors.js';
import { address, array, boolean, checkParams, did, hash, hex, object, optionalParam, param, string, uint, type ParamSpec } from '../../node/rpc/params.js';

function failure(specs: readonly ParamSpec[], params: unknown[]): { message: string; data: unknown } {
  try {
    checkParams('m', specs, params);
  } catch (err) {
    if (!(err instanceof RpcMethodError) || err.code !== RPC_INVALID_PARAMS) throw err;
    return { message: err.message, data: err.data };
  }
  throw new Error(`accepted ${JSON.stringify(params)}`);
}

const addr20 = base58Encode(new Uint8Array(20).fill(7));
const addr19 = base58Encode(new Uint8Array(19).fill(7));

t.test('address: base58 of exactly 20 bytes', async (t) => {
  const specs = [param('address', address())];
  t.same(checkParams('m', specs, [addr20]), [addr20]);
  const bad = failure(specs, [addr19]);
  t.equal(bad.message, 'invalid params: address (param 1) must be a base58 address of 20 bytes');
  t.same(bad.data, { param: 'address', position: 1 });
  for (const v of ['0OIl', '', 42, 'x'.repeat(41), base58Encode(new Uint8Array(21))]) failure(specs, [v]);
});

t.test('hash and hex', async (t) => {
  const h = 'ab'.repeat(32);
  t.same(checkParams('m', [param('tx_hash', hash())], [h]), [h]);
  for (const v of ['AB'.repeat(32), '0x' + 'ab'.repeat(31), 'ab'.repeat(31), 'ab'.repeat(33), 7]) {
    t.match(failure([param('tx_hash', hash())], [v]).message, /^invalid params: tx_hash \(param 1\) must be a hash of 64 lowercase hex characters without 0x$/);
  }
  const hx = [param('header_hex', hex({ maxBytes: 4 }))];
  t.same(checkParams('m', hx, ['']), [''], 'empty hex is zero bytes');
  t.same(checkParams('m', hx, ['00ff00ff']), ['00ff00ff']);
  t.equal(failure(hx, ['00ff00ff00']).message, 'invalid params: header_hex (param 1) must be lowercase hex without 0x of at most 4 bytes');
  failure(hx, ['abc']);
  failure(hx, ['ABCD']);
  t.match(failure([param('k', hex({ maxBytes: 4, minBytes: 2 }))], ['00']).message, /of 2 to 4 bytes/);
});

t.test('uint: a non-negative safe integer JSON number', async (t) => {
  const specs = [param('height', uint())];
  t.same(checkParams('m', specs, [0]), [0]);
  t.ok(Object.is(checkParams('m', specs, [-0])[0], 0), '-0 becomes 0');
  t.same(checkParams('m', specs, [Number.MAX_SAFE_INTEGER]), [Number.MAX_SAFE_INTEGER]);
  for (const v of [1.5, -1, '5', 2n ** 60n, true, [], {}]) {
    t.equal(failure(specs, [v]).message, 'invalid params: height (param 1) must be a non-negative integer no larger than 9007199254740991', String(v));
  }
});

t.test('string, did and boolean', async (t) => {
  t.same(checkParams('m', [param('tx_json', string({ maxLength: 5 }))], ['{}']), ['{}']);
  t.equal(failure([param('tx_json', string({ maxLength: 5 }))], ['123456']).message, 'invalid params: tx_json (param 1) must be a string of at most 5 characters');
  t.match(failure([param('s', string({ maxLength: 5, minLength: 1 }))], ['']).message, /of 1 to 5 characters/);
  t.same(checkParams('m', [param('did', did())], ['did:ledger:main:abc']), ['did:ledger:main:abc']);
  for (const v of ['ledger:x', 'did:', 'did:' + 'x'.repeat(300), 3]) t.match(failure([param('did', did())], [v]).message, /did \(param 1\) must be a DID string/);
  t.same(checkParams('m', [param('b', boolean())], [false]), [false]);
  failure([param('b', boolean())], [0]);
});

t.test('array and object name the failing item and member', async (t) => {
  const disclosed = param('disclosed_messages', array(object({ index: uint(), message: hex({ maxBytes: 8 }) }), { max: 2 }));
  const specs = [param('proof_hex', hex({ maxBytes: 8 })), disclosed];
  t.same(checkParams('m', specs, ['00', [{ index: 0, message: 'aa' }]]), ['00', [{ index: 0, message: 'aa' }]]);
  t.equal(
    failure(specs, ['00', [{ index: 0, message: 'aa' }, { index: 1.5, message: 'bb' }]]).message,
    'invalid params: disclosed_messages (param 2) [1].index must be a non-negative integer no larger than 9007199254740991',
  );
  t.same(failure(specs, ['00', [{ index: 1, message: 'bb' }, 5]]).data, { param: 'disclosed_messages', position: 2 });
  t.match(failure(specs, ['00', [{ index: 0 }]]).message, /\(param 2\) \[0\]\.message must be present and lowercase hex/);
  t.match(failure(specs, ['00', [{ index: 0, message: 'aa', extra: 1 }]]).message, /unknown member "extra"/);
  t.match(failure(specs, ['00', [{}, {}, {}]]).message, /must be an array of at most 2 items/);
  t.match(failure(specs, ['00', { 0: {} }]).message, /must be an array/);
});

t.test('count: too many, missing, optional', async (t) => {
  const specs = [param('height', uint()), optionalParam('full', boolean())];
  t.same(checkParams('m', specs, [3]), [3, undefined]);
  t.same(checkParams('m', specs, [3, null]), [3, undefined], 'null stands for a left-out optional param');
  t.same(checkParams('m', specs, [3, true]), [3, true]);
  t.equal(failure(specs, [3, true, 1]).message, 'invalid params: m takes at most 2 params (height, full), got 3');
  t.equal(failure([], [1]).message, 'invalid params: m takes no params, got 1');
  t.equal(failure(specs, []).message, 'invalid params: height (param 1) is required and must be a non-negative integer no larger than 9007199254740991');
  t.equal(failure(specs, [null]).message.startsWith('invalid params: height (param 1) is required'), true);
});

t.test('uint refuses a number written with a fraction or exponent, at the top level and nested', async (t) => {
  const height = [param('height', uint())];
  for (const literal of ['1.0', '1e3', '1e-400', '-0.0']) {
    t.throws(() => checkParams('m', height, parseJson(`[${literal}]`) as unknown[]), { code: RPC_INVALID_PARAMS, data: { param: 'height', position: 1 } }, literal);
  }
  t.same(checkParams('m', height, parseJson('[1000]') as unknown[]), [1000]);
  t.same(checkParams('m', height, [1.0]), [1], 'a value built in JS has no literal to judge');
  const disclosed = [param('d', array(object({ index: uint() }), { max: 2 }))];
  t.throws(() => checkParams('m', disclosed, parseJson('[[{"index":1},{"index":2.0}]]') as unknown[]), { message: /d \(param 1\) \[1\]\.index must be a non-negative integer/ });
  const heights = [param('h', array(uint(), { max: 2 }))];
  t.throws(() => checkParams('m', heights, parseJson('[[1,2e0]]') as unknown[]), { message: /h \(param 1\) \[1\] must be/ });
});

t.test('string without maxLength leaves the bound to the method', async (t) => {
  t.same(checkParams('m', [param('s', string())], ['x'.repeat(100_000)]), ['x'.repeat(100_000)]);
  t.throws(() => checkParams('m', [param('s', string())], [5]), { message: /s \(param 1\) must be a string$/ });
  t.throws(() => checkParams('m', [param('s', string({ minLength: 2 }))], ['x']), { message: /must be a string of at least 2 characters$/ });
});
