import * as blst from '@chainsafe/blst';

/**
 * Sums of multiples of fixed G1 points (BBS's P1 and generators), by a comb of 4-bit windows whose
 * entries native blst adds in one call. A scalar below 2^256 is 64 nibbles d_k, and
 *   s * B = sum over k of d_k * 16^k * B,
 * so with every d * 16^k * B (d in 1..15) computed once, a product is at most 64 additions of
 * table entries, and a sum of products is one list of entries. blst's aggregatePublicKeys adds a
 * list of affine points at about 1 µs each (each a cache miss into the tables): a 14-term sum is
 * about 1 ms, against 1.8 ms for mcl-wasm's mulVec of the same points. Everything here is public
 * (scalars of a proof, fixed points), so the variable time leaks nothing.
 *
 * A table is 960 points (about 0.2 MB, 4 ms to build); callers keep tables for the first
 * generators only.
 */

const WINDOWS = 64;
const DIGITS = 15;

export class FixedBase {
  /** entry (k, d) at k * 15 + d - 1: d * 16^k * B */
  private readonly entries: blst.PublicKey[];

  /** `point`: a compressed G1 point already checked (in its subgroup, not the identity) */
  constructor(point: Uint8Array) {
    let window = blst.PublicKey.fromBytes(point);
    this.entries = [];
    for (let k = 0; k < WINDOWS; k++) {
      let multiple = window;
      this.entries.push(multiple);
      for (let d = 2; d <= DIGITS; d++) {
        multiple = blst.aggregatePublicKeys([multiple, window]);
        this.entries.push(multiple);
      }
      window = blst.aggregatePublicKeys([multiple, window]); // 16 * window
    }
  }

  /** Pushes onto `out` the entries whose sum is s * B (none when s is 0); 0 <= s < 2^256. */
  addTerms(s: bigint, out: blst.PublicKey[]): void {
    const hex = s.toString(16);
    if (s < 0n || hex.length > WINDOWS) throw new RangeError('FixedBase: a scalar of 0 to 2^256 - 1');
    for (let i = hex.length - 1, k = 0; i >= 0; i--, k++) {
      const d = HEX_DIGIT[hex.charCodeAt(i)]!;
      if (d !== 0) out.push(this.entries[k * DIGITS + d - 1]!);
    }
  }
}

const HEX_DIGIT = new Uint8Array(128);
for (let i = 0; i < 16; i++) HEX_DIGIT['0123456789abcdef'.charCodeAt(i)] = i;

/**
 * The compressed encoding of the sum of `points` (entries from addTerms and other points as blst
 * keys); the identity's encoding when there are none or they cancel.
 */
export function sumCompressed(points: blst.PublicKey[]): Uint8Array {
  if (points.length === 0) return IDENTITY.slice();
  return blst.aggregatePublicKeys(points).toBytes(true);
}

/** point_to_octets_E1 of the identity: the compression and infinity flags, then zeros */
const IDENTITY = Uint8Array.from({ length: 48 }, (_, i) => (i === 0 ? 0xc0 : 0));
