import { createHash } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import t from 'tap';
import * as vt from '../../node/crypto/ed25519-vartime.js';
import { toHex } from '../../node/protocol/bytes.js';

// The variable-time arithmetic against @noble/curves, the reference it must agree with bit for bit.

const Point = ed25519.Point;
type NoblePoint = InstanceType<typeof Point>;
const P = 2n ** 255n - 19n;

function digest(label: string, i: number): Uint8Array {
  return new Uint8Array(createHash('sha256').update(`${label}/${i}`).digest());
}

function nobleDecode(bytes: Uint8Array): NoblePoint | undefined {
  try {
    return Point.fromBytes(bytes, false);
  } catch {
    return undefined;
  }
}

const ext = (p: NoblePoint): vt.Ext => [p.X, p.Y, p.Z, p.T];
const enc = (p: vt.Ext) => toHex(vt.encodeAll([p])[0]!);

function le(n: bigint, sign = 0): Uint8Array {
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++, n >>= 8n) out[i] = Number(n & 0xffn);
  out[31]! |= sign << 7;
  return out;
}

// the eight points of small order, as in the published lists of Ed25519 edge cases
const SMALL_ORDER = [
  '0100000000000000000000000000000000000000000000000000000000000000',
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  '0000000000000000000000000000000000000000000000000000000000000080',
  '0000000000000000000000000000000000000000000000000000000000000000',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85',
];

t.test('decode agrees with RFC 8032 strict decoding, and encodes back', async (t) => {
  const inputs: Uint8Array[] = Array.from({ length: 200 }, (_, i) => digest('bytes', i));
  inputs.push(le(P), le(P + 1n), le(P - 1n), le(P - 1n, 1), le(0n, 1), le(1n, 1), le(1n), le(2n ** 255n - 1n), new Uint8Array(31));
  inputs.push(...SMALL_ORDER.map((h) => Uint8Array.from(Buffer.from(h, 'hex'))));
  let valid = 0;
  for (const bytes of inputs) {
    const want = bytes.length === 32 ? nobleDecode(bytes) : undefined;
    const got = vt.decode(bytes);
    if (!want !== !got) t.fail(`${toHex(bytes)}: decodes here ${!!got}, in the reference ${!!want}`);
    if (!want || !got) continue;
    valid++;
    if (enc(got) !== toHex(bytes)) t.fail(`${toHex(bytes)} encodes back as ${enc(got)}`);
    if (!Point.fromAffine({ x: got[0] % P, y: got[1] % P }).equals(want)) t.fail(`${toHex(bytes)}: another point`);
  }
  t.ok(valid > 80 && valid < inputs.length - 20, `both outcomes exercised (${valid} of ${inputs.length} decode)`);
});

t.test('small-order points: 8·T is the identity; a prime-order point is not', async (t) => {
  for (const h of SMALL_ORDER) {
    const p = vt.decode(Uint8Array.from(Buffer.from(h, 'hex')));
    if (!p) continue; // one encoding of x = 0 with the sign bit set is refused by strict decoding
    t.ok(vt.isIdentity(vt.doubleTimes(p, 3)), h);
  }
  t.notOk(vt.isIdentity(vt.doubleTimes(ext(Point.BASE), 3)));
  t.ok(vt.isIdentity(vt.IDENTITY));
});

t.test('doubling, negation and multi-scalar multiplication agree with the reference', async (t) => {
  const points = Array.from({ length: 6 }, (_, i) => Point.BASE.multiply(BigInt(1000 + i) * 7919n));
  const torsion = Point.fromBytes(Uint8Array.from(Buffer.from(SMALL_ORDER[4]!, 'hex')));
  points.push(points[0]!.add(torsion), Point.ZERO, torsion);
  const n = Point.Fn.ORDER;
  const scalars = [0n, 1n, 2n, 3n, 15n, 16n, 2n ** 127n + 5n, 2n ** 128n - 1n, n - 1n, n - 2n, ...Array.from({ length: 8 }, (_, i) => BigInt('0x' + toHex(digest('scalar', i))) % n)];
  for (const [i, p] of points.entries()) {
    t.equal(enc(vt.double(ext(p))), toHex(p.double().toBytes()), `double of point ${i}`);
    t.equal(enc(vt.doubleTimes(ext(p), 16)), toHex(p.multiplyUnsafe(2n ** 16n).toBytes()), `2^16 times point ${i}`);
    t.equal(enc(vt.negate(ext(p))), toHex(p.negate().toBytes()), `negation of point ${i}`);
  }
  let compared = 0;
  for (const [i, a] of scalars.entries()) {
    const b = scalars[(i * 7 + 3) % scalars.length]!;
    const p = points[i % points.length]!;
    const q = points[(i + 1) % points.length]!;
    for (const w of [4, 5, 7]) {
      const got = vt.multiScalar([vt.table(ext(p), w), vt.table(ext(q), w)], [a, b]);
      const want = p.multiplyUnsafe(a).add(q.multiplyUnsafe(b));
      if (enc(got) !== toHex(want.toBytes())) t.fail(`${a}·P${i} + ${b}·Q (w ${w})`);
      compared++;
    }
  }
  t.equal(compared, scalars.length * 3);
  t.equal(enc(vt.multiScalar([], [])), toHex(Point.ZERO.toBytes()), 'the empty sum is the identity');
});

t.test('encodeAll encodes several points as each would be alone', async (t) => {
  const points = [Point.BASE, Point.BASE.multiply(3n), Point.ZERO, Point.BASE.multiply(2n ** 200n)];
  // not normalized: Z != 1
  const projective = points.map((p) => vt.doubleTimes(ext(p), 1));
  t.same(vt.encodeAll(projective).map(toHex), points.map((p) => toHex(p.double().toBytes())));
});
