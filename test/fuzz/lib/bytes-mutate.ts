import type { Prng } from '../../fixtures/prng.js';

/** Byte-level mutations: for encoded transactions (binary form) and for raw request bodies. */

export const BYTE_MUTATIONS = ['bit-flip', 'truncate', 'extend', 'insert', 'delete', 'overwrite', 'length-field', 'splice'] as const;
export type ByteMutation = (typeof BYTE_MUTATIONS)[number];

/**
 * One mutation of `input` (a new array). `length-field` writes an extreme value into a 1-, 2- or
 * 4-byte big-endian window, which is where the codecs keep string lengths and counts.
 */
export function mutateBytes(rng: Prng, input: Uint8Array, kind: ByteMutation): Uint8Array {
  const b = Uint8Array.from(input);
  const at = rng.int(Math.max(1, b.length));
  switch (kind) {
    case 'bit-flip': {
      if (b.length === 0) return Uint8Array.of(rng.int(256));
      for (let n = 1 + rng.int(3); n > 0; n--) {
        const i = rng.int(b.length);
        b[i] = b[i]! ^ (1 << rng.int(8));
      }
      return b;
    }
    case 'truncate':
      return b.subarray(0, rng.chance(0.2) ? rng.int(8) : at);
    case 'extend':
      return concat(b, rng.bytes(1 + rng.int(rng.chance(0.1) ? 5000 : 8)));
    case 'insert':
      return concat(b.subarray(0, at), rng.bytes(1 + rng.int(4)), b.subarray(at));
    case 'delete':
      return concat(b.subarray(0, at), b.subarray(Math.min(b.length, at + 1 + rng.int(4))));
    case 'overwrite':
      b.fill(rng.pick([0x00, 0xff, 0x7f, 0x80]), at, Math.min(b.length, at + 1 + rng.int(8)));
      return b;
    case 'length-field': {
      const width = rng.pick([1, 2, 4]);
      const value = rng.pick([0, 1, 0xff, 0xffff, 0xffffffff, 0x7fffffff, b.length, b.length + 1]);
      for (let i = 0; i < width && at + i < b.length; i++) b[at + i] = (value >>> (8 * (width - 1 - i))) & 0xff;
      return b;
    }
    case 'splice': {
      // a copy of one part of the input over another: a plausible-looking but inconsistent encoding
      const from = rng.int(Math.max(1, b.length));
      const len = 1 + rng.int(16);
      return concat(b.subarray(0, at), b.subarray(from, from + len), b.subarray(at + len));
    }
  }
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) out.set(p, o), (o += p.length);
  return out;
}

/** Byte sequences that are not UTF-8: a stray continuation, an overlong form, an encoded surrogate, a truncated sequence, 0xff. */
export const BAD_UTF8: readonly Uint8Array[] = [
  Uint8Array.of(0x80),
  Uint8Array.of(0xc0, 0x80),
  Uint8Array.of(0xed, 0xa0, 0x80),
  Uint8Array.of(0xe2, 0x82),
  Uint8Array.of(0xf4, 0x90, 0x80, 0x80),
  Uint8Array.of(0xff),
  Uint8Array.of(0xfe, 0xff),
];
