import t from 'tap';
import { ecvrfProofToHash, ecvrfProve, ecvrfVerify, type EcvrfSuite } from '../../node/crypto/ecvrf.js';
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
