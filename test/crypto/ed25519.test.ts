import t from 'tap';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { ed25519 } from '@noble/curves/ed25519.js';
import { keyPairFromSeed, sign, verify, verifyOpenSsl } from '../../node/crypto/ed25519.js';
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

/**
 * Signatures that OpenSSL accepts and libsodium refuses (a small-order key, a small-order R):
 * verify() must still follow OpenSSL, the rule, and take libsodium's word only for a yes.
 */
t.test('the verdict is OpenSSL’s where libsodium is stricter', async (t) => {
  const L = ed25519.Point.Fn.ORDER;
  const le = (n: bigint) => Uint8Array.from({ length: 32 }, (_, i) => Number((n >> BigInt(8 * i)) & 0xffn));
  const k = (R: Uint8Array, A: Uint8Array, M: Uint8Array) => {
    const h = createHash('sha512').update(R).update(A).update(M).digest();
    let n = 0n;
    for (let i = 63; i >= 0; i--) n = (n << 8n) | BigInt(h[i]!);
    return n % L;
  };
  const sodium = createRequire(import.meta.url)('sodium-native') as { crypto_sign_verify_detached(s: Uint8Array, m: Uint8Array, k: Uint8Array): boolean };
  const message = new Uint8Array([7, 7, 7]);
  const identity = ed25519.Point.ZERO.toBytes();

  // the identity as the key: [S]B = R + [k]A holds for R = [S]B, whatever the message
  const S = 123456789n;
  const onIdentity = Uint8Array.from([...ed25519.Point.BASE.multiply(S).toBytes(), ...le(S)]);
  t.notOk(sodium.crypto_sign_verify_detached(onIdentity, message, identity), 'libsodium refuses a signature under the identity key');
  t.ok(verifyOpenSsl(identity, message, onIdentity), 'OpenSSL accepts it');
  t.ok(verify(identity, message, onIdentity), 'and so does verify()');

  // the identity as R, under an ordinary key a*B: S = k*a
  const a = 987654321n;
  const A = ed25519.Point.BASE.multiply(a).toBytes();
  const smallR = Uint8Array.from([...identity, ...le((k(identity, A, message) * a) % L)]);
  t.notOk(sodium.crypto_sign_verify_detached(smallR, message, A), 'libsodium refuses a signature whose R is the identity');
  t.ok(verifyOpenSsl(A, message, smallR), 'OpenSSL accepts it');
  t.ok(verify(A, message, smallR), 'and so does verify()');

  const tampered = Uint8Array.from(smallR);
  tampered[40]! ^= 1;
  t.notOk(verify(A, message, tampered), 'one bit off, neither accepts');
});
