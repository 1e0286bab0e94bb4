import type { Prng } from '../../fixtures/prng.js';

/**
 * Structural mutations of JSON values, written out by `fuzzText`. Values are plain JSON (bigint for
 * integers beyond 2^53) plus two forms a JSON library would never produce: `Raw`, a literal written
 * byte for byte (`1e400`, a 500-digit integer, a nested bomb), and `Entries`, an object whose keys
 * may repeat or be `__proto__`.
 */

export class Raw {
  constructor(readonly text: string) {}
}

export class Entries {
  constructor(readonly entries: Array<[string, FuzzValue]>) {}
}

export type FuzzValue = null | boolean | number | bigint | string | Raw | Entries | FuzzValue[] | { [key: string]: FuzzValue };

export function fuzzText(v: FuzzValue): string {
  if (v instanceof Raw) return v.text;
  if (v instanceof Entries) return `{${v.entries.map(([k, x]) => `${JSON.stringify(k)}:${fuzzText(x)}`).join(',')}}`;
  if (typeof v === 'bigint') return v.toString();
  if (Array.isArray(v)) return `[${v.map(fuzzText).join(',')}]`;
  if (v !== null && typeof v === 'object') return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}:${fuzzText(x)}`).join(',')}}`;
  // JSON.stringify writes a lone surrogate as a \ud800 escape, so it reaches the parser intact
  return JSON.stringify(v);
}

export function clone(v: FuzzValue): FuzzValue {
  if (v instanceof Raw) return v;
  if (v instanceof Entries) return new Entries(v.entries.map(([k, x]) => [k, clone(x)]));
  if (Array.isArray(v)) return v.map(clone);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, clone(x)]));
  return v;
}

/** Numbers at the edges of every integer width the protocol uses, and literals no integer field may take. */
export const EDGE_NUMBERS: readonly FuzzValue[] = [
  0, -1, 1, 255, 256, 65_535, 2 ** 32, 2 ** 53 - 1, 2n ** 53n, 2n ** 53n + 1n, 2n ** 64n - 1n, 2n ** 64n, 2n ** 128n - 1n, 2n ** 128n, -(2n ** 63n),
  1.5, -0.5, Number.MIN_VALUE,
  new Raw('-0'), new Raw('1.0'), new Raw('1e3'), new Raw('1E+2'), new Raw('1e-400'), new Raw('1e400'), new Raw('-1e400'),
  new Raw('9'.repeat(500)), new Raw(`-${'9'.repeat(80)}`), new Raw(`0.${'0'.repeat(300)}1`), new Raw('01'), new Raw('+1'), new Raw('.5'), new Raw('NaN'), new Raw('Infinity'),
];

export const EDGE_STRINGS: readonly FuzzValue[] = [
  '', ' ', '0', '-1', '1.5', '1e3', 'null', 'true', '\u0000', '\ud800', '\udc00', 'a\ud83dz', '\u{1F600}', 'é', '\u202e', '\ufeff',
  'x'.repeat(257), 'y'.repeat(20_000), 'abc', 'ABCDEF', '0x00', 'g'.repeat(64), '0'.repeat(63), 'F'.repeat(64),
  'did:', 'did:ledger:', 'did:ledger:testnet:', 'did:ledger:testnet:0OIl', 'urn:ledger:credential:', '00000000-0000-0000-0000-000000000000',
  '__proto__', 'constructor', '%00', '<script>', '{"a":1}',
];

/** A value of another type than `v` (string, number, array, object, null, boolean, bigint, raw). */
export function otherType(rng: Prng, v: FuzzValue): FuzzValue {
  const options: FuzzValue[] = [null, true, false, rng.pick(EDGE_NUMBERS), rng.pick(EDGE_STRINGS), [], [v], {}, { v }, new Raw('[[[[[]]]]]')];
  if (typeof v === 'number' || typeof v === 'bigint') options.push(String(v), [v]);
  if (typeof v === 'string') options.push(Number.isNaN(Number(v)) ? v.length : Number(v));
  return rng.pick(options);
}

export function nested(depth: number, inner: FuzzValue = 1): Raw {
  const open = Array.from({ length: depth }, (_, i) => (i % 2 === 0 ? '[' : '{"a":')).join('');
  const close = Array.from({ length: depth }, (_, i) => (i % 2 === 0 ? ']' : '}')).reverse().join('');
  return new Raw(open + fuzzText(inner) + close);
}

type Slot = { parent: FuzzValue[] | { [key: string]: FuzzValue }; key: number | string; value: FuzzValue; inBytes?: boolean };

function isByteArray(v: FuzzValue): v is number[] {
  return Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'number');
}

/** Every position in the tree a mutation can replace (containers included, the root excluded). */
function slots(v: FuzzValue, out: Slot[] = []): Slot[] {
  if (v instanceof Raw || v instanceof Entries || v === null || typeof v !== 'object') return out;
  if (Array.isArray(v)) v.forEach((x, i) => (out.push({ parent: v, key: i, value: x, inBytes: isByteArray(v) }), slots(x, out)));
  else for (const [k, x] of Object.entries(v)) out.push({ parent: v, key: k, value: x }), slots(x, out);
  return out;
}

function setSlot(s: Slot, value: FuzzValue): void {
  (s.parent as Record<string | number, FuzzValue>)[s.key] = value;
}

function flipHexChar(rng: Prng, s: string): string {
  const i = rng.int(s.length);
  const c = '0123456789abcdef'[(parseInt(s[i]!, 16) ^ (1 + rng.int(15))) & 15] ?? '0';
  return s.slice(0, i) + c + s.slice(i + 1);
}

/** The mutation kinds of `mutateTree`, by name, so counts can be reported per kind. */
export const TREE_MUTATIONS = ['drop', 'add', 'retype', 'edge-number', 'edge-string', 'byte-flip', 'byte-range', 'array-length', 'hex', 'reorder', 'nest', 'duplicate-key', 'proto-key'] as const;
export type TreeMutation = (typeof TREE_MUTATIONS)[number];

// How often each kind is drawn: the ones that only ever make a parse error (duplicate keys,
// __proto__) are rarer, so that most cases reach the decoders behind the parser.
const DECK: readonly TreeMutation[] = TREE_MUTATIONS.flatMap((k) => Array<TreeMutation>(({ retype: 5, 'edge-number': 3, 'edge-string': 3, drop: 2, add: 2, hex: 2, 'byte-flip': 2, nest: 2 } as Partial<Record<TreeMutation, number>>)[k] ?? 1).fill(k));

export function pickTreeMutation(rng: Prng): TreeMutation {
  return rng.pick(DECK);
}

/**
 * Applies one mutation of kind `kind` somewhere in `root` (a fresh copy is returned). A mutation
 * that finds nothing to act on (no byte array for `byte-flip`) falls back to `retype`.
 */
export function mutateTree(rng: Prng, root: FuzzValue, kind: TreeMutation): FuzzValue {
  const v = clone(root);
  const all = slots(v);
  const objects = all.filter((s) => isPlainObject(s.value));
  const byteArrays = all.filter((s) => isByteArray(s.value));
  const hexStrings = all.filter((s) => typeof s.value === 'string' && /^[0-9a-f]{2,}$/.test(s.value));
  const numbers = all.filter((s) => typeof s.value === 'number' || typeof s.value === 'bigint');
  const strings = all.filter((s) => typeof s.value === 'string');
  // the elements of byte arrays (keys, signatures) would otherwise draw most mutations away from the fields
  const target = (list: Slot[]) => {
    const from = list.length > 0 ? list : all;
    const fields = from.filter((s) => !s.inBytes);
    return from.length === 0 ? undefined : rng.pick(fields.length > 0 && rng.chance(0.8) ? fields : from);
  };
  const rootObject = isPlainObject(v) ? [{ parent: { root: v }, key: 'root', value: v } as Slot] : [];
  switch (kind) {
    case 'drop': {
      const s = target([...objects, ...rootObject]);
      const o = s?.value;
      if (isPlainObject(o) && Object.keys(o).length > 0) delete o[rng.pick(Object.keys(o))];
      return v;
    }
    case 'add': {
      const s = target([...objects, ...rootObject]);
      if (s && isPlainObject(s.value)) s.value[rng.pick(['extra', 'chain_id', 'fee', 'nonce2', 'Transfer', '', 'amount', 'to'])] = rng.pick([...EDGE_STRINGS, ...EDGE_NUMBERS]);
      return v;
    }
    case 'retype': {
      const s = target(all);
      if (s) setSlot(s, otherType(rng, s.value));
      return v;
    }
    case 'edge-number': {
      const s = target(numbers);
      if (s) setSlot(s, rng.pick(EDGE_NUMBERS));
      return v;
    }
    case 'edge-string': {
      const s = target(strings);
      if (s) setSlot(s, rng.pick(EDGE_STRINGS));
      return v;
    }
    case 'byte-flip': {
      const s = target(byteArrays);
      if (!s || !Array.isArray(s.value)) return mutateTree(rng, root, 'retype');
      const i = rng.int(s.value.length);
      s.value[i] = ((s.value[i] as number) ^ (1 << rng.int(8))) & 255;
      return v;
    }
    case 'byte-range': {
      const s = target(byteArrays);
      if (!s || !Array.isArray(s.value)) return mutateTree(rng, root, 'edge-number');
      s.value[rng.int(s.value.length)] = rng.pick([256, -1, 1000, 2n ** 64n, 1.5, new Raw('1e2'), '7', null]);
      return v;
    }
    case 'array-length': {
      const s = target(byteArrays);
      if (!s || !Array.isArray(s.value)) return mutateTree(rng, root, 'drop');
      const a = s.value;
      if (rng.chance(0.5)) a.splice(rng.int(a.length), 1 + rng.int(3));
      else a.push(...Array.from({ length: 1 + rng.int(rng.chance(0.1) ? 5000 : 3) }, () => rng.int(256)));
      return v;
    }
    case 'hex': {
      const s = target(hexStrings);
      if (!s || typeof s.value !== 'string') return mutateTree(rng, root, 'edge-string');
      const h = s.value;
      setSlot(s, rng.pick([h.slice(1), h + 'a', h.toUpperCase(), `0x${h}`, flipHexChar(rng, h), h.slice(0, h.length / 2), h + h, h.replace(/[0-9a-f]$/, 'g')]));
      return v;
    }
    case 'reorder': {
      const s = target([...objects, ...rootObject]);
      if (s && isPlainObject(s.value)) {
        const entries = Object.entries(s.value);
        for (const k of Object.keys(s.value)) delete s.value[k];
        for (let i = entries.length - 1; i > 0; i--) {
          const j = rng.int(i + 1);
          [entries[i], entries[j]] = [entries[j]!, entries[i]!];
        }
        for (const [k, x] of entries) s.value[k] = x;
      }
      return v;
    }
    case 'nest': {
      const s = target(all);
      if (s) setSlot(s, nested(rng.pick([1, 2, 3, 8, 63, 64, 65, 5000]), s.value));
      return v;
    }
    case 'duplicate-key':
    case 'proto-key': {
      const s = target([...objects, ...rootObject]);
      if (!s || !isPlainObject(s.value)) return mutateTree(rng, root, 'retype');
      const entries = Object.entries(s.value);
      const [k, x] = entries.length > 0 ? rng.pick(entries) : ['a', 1];
      entries.push(kind === 'proto-key' ? ['__proto__', { polluted: true }] : [k, otherType(rng, x)]);
      const replaced = new Entries(entries);
      if (s.key === 'root' && s.value === v) return replaced;
      setSlot(s, replaced);
      return v;
    }
  }
}

export function isPlainObject(v: unknown): v is { [key: string]: FuzzValue } {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Raw) && !(v instanceof Entries);
}
