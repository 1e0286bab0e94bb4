import type { Prng } from '../../fixtures/prng.js';
import { BAD_UTF8, BYTE_MUTATIONS, concat, mutateBytes } from './bytes-mutate.js';
import type { HttpCase } from './check.js';
import { EDGE_NUMBERS, EDGE_STRINGS, Entries, fuzzText, mutateTree, nested, otherType, Raw, pickTreeMutation, type FuzzValue } from './json-mutate.js';
import type { MethodShape } from './method-table.js';

/** Generators of JSON-RPC requests: every method with mutated params, broken envelopes and batches, and broken bytes. */

/** Values that pass each param's validator, by param name, so mutations start from something the method would run. */
export interface Samples {
  address: string[];
  did: string[];
  txHash: string[];
  credentialId: string[];
  txJson: string[];
}

/** A plausible value for a param of this name; a name the fuzzer does not know gets an edge value. */
export function sampleParam(rng: Prng, name: string, s: Samples): FuzzValue {
  if (/address|validator$/.test(name)) return rng.pick(s.address);
  if (/did$/.test(name)) return rng.pick(s.did);
  if (/hash$/.test(name)) return rng.pick(s.txHash);
  if (name === 'credential_id') return rng.pick(s.credentialId);
  if (name === 'tx_json') return rng.pick(s.txJson);
  if (name === 'block') return rng.pick(['latest', 'pending']);
  if (/height|seq|count|index|epoch|round/.test(name)) return rng.pick([0, 1, 2, 10, 1000]);
  if (name.endsWith('_hex')) return rng.pick(['', '00', 'ab'.repeat(48), 'cd'.repeat(96), 'ef'.repeat(272)]);
  if (name.includes('messages')) return [{ index: 0, message: '00' }];
  return rng.pick([...EDGE_STRINGS, ...EDGE_NUMBERS]);
}

export function validParams(rng: Prng, m: MethodShape, s: Samples): FuzzValue[] {
  return m.params.filter((p) => !p.optional || rng.chance(0.5)).map((p) => sampleParam(rng, p.name, s));
}

export const PARAM_MUTATIONS = ['none', 'tree', 'drop-param', 'extra-param', 'null-param', 'by-name', 'not-array', 'swap'] as const;

/** A method of the table called with its params mutated one way (`none`: as sampled). */
export function methodCase(rng: Prng, methods: readonly MethodShape[], s: Samples): HttpCase {
  const m = rng.pick(methods);
  let params: FuzzValue = validParams(rng, m, s);
  const kind = rng.pick(PARAM_MUTATIONS);
  const list = params as FuzzValue[];
  switch (kind) {
    case 'none':
      break;
    case 'tree':
      params = list.length > 0 ? mutateTree(rng, list, pickTreeMutation(rng)) : [rng.pick(EDGE_STRINGS)];
      break;
    case 'drop-param':
      list.splice(rng.int(list.length + 1), 1);
      break;
    case 'extra-param':
      list.push(rng.pick([...EDGE_NUMBERS, ...EDGE_STRINGS]));
      break;
    case 'null-param':
      if (list.length > 0) list[rng.int(list.length)] = null;
      else list.push(null);
      break;
    case 'by-name':
      params = Object.fromEntries(m.params.map((p, i) => [p.name, list[i] ?? null]));
      break;
    case 'not-array':
      params = rng.pick<FuzzValue>(['x', 1, true, new Raw('"[]"'), list[0] ?? 0]);
      break;
    case 'swap':
      // another method's params: right shape, wrong meaning
      params = validParams(rng, rng.pick(methods), s);
      break;
  }
  const id = rng.int(1_000_000);
  return { category: 'method', label: `${m.name} ${kind}`, body: fuzzText({ jsonrpc: '2.0', id, method: m.name, params }), id };
}

const IDS: readonly FuzzValue[] = ['a', '', 'x'.repeat(10_000), 0, -1, 7, 2n ** 64n, 1.5, new Raw('-0'), new Raw('1e400'), new Raw('1e2'), null, true, {}, [], [1], new Raw('"\\ud800"')];
const JSONRPC: readonly FuzzValue[] = ['2.0', '1.0', '2', '2.00', ' 2.0', 2, new Raw('2.0'), null, true, ['2.0']];
const ODD_METHODS = ['ledger_getAccount', '', ' ledger_blockNumber', 'LEDGER_BLOCKNUMBER', 'rpc.discover', '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'ledger_', 'ledger_blockNumber\u0000', 'ledger_\ud800', 'x'.repeat(5000)];

/** A request envelope with one part broken (or none): jsonrpc, id, method, params, members. */
export function envelope(rng: Prng, methods: readonly MethodShape[], s: Samples): { value: FuzzValue; label: string } {
  const m = rng.pick(methods);
  const o: Record<string, FuzzValue> = { jsonrpc: '2.0', id: rng.int(1000), method: m.name, params: validParams(rng, m, s) };
  const part = rng.pick(['ok', 'jsonrpc', 'id', 'no-id', 'method', 'params', 'extra', 'missing', 'not-object'] as const);
  switch (part) {
    case 'ok':
      break;
    case 'jsonrpc':
      o.jsonrpc = rng.pick(JSONRPC);
      break;
    case 'id':
      o.id = rng.pick(IDS);
      break;
    case 'no-id':
      delete o.id;
      break;
    case 'method':
      o.method = rng.chance(0.7) ? rng.pick(ODD_METHODS) : otherType(rng, m.name);
      break;
    case 'params':
      o.params = rng.pick<FuzzValue>([null, 'x', 5, true, {}, { a: 1 }, [[]], nested(rng.pick([10, 70])), new Entries([['0', 1], ['0', 2]])]);
      break;
    case 'extra':
      o[rng.pick(['result', 'error', 'extra', 'ID', 'Method'])] = rng.pick([...EDGE_STRINGS, ...EDGE_NUMBERS]);
      break;
    case 'missing':
      delete o[rng.pick(['jsonrpc', 'method', 'params'])];
      break;
    case 'not-object':
      return { value: rng.pick<FuzzValue>([null, 1, 'x', true, [], new Raw('[[]]')]), label: 'not-object' };
  }
  return { value: o, label: part };
}

export function envelopeCase(rng: Prng, methods: readonly MethodShape[], s: Samples): HttpCase {
  const shape = rng.pick(['single', 'single', 'batch', 'batch-notifications', 'batch-oversize', 'batch-empty', 'batch-nested'] as const);
  if (shape === 'single') {
    const e = envelope(rng, methods, s);
    return { category: 'envelope', label: e.label, body: fuzzText(e.value) };
  }
  if (shape === 'batch-empty') return { category: 'envelope', label: shape, body: rng.pick(['[]', '[ ]', '[[]]']) };
  if (shape === 'batch-nested') return { category: 'envelope', label: shape, body: fuzzText([[envelope(rng, methods, s).value], envelope(rng, methods, s).value]) };
  const n = shape === 'batch-oversize' ? 101 + rng.int(20) : 1 + rng.int(12);
  const items = Array.from({ length: n }, () => {
    const e = envelope(rng, methods, s);
    if (shape === 'batch-notifications' && e.value !== null && typeof e.value === 'object' && !Array.isArray(e.value)) delete (e.value as Record<string, FuzzValue>).id;
    return e.value;
  });
  return { category: 'envelope', label: shape, body: fuzzText(items) };
}

const CONTENT_TYPES: readonly (string | null)[] = [
  null, 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', 'application/json; charset=UTF-8', 'application/json-rpc',
  'application/vnd.x+json', 'multipart/form-data; boundary=x', 'application/json;;', '', 'APPLICATION/JSON',
];

/** A valid request (or batch) broken at the byte level, or a body no JSON parser should take. */
export function rawCase(rng: Prng, methods: readonly MethodShape[], s: Samples): HttpCase {
  const m = rng.pick(methods);
  const good = Buffer.from(fuzzText(rng.chance(0.3) ? [envelope(rng, methods, s).value, { jsonrpc: '2.0', id: 1, method: m.name, params: validParams(rng, m, s) }] : { jsonrpc: '2.0', id: 1, method: m.name, params: validParams(rng, m, s) }));
  const kind = rng.pick([...BYTE_MUTATIONS, 'bad-utf8', 'bom', 'deep', 'duplicate-key', 'proto-key', 'content-type', 'whitespace', 'lone-surrogate'] as const);
  let body: Uint8Array = good;
  let contentType: string | null | undefined;
  switch (kind) {
    case 'bad-utf8': {
      const at = rng.int(good.length);
      body = concat(good.subarray(0, at), rng.pick(BAD_UTF8), good.subarray(at));
      break;
    }
    case 'bom':
      body = concat(Uint8Array.of(0xef, 0xbb, 0xbf), good);
      break;
    case 'deep':
      body = Buffer.from(rng.chance(0.5) ? '['.repeat(rng.pick([65, 1000, 100_000])) : nested(rng.pick([63, 64, 65, 3000])).text);
      break;
    case 'duplicate-key':
      body = Buffer.from(`{"jsonrpc":"2.0","id":1,"id":2,"method":${JSON.stringify(m.name)},"params":[]}`);
      break;
    case 'proto-key':
      body = Buffer.from(`{"jsonrpc":"2.0","id":1,"method":${JSON.stringify(m.name)},"params":[],"__proto__":{"method":"x"}}`);
      break;
    case 'content-type':
      contentType = rng.pick(CONTENT_TYPES);
      break;
    case 'whitespace':
      body = Buffer.from(good.toString().replace(/,/g, () => rng.pick([',', ' ,\n', '\t,\r\n', ',\u00a0', ',\u2028', ',\u000b'])));
      break;
    case 'lone-surrogate':
      body = Buffer.from(good.toString().replace(/"2\.0"/, rng.pick(['"2.0\\ud800"', '"\\udc00"', '"\\ud83d\\u0041"'])));
      break;
    default:
      body = mutateBytes(rng, good, kind);
  }
  return { category: 'raw', label: kind, body, contentType };
}

/** Every byte percent-encoded: any string, lone surrogates included (as U+FFFD), becomes a valid request target. */
function percentEncoded(text: string): string {
  return [...Buffer.from(text)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
}

/** Other HTTP methods and paths on the RPC port, and the DID resolver and revocation lists with mutated path params. */
export function httpCase(rng: Prng, s: Samples): HttpCase {
  const method = rng.pick(['GET', 'GET', 'GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'POST']);
  const edge = () => {
    const v = rng.pick<FuzzValue>([...EDGE_STRINGS, ...s.did, ...EDGE_NUMBERS]);
    const text = typeof v === 'string' ? v : fuzzText(v);
    return rng.chance(0.5) ? percentEncoded(text) : text.replace(/[^\x21-\x7e]|[%?#]/g, (c) => percentEncoded(c));
  };
  const path = rng.pick([
    '/', '/x', '//', '/%2e%2e/metrics', '/%', '/%zz', '/1.0/identifiers/did:ledger:testnet:%ff', '/health', '/metrics',
    `/1.0/identifiers/${edge()}`, `/1.0/identifiers/${rng.pick(s.did)}${rng.pick(['', '/', '?x=1', '#a', '%00'])}`,
    `/revocation-lists/${edge()}/${edge()}`, `/revocation-lists/${rng.pick(s.did)}/${rng.pick(['0', '1', '-1', '4294967296', '1.0', '1e3', '00', ''])}`,
  ]);
  const body = method === 'POST' || method === 'PUT' ? '{"jsonrpc":"2.0","id":1,"method":"ledger_blockNumber"}' : undefined;
  return { category: 'http', label: `${method} ${path.slice(0, 80)}`, method, path, body };
}
