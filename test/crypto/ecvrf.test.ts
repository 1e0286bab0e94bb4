import { createHash } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { bytesToNumberLE } from '@noble/curves/utils.js';
import t from 'tap';
import { ecvrfProofToHash, ecvrfProve, ecvrfVerify, ecvrfVerifyCached, type EcvrfSuite } from '../../node/crypto/ecvrf.js';
import { keyPairFromSeed } from '../../node/crypto/ed25519.js';
import { fromHex, toHex } from '../../node/protocol/bytes.js';
import { loadVectors } from '../fixtures/vectors.js';

const V = loadVectors('ecvrf.json');
const SUITES: Array<[EcvrfSuite, string]> = [
  ['TAI', 'ECVRF-EDWARDS25519-SHA512-TAI'],
  ['ELL2', 'ECVRF-EDWARDS25519-SHA512-ELL2'],
];

for (const [suite, name] of SUITES) {
  for (const ex of V[name].examples as Array<Record<string, string>>) {
    t.test(`${name} ${ex.example}`, async (t) => {
      const alpha = fromHex(ex.alpha!);
      const pi = ecvrfProve(fromHex(ex.SK!), alpha, suite);
      t.equal(toHex(pi), ex.pi, 'prove gives the RFC proof');
      const beta = ecvrfVerify(fromHex(ex.PK!), alpha, pi, suite);
      t.equal(beta && toHex(beta), ex.beta, 'verify accepts it and gives the RFC output');
      t.equal(toHex(ecvrfProofToHash(pi, suite)), ex.beta);
    });
  }
}

t.test('negative checks: a flipped bit, another alpha, the pre-RFC proof, the other suite, malformed input', async (t) => {
  const ex = V['ECVRF-EDWARDS25519-SHA512-TAI'].examples[0] as Record<string, string>;
  const pk = fromHex(ex.PK!);
  const pi = fromHex(ex.pi!);
  const flipped = Uint8Array.from(pi);
  flipped[40]! ^= 1;
  t.equal(ecvrfVerify(pk, new Uint8Array(0), flipped), undefined, 'one bit of c flipped');
  t.equal(ecvrfVerify(pk, Uint8Array.of(1), pi), undefined, 'a proof for another alpha (another seed)');
  const preRfc = fromHex('8657106690b5526245a92b003bb079ccd1a92130477671f6fc01ad16f26f723f5e8bd1839b414219e8626d393787a192241fc442e6569e96c462f62b8079b9ed83ff2ee21c90c7c398802fdeebea4001');
  t.equal(ecvrfVerify(pk, new Uint8Array(0), preRfc), undefined, 'the pre-RFC proof of Example 16');
  t.equal(ecvrfVerify(pk, new Uint8Array(0), pi, 'ELL2'), undefined, 'a TAI proof is no ELL2 proof');
  const other = V['ECVRF-EDWARDS25519-SHA512-TAI'].examples[1] as Record<string, string>;
  t.equal(ecvrfVerify(fromHex(other.PK!), new Uint8Array(0), pi), undefined, 'under another key');
  t.equal(ecvrfVerify(pk, new Uint8Array(0), pi.subarray(0, 79)), undefined, 'short proof');
  t.equal(ecvrfVerify(pk.subarray(1), new Uint8Array(0), pi), undefined, 'short key');
  const bigS = Uint8Array.from(pi);
  bigS.fill(0xff, 48);
  t.equal(ecvrfVerify(pk, new Uint8Array(0), bigS), undefined, 's not below the group order');
  t.equal(ecvrfVerify(pk, new Uint8Array(0), new Uint8Array(80).fill(0xff)), undefined, 'Gamma not a point');
  const identity = Uint8Array.of(1, ...new Uint8Array(31));
  t.equal(ecvrfVerify(identity, new Uint8Array(0), pi), undefined, 'a low-order public key');
  t.throws(() => ecvrfProve(new Uint8Array(31), new Uint8Array(0)), RangeError);
});

/** RFC 9381 5.3 for the TAI suite, step by step with plain point arithmetic: what the tuned ecvrfVerify must agree with. */
function referenceVerify(publicKey: Uint8Array, alpha: Uint8Array, proof: Uint8Array): string | undefined {
  const P = ed25519.Point;
  const sha = (...parts: Uint8Array[]) => {
    const h = createHash('sha512');
    for (const x of parts) h.update(x);
    return new Uint8Array(h.digest());
  };
  const decode = (b: Uint8Array) => {
    try {
      return P.fromBytes(b, false);
    } catch {
      return undefined;
    }
  };
  const Y = decode(publicKey);
  const gamma = decode(proof.subarray(0, 32));
  if (proof.length !== 80 || !Y || Y.clearCofactor().is0() || !gamma) return undefined;
  const c = bytesToNumberLE(proof.subarray(32, 48));
  const s = bytesToNumberLE(proof.subarray(48));
  if (s >= P.Fn.ORDER) return undefined;
  let H;
  for (let ctr = 0; !H; ctr++) H = decode(sha(Uint8Array.of(3, 1), publicKey, alpha, Uint8Array.of(ctr, 0)).subarray(0, 32))?.clearCofactor();
  const U = P.BASE.multiplyUnsafe(s).subtract(Y.multiplyUnsafe(c));
  const V = H.multiplyUnsafe(s).subtract(gamma.multiplyUnsafe(c));
  const points = [Y, H, gamma, U, V].map((p) => p.toBytes());
  if (bytesToNumberLE(sha(Uint8Array.of(3, 2), ...points, Uint8Array.of(0)).subarray(0, 16)) !== c) return undefined;
  return toHex(sha(Uint8Array.of(3, 3), gamma.clearCofactor().toBytes(), Uint8Array.of(0)));
}

function digest(label: string, i: number): Uint8Array {
  return new Uint8Array(createHash('sha256').update(`${label}/${i}`).digest());
}

t.test('verify agrees with the step-by-step RFC algorithm on valid, tampered and foreign proofs', async (t) => {
  const keys = Array.from({ length: 3 }, (_, i) => keyPairFromSeed(digest('key', i)));
  // an order-8 point: Gamma plus it is a different point with the same 8·Gamma
  const torsion = ed25519.Point.fromHex('c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a');
  let checked = 0;
  for (let i = 0; i < 24; i++) {
    const key = keys[i % keys.length]!;
    const alpha = digest('alpha', i);
    const pi = ecvrfProve(key.seed, alpha);
    const variants: Array<[string, Uint8Array, Uint8Array, Uint8Array]> = [['valid', key.publicKey, alpha, pi]];
    const flipped = Uint8Array.from(pi);
    flipped[i % 80]! ^= 1 << i % 8;
    variants.push(['a flipped bit', key.publicKey, alpha, flipped]);
    variants.push(['another alpha', key.publicKey, digest('alpha', i + 1), pi]);
    variants.push(['another key', keys[(i + 1) % keys.length]!.publicKey, alpha, pi]);
    const withTorsion = Uint8Array.from(pi);
    withTorsion.set(ed25519.Point.fromBytes(pi.subarray(0, 32)).add(torsion).toBytes(), 0);
    variants.push(['Gamma with a torsion part', key.publicKey, alpha, withTorsion]);
    for (const [what, pk, a, proof] of variants) {
      const want = referenceVerify(pk, a, proof);
      if (what === 'valid') t.ok(want, 'the reference accepts a fresh proof');
      const got = ecvrfVerify(pk, a, proof);
      if ((got && toHex(got)) !== want) t.fail(`${what} (round ${i}): got ${got && toHex(got)}, want ${want}`);
      checked++;
    }
  }
  t.equal(checked, 24 * 5, 'every variant compared');
});

t.test('the per-key tables: many keys, evicted and seen again, still verify', async (t) => {
  const alpha = digest('alpha', 0);
  const keys = Array.from({ length: 300 }, (_, i) => keyPairFromSeed(digest('many', i)));
  const proofs = keys.map((k) => ecvrfProve(k.seed, alpha));
  const outputs = keys.map((k, i) => ecvrfVerify(k.publicKey, alpha, proofs[i]!));
  t.ok(outputs.every((b) => b !== undefined), 'each of 300 keys verifies its proof');
  const again = keys.slice(0, 20).map((k, i) => ecvrfVerify(k.publicKey, alpha, proofs[i]!));
  t.same(again.map((b) => b && toHex(b)), outputs.slice(0, 20).map((b) => b && toHex(b)), 'keys whose tables were evicted give the same outputs');
  t.equal(ecvrfVerify(keys[0]!.publicKey, alpha, proofs[1]!), undefined, "a cached key still refuses another key's proof");
});

t.test('ecvrfVerifyCached answers as ecvrfVerify, and its answers are copies', async (t) => {
  const key = keyPairFromSeed(digest('memo', 0));
  const alpha = digest('alpha', 7);
  const pi = ecvrfProve(key.seed, alpha);
  const want = toHex(ecvrfVerify(key.publicKey, alpha, pi)!);
  const first = ecvrfVerifyCached(key.publicKey, alpha, pi)!;
  t.equal(toHex(first), want, 'a first check');
  first.fill(0);
  t.equal(toHex(ecvrfVerifyCached(key.publicKey, alpha, pi)!), want, 'a repeat, after the caller changed the first answer');
  const bad = Uint8Array.from(pi);
  bad[50]! ^= 1;
  t.equal(ecvrfVerifyCached(key.publicKey, alpha, bad), undefined, 'a bad proof');
  t.equal(ecvrfVerifyCached(key.publicKey, alpha, bad), undefined, 'a bad proof, again');
  t.equal(ecvrfVerifyCached(key.publicKey, digest('alpha', 8), pi), undefined, 'the same proof under another alpha is another entry');
  t.equal(ecvrfVerifyCached(key.publicKey, alpha, pi, 'ELL2'), undefined, 'and under another suite');
  t.equal(ecvrfVerifyCached(key.publicKey, alpha, pi.subarray(0, 79)), undefined, 'a short proof');
});

t.test('prove follows a seed changed in place', async (t) => {
  const seed = digest('seed', 0);
  const alpha = digest('alpha', 0);
  const before = toHex(ecvrfProve(seed, alpha));
  seed.set(digest('seed', 1));
  t.equal(toHex(ecvrfProve(seed, alpha)), toHex(ecvrfProve(Uint8Array.from(seed), alpha)), 'the new seed, not the one remembered');
  t.not(toHex(ecvrfProve(seed, alpha)), before);
});
