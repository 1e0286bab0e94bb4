import t from 'tap';
import * as blst from '@chainsafe/blst';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { FixedBase, sumCompressed } from '../../../node/crypto/bbs/fixed-base.js';
import { generatorsBytes, P1_BYTES, r } from '../../../node/crypto/bbs/suite.js';
import { toHex } from '../../../node/protocol/bytes.js';

const G1 = bls12_381.G1.Point;
const point = (bytes: Uint8Array) => G1.fromBytes(bytes);
const hex = (p: InstanceType<typeof G1>) => toHex(p.toBytes(true));
/** point_to_octets_E1 of the identity */
const IDENTITY = 'c0' + '00'.repeat(47);

t.test('a sum of fixed-base products is the sum @noble/curves computes', async (t) => {
  const bases = [P1_BYTES, generatorsBytes(1), generatorsBytes(2).subarray(48)];
  const tables = bases.map((b) => new FixedBase(b));
  const cases: bigint[][] = [
    [1n, 2n, 3n],
    [r - 1n, 15n, 16n],
    [0n, 0xf0f0f0f0n, (1n << 254n) + 12345n],
    [2n ** 255n - 1n, 0n, r - 2n],
  ];
  for (const scalars of cases) {
    const terms: blst.PublicKey[] = [];
    scalars.forEach((s, i) => tables[i]!.addTerms(s, terms));
    let expected = G1.ZERO;
    scalars.forEach((s, i) => (expected = s % r === 0n ? expected : expected.add(point(bases[i]!).multiply(s % r))));
    t.equal(toHex(sumCompressed(terms)), expected.is0() ? IDENTITY : hex(expected), scalars.map((s) => s.toString(16).slice(0, 8)).join(', '));
  }
});

t.test('points that cancel, and no terms, sum to the identity’s encoding', async (t) => {
  const table = new FixedBase(P1_BYTES);
  t.equal(toHex(sumCompressed([])), IDENTITY);
  const terms: blst.PublicKey[] = [];
  table.addTerms(5n, terms);
  terms.push(blst.PublicKey.fromBytes(point(P1_BYTES).multiply(r - 5n).toBytes(true)));
  t.equal(toHex(sumCompressed(terms)), IDENTITY);
  const none: blst.PublicKey[] = [];
  table.addTerms(0n, none);
  t.equal(none.length, 0, 'a zero scalar adds no entry');
});

t.test('a scalar out of range is refused', async (t) => {
  const table = new FixedBase(P1_BYTES);
  t.throws(() => table.addTerms(1n << 256n, []), RangeError);
  t.throws(() => table.addTerms(-1n, []), RangeError);
});
