import { ed25519 } from '@noble/curves/ed25519.js';

/**
 * Variable-time edwards25519 arithmetic for verifying ECVRF proofs: every input is public, and
 * verification is what each node pays for each attestation. Against @noble/curves' generic
 * arithmetic it saves a division per field multiplication (p = 2^255 - 19 is reduced by folding:
 * 2^255 ≡ 19), skips T in chains of doublings, and adds table points kept in the "cached" form
 * (Y+X, Y-X, 2Z, 2d·T). Field elements stay partly reduced (below 2^256) between operations and
 * are reduced fully only to encode or compare; a difference adds 2p or 4p first, so no value is
 * ever negative.
 *
 * Formulas: doubling dbl-2008-hwcd and addition add-2008-hwcd-3 (a = -1), results in completed
 * form (E, F, G, H) with X = E·F, Y = G·H, Z = F·G, T = E·H. Decoding is RFC 8032 5.1.3.
 */

const P = 2n ** 255n - 19n;
const P2 = 2n * P;
const P4 = 4n * P;
const LOW_255 = (1n << 255n) - 1n;
const CURVE_D = ed25519.Point.CURVE().d;
const D2 = (2n * CURVE_D) % P;
const SQRT_M1 = 19681161376707505956807079304988542015446066515923890162744021073123829784752n;

/** Partial reduction: any value below 2^520 to one below 2^255 + 2^21 (< 2p), congruent mod p. */
function r(a: bigint): bigint {
  a = (a & LOW_255) + 19n * (a >> 255n);
  return (a & LOW_255) + 19n * (a >> 255n);
}

/** Full reduction of a partly reduced value. */
function canon(a: bigint): bigint {
  return a % P;
}

/** x^((p-5)/8), by the addition chain of ref10 (RFC 8032 decoding). */
function pow22523(x: bigint): bigint {
  const sq = (a: bigint, n: number) => {
    for (let i = 0; i < n; i++) a = r(a * a);
    return a;
  };
  const x2 = r(x * x);
  const b2 = r(x2 * x);
  const b4 = r(sq(b2, 2) * b2);
  const b5 = r(sq(b4, 1) * x);
  const b10 = r(sq(b5, 5) * b5);
  const b20 = r(sq(b10, 10) * b10);
  const b40 = r(sq(b20, 20) * b20);
  const b80 = r(sq(b40, 40) * b40);
  const b160 = r(sq(b80, 80) * b80);
  const b240 = r(sq(b160, 80) * b80);
  const b250 = r(sq(b240, 10) * b10);
  return r(sq(b250, 2) * x);
}

/** A point in extended coordinates [X, Y, Z, T], x = X/Z, y = Y/Z, x·y = T/Z. */
export type Ext = readonly [bigint, bigint, bigint, bigint];
/** [E, F, G, H]: the result of a doubling or an addition, before its last four multiplications. */
type Completed = readonly [bigint, bigint, bigint, bigint];
/** [Y+X, Y-X, 2Z, 2d·T]: a table point, ready to be added. */
type Cached = readonly [bigint, bigint, bigint, bigint];

export const IDENTITY: Ext = [0n, 1n, 1n, 0n];

function toExt([E, F, G, H]: Completed): Ext {
  return [r(E * F), r(G * H), r(F * G), r(E * H)];
}

function dbl(X: bigint, Y: bigint, Z: bigint): Completed {
  const A = r(X * X);
  const B = r(Y * Y);
  const C = r(Z * Z) << 1n;
  const xy = X + Y;
  const H = A + B;
  // each of E, F, G, H is the negation of the formula's: the products are unchanged
  return [H + P4 - r(xy * xy), C + A + P2 - B, A + P2 - B, H];
}

function add([X, Y, Z, T]: Ext, [yPlusX, yMinusX, z2, t2d]: Cached): Completed {
  const A = r((Y + P2 - X) * yMinusX);
  const B = r((Y + X) * yPlusX);
  const C = r(T * t2d);
  const D = r(Z * z2);
  return [B + P2 - A, D + P4 - C, D + C, B + A];
}

function cached([X, Y, Z, T]: Ext): Cached {
  return [r(Y + X), r(Y + P2 - X), r(Z << 1n), r(T * D2)];
}

function negCached([yPlusX, yMinusX, z2, t2d]: Cached): Cached {
  return [yMinusX, yPlusX, z2, P2 - t2d];
}

export function double(p: Ext): Ext {
  return toExt(dbl(p[0], p[1], p[2]));
}

/** 2^n · p, with T computed only at the end. */
export function doubleTimes(p: Ext, n: number): Ext {
  let c = dbl(p[0], p[1], p[2]);
  for (let i = 1; i < n; i++) c = dbl(r(c[0] * c[1]), r(c[2] * c[3]), r(c[1] * c[2]));
  return toExt(c);
}

export function negate([X, Y, Z, T]: Ext): Ext {
  return [P2 - X, Y, Z, P2 - T];
}

/** RFC 8032 5.1.3, strict (y < p; x = 0 with the sign bit set fails); undefined when not a point. */
export function decode(bytes: Uint8Array): Ext | undefined {
  if (bytes.length !== 32) return undefined;
  const sign = bytes[31]! >> 7;
  let y = 0n;
  for (let i = 31; i >= 0; i--) y = (y << 8n) | BigInt(i === 31 ? bytes[i]! & 0x7f : bytes[i]!);
  if (y >= P) return undefined;
  const y2 = r(y * y);
  const u = y2 + P - 1n;
  const v = r(CURVE_D * y2) + 1n;
  const v3 = r(r(v * v) * v);
  let x = r(r(u * v3) * pow22523(r(r(u * r(v3 * v3)) * v)));
  const vx2 = canon(r(v * r(x * x)));
  const uc = canon(u);
  if (vx2 === uc) x = canon(x);
  else if (vx2 === canon(P - uc)) x = canon(r(x * SQRT_M1));
  else return undefined;
  if (x === 0n && sign === 1) return undefined;
  if (Number(x & 1n) !== sign) x = P - x;
  return [x, y, 1n, r(x * y)];
}

/** Whether p is the identity (X = 0, Y = Z). */
export function isIdentity([X, Y, Z]: Ext): boolean {
  return canon(X) === 0n && canon(Y) === canon(Z);
}

/** RFC 8032 5.1.2 encodings of several points, with one field inversion. */
export function encodeAll(points: readonly Ext[]): Uint8Array[] {
  const zs = points.map((p) => canon(p[2]));
  const inverses = ed25519.Point.Fp.invertBatch(zs);
  return points.map((p, i) => {
    const x = canon(r(p[0] * inverses[i]!));
    let y = canon(r(p[1] * inverses[i]!));
    const out = new Uint8Array(32);
    for (let k = 0; k < 32; k++, y >>= 8n) out[k] = Number(y & 0xffn);
    if (x & 1n) out[31]! |= 0x80;
    return out;
  });
}

/** Width-w signed digits of a non-negative n, least significant first: zero, or odd below 2^(w-1) in size. */
function wnaf(n: bigint, w: number): Int8Array {
  const size = 1 << w;
  const mask = BigInt(size - 1);
  const digits: number[] = [];
  while (n > 0n) {
    let d = 0;
    if (n & 1n) {
      d = Number(n & mask);
      if (d >= size / 2) d -= size;
      n -= BigInt(d);
    }
    digits.push(d);
    n >>= 1n;
  }
  return Int8Array.from(digits);
}

/** Odd multiples p, 3p, …, (2^(w-1) - 1)p of a point, cached, for width-w digits. */
export interface Table {
  w: number;
  points: Cached[];
}

export function table(p: Ext, w: number): Table {
  const twice = cached(double(p));
  const ext: Ext[] = [p];
  for (let i = 1; i < 1 << (w - 2); i++) ext.push(toExt(add(ext[i - 1]!, twice)));
  return { w, points: ext.map(cached) };
}

/**
 * Σ scalars[i] · tables[i], on one shared chain of doublings (Straus; Möller's interleaved wNAF):
 * as many doublings as the longest scalar has bits, one addition per nonzero digit.
 */
export function multiScalar(tables: readonly Table[], scalars: readonly bigint[]): Ext {
  const digits = scalars.map((s, i) => wnaf(s, tables[i]!.w));
  let top = 0;
  for (const d of digits) top = Math.max(top, d.length);
  // the accumulator stays in completed form: a doubling needs X, Y, Z only, an addition T too
  let c: Completed = [0n, 1n, 1n, 1n];
  for (let bit = top - 1; bit >= 0; bit--) {
    c = dbl(r(c[0] * c[1]), r(c[2] * c[3]), r(c[1] * c[2]));
    for (let i = 0; i < digits.length; i++) {
      const d = digits[i]![bit];
      if (!d) continue;
      const entry = tables[i]!.points[(Math.abs(d) - 1) >> 1]!;
      c = add(toExt(c), d < 0 ? negCached(entry) : entry);
    }
  }
  return toExt(c);
}
