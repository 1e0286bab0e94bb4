import t from 'tap';
import { keyPairFromSeed, sign, verify } from '../../node/crypto/ed25519.js';
import { fromHex, toHex } from '../../node/protocol/bytes.js';
import { loadVectors } from '../fixtures/vectors.js';

const { vectors } = loadVectors('ed25519.json');

for (const v of vectors) {
  t.test(`RFC 8032 ${v.name}`, async (t) => {
    const seed = fromHex(v.secretKey);
    const message = fromHex(v.message);
    t.equal(toHex(keyPairFromSeed(seed).publicKey), v.publicKey, 'public key derives from the seed');
    t.equal(toHex(sign(seed, message)), v.signature, 'signature is byte-exact');
    t.ok(verify(fromHex(v.publicKey), message, fromHex(v.signature)), 'verifies');
    const tampered = fromHex(v.signature);
    tampered[0]! ^= 1;
    t.notOk(verify(fromHex(v.publicKey), message, tampered), 'a flipped bit fails');
  });
}

t.test('hostile inputs return false, never throw', async (t) => {
  t.notOk(verify(new Uint8Array(31), new Uint8Array(0), new Uint8Array(64)));
  t.notOk(verify(new Uint8Array(32), new Uint8Array(0), new Uint8Array(63)));
  t.notOk(verify(new Uint8Array(32).fill(0xff), new Uint8Array(0), new Uint8Array(64)));
  // S >= L (non-canonical) is rejected by the one verifier
  const v = vectors[0];
  const sig = fromHex(v.signature);
  sig[63] = 0xff;
  t.notOk(verify(fromHex(v.publicKey), fromHex(v.message), sig));
});

t.test('a seed changed in place signs with its new key, not a cached one', async (t) => {
  const seed = new Uint8Array(32).fill(1);
  const message = new Uint8Array([1, 2, 3]);
  const first = sign(seed, message);
  t.same(sign(seed, message), first, 'the same seed signs the same');
  seed.fill(2);
  t.same(sign(seed, message), sign(new Uint8Array(32).fill(2), message), 'the new bytes decide the key');
  t.notSame(sign(seed, message), first);
});
