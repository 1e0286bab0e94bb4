import t from 'tap';
import { isLedgerError } from '../../node/errors.js';
import { findNonIntegerLiteral, nonIntegerLiteral, parseJson, stringifyJson } from '../../node/protocol/json.js';
import { jsonRecords, type JsonRecord } from '../../bench/lib/codec-inputs.js';

function parseError(text: string, opts?: { maxDepth?: number }): { message: string; position: unknown } {
  try {
    parseJson(text, opts);
  } catch (err) {
    if (!isLedgerError(err) || err.code !== 'JSON_PARSE') throw err;
    return { message: err.message, position: err.data.position };
  }
  throw new Error(`parsed without error: ${text}`);
}

t.test('integers beyond the safe range become bigint and round-trip exactly', async (t) => {
  const big = 2n ** 64n + 1n;
  t.equal(parseJson('18446744073709551617'), big);
  t.equal(parseJson('-18446744073709551617'), -big);
  t.equal(parseJson(String(2n ** 60n)), 2n ** 60n);
  t.equal(stringifyJson({ amount: 2n ** 60n }), '{"amount":1152921504606846976}');
  const doc = { a: big, b: [2n ** 60n, -(2n ** 200n)], c: 'x' };
  t.same(parseJson(stringifyJson(doc)), doc);
  t.equal(stringifyJson(parseJson('[123456789012345678901234567890]')), '[123456789012345678901234567890]');
});

t.test('safe integers and other numbers stay numbers', async (t) => {
  t.equal(parseJson('9007199254740991'), Number.MAX_SAFE_INTEGER);
  t.equal(parseJson('-9007199254740991'), -Number.MAX_SAFE_INTEGER);
  t.equal(parseJson('9007199254740992'), 2n ** 53n);
  t.equal(parseJson('0'), 0);
  t.equal(parseJson('1.5'), 1.5);
  t.equal(parseJson('1e3'), 1000);
  t.equal(parseJson('12345678901234567890.5'), 12345678901234567890.5, 'a fraction is a number even when large');
  t.equal(parseJson('-1.25E-2'), -0.0125);
  t.equal(typeof parseJson('100000000000000000000e0'), 'number', 'an exponent makes it a number');
});

t.test('-0 parses to -0 and is written as 0', async (t) => {
  t.ok(Object.is(parseJson('-0'), -0));
  t.ok(Object.is(parseJson('-0.0'), -0));
  t.equal(stringifyJson(-0), '0');
});

t.test('strings, escapes and unicode', async (t) => {
  t.equal(parseJson('"a\\"b\\\\c\\/d\\b\\f\\n\\r\\t"'), 'a"b\\c/d\b\f\n\r\t');
  t.equal(parseJson('"\\u00e9\\uD83D\\uDE00"'), 'é😀');
  t.equal(parseJson('"é😀"'), 'é😀');
  t.match(parseError('"\\uD800"'), { message: /byte 0: string is not well-formed Unicode \(lone surrogate U\+D800\)/, position: 0 }, 'a lone high surrogate escape is refused');
  t.match(parseError('["ok", "a\\uDC00"]'), { message: /not well-formed Unicode \(lone surrogate U\+DC00\)/, position: 7 }, 'a lone low surrogate escape');
  t.match(parseError('{"k\uD800": 1}'), { message: /not well-formed Unicode/, position: 1 }, 'a raw lone surrogate, in a key too');
  t.match(parseError('"\\uDE00\\uD83D"'), { message: /not well-formed Unicode/ }, 'a reversed pair');
  t.equal(stringifyJson('\uD800'), '"\\ud800"', 'and written back as an escape');
  const tricky = 'tab\t nl\n quote" back\\ \u0001 \u2028';
  t.equal(parseJson(stringifyJson(tricky)), tricky);
});

t.test('objects: plain, duplicate keys and __proto__ rejected', async (t) => {
  t.same(parseJson(' { "a" : [ 1 , { } , [ ] ] , "b" : null , "c" : true , "d" : false } '), { a: [1, {}, []], b: null, c: true, d: false });
  const dup = parseError('{"a":1,"a":2}');
  t.match(dup.message, /duplicate key "a"/);
  t.equal(dup.position, 7);
  t.match(parseError('{"__proto__":{"polluted":true}}').message, /__proto__/);
  t.equal(({} as Record<string, unknown>).polluted, undefined);
  const withCtor = parseJson('{"constructor":1,"toString":2}') as Record<string, unknown>;
  t.equal(withCtor.constructor, 1, 'other keys are ordinary own properties');
});

t.test('nesting depth is limited', async (t) => {
  const nested = (n: number) => '['.repeat(n) + ']'.repeat(n);
  t.doesNotThrow(() => parseJson(nested(64)));
  const e = parseError(nested(65));
  t.match(e.message, /nesting deeper than 64 levels/);
  t.equal(e.position, 64);
  t.match(parseError('{"a":{"a":{}}}', { maxDepth: 2 }).message, /deeper than 2/);
  t.match(parseError(nested(100_000)).message, /deeper/, 'no stack overflow on absurd depth');
});

t.test('invalid JSON is rejected with the byte position', async (t) => {
  const cases: Array<[string, RegExp, number]> = [
    ['', /unexpected end of input/, 0],
    ['   ', /unexpected end of input/, 3],
    ['[1,2,]', /unexpected character '\]'/, 5],
    ['{"a":1,}', /unexpected character '\}'/, 7],
    ["{'a':1}", /unexpected character '''/, 1],
    ["'a'", /unexpected character '''/, 0],
    ['"a\nb"', /unescaped control character U\+000A/, 2],
    ['"a\u0000"', /control character U\+0000/, 2],
    ['"abc', /unterminated string/, 4],
    ['"\\x"', /invalid escape \\x/, 1],
    ['"\\u12"', /four hex digits/, 1],
    ['01', /leading zeros/, 1],
    ['-', /unexpected end of input/, 1],
    ['+1', /unexpected character '\+'/, 0],
    ['.5', /unexpected character '\.'/, 0],
    ['1.', /digit must follow the decimal point/, 2],
    ['1e', /digit must follow the exponent/, 2],
    ['1e400', /out of range/, 0],
    ['NaN', /unexpected character 'N'/, 0],
    ['Infinity', /unexpected character 'I'/, 0],
    ['tru', /unexpected character 't'/, 0],
    ['{"a" 1}', /unexpected character '1'/, 5],
    ['[1 2]', /unexpected character '2'/, 3],
    ['{} {}', /after the JSON value/, 3],
    ['\uFEFF{}', /U\+FEFF/, 0],
    ['[1,\u00a0 2]', /U\+00A0/, 3],
    ['{1:2}', /unexpected character '1'/, 1],
    ['"é" x', /after the JSON value/, 5],
  ];
  for (const [text, message, position] of cases) {
    const e = parseError(text);
    t.match(e.message, message, JSON.stringify(text));
    t.equal(e.position, position, `position of ${JSON.stringify(text)}`);
  }
});

t.test('stringify refuses what it cannot encode faithfully', async (t) => {
  const code = (f: () => unknown) => {
    try {
      f();
    } catch (err) {
      return isLedgerError(err) ? err.code : 'other';
    }
    return 'none';
  };
  t.equal(code(() => stringifyJson(Number.NaN)), 'JSON_STRINGIFY');
  t.equal(code(() => stringifyJson({ a: Infinity })), 'JSON_STRINGIFY');
  t.equal(code(() => stringifyJson(new Uint8Array(2))), 'JSON_STRINGIFY');
  t.equal(code(() => stringifyJson(new Map())), 'JSON_STRINGIFY');
  t.equal(code(() => stringifyJson({ f: () => 1 })), 'JSON_STRINGIFY');
  t.equal(code(() => stringifyJson(undefined)), 'JSON_STRINGIFY');
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  t.equal(code(() => stringifyJson(cyclic)), 'JSON_STRINGIFY');
  const shared = { x: 1 };
  t.equal(stringifyJson([shared, shared]), '[{"x":1},{"x":1}]', 'a repeated object is not a cycle');
});

t.test('stringify matches JSON.stringify for ordinary values', async (t) => {
  const v = { s: 'a"\n', n: 1.5e-7, big: 1e21, neg: -3, arr: [1, undefined, null, true], skip: undefined, gone: { toJSON: () => undefined }, date: new Date(0), nested: { k: [] } };
  t.equal(stringifyJson(v), JSON.stringify(v));
});

// how fast: npm run bench:codec, on the same records
t.test('a 1 MiB body of bigint amounts and escaped strings round-trips', async (t) => {
  const items = jsonRecords(1024 * 1024);
  const text = stringifyJson(items);
  t.ok(text.length >= 1024 * 1024);
  const parsed = parseJson(text) as JsonRecord[];
  t.equal(parsed.length, items.length);
  t.same(parsed.at(-1), items.at(-1), 'the last record, its amount a bigint above 2^53');
  t.equal(stringifyJson(parsed), text);
});

t.test('a number written with a fraction or exponent keeps its literal, so integer fields can refuse it', async (t) => {
  const v = parseJson('{"a":1,"b":1.0,"c":[7,1e3,1e-400],"d":{"e":-0.0},"f":"1.0"}') as { b: number; c: number[] };
  t.equal(v.b, 1);
  t.equal(v.c[2], 0, '1e-400 is read as 0, which is why it must not pass as an integer');
  t.equal(nonIntegerLiteral(v, 'a'), undefined);
  t.equal(nonIntegerLiteral(v, 'b'), '1.0');
  t.equal(nonIntegerLiteral(v.c, 0), undefined);
  t.equal(nonIntegerLiteral(v.c, 1), '1e3');
  t.equal(nonIntegerLiteral(v.c, '2'), '1e-400');
  t.equal(nonIntegerLiteral(v, 'f'), undefined, 'a string is not a number');
  t.same(findNonIntegerLiteral(v), { path: 'b', literal: '1.0' });
  t.same(findNonIntegerLiteral(v.c, 'c'), { path: 'c[1]', literal: '1e3' });
  t.same(findNonIntegerLiteral(parseJson('{"x":{"y":[1,2,-0.0]}}')), { path: 'x.y[2]', literal: '-0.0' });
  t.equal(findNonIntegerLiteral(parseJson('{"x":{"y":[1,2,12345678901234567890]},"s":"1e3"}')), undefined, 'integer literals, big ones too');
  t.equal(findNonIntegerLiteral({ n: 1.5 }), undefined, 'only what parseJson read is known');
  const cyclic: Record<string, unknown> = { n: 1 };
  cyclic.self = cyclic;
  t.equal(findNonIntegerLiteral(cyclic), undefined, 'a cyclic object of the caller is walked once');
});
