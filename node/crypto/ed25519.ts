import { createPrivateKey, createPublicKey, randomBytes, sign as nodeSign, verify as nodeVerify, type KeyObject } from 'node:crypto';
import { createRequire } from 'node:module';

/**
 * Ed25519 (RFC 8032) through node:crypto. node:crypto (OpenSSL) is the one verifier whose verdict
 * consensus follows: another implementation could disagree on edge cases (non-canonical points,
 * small-order points, S >= L). libsodium checks twice as fast and is stricter: it computes the
 * same cofactorless equation over the same bytes, and refuses in addition non-canonical and
 * small-order keys and R. So what libsodium accepts OpenSSL accepts too, and verify() answers
 * true on libsodium's yes; on its no, OpenSSL decides. The verdict is OpenSSL's either way
 * (test/crypto/ed25519.test.ts checks signatures that only OpenSSL accepts); only a valid
 * signature, the common case, is cheaper.
 */

interface Sodium {
  crypto_sign_verify_detached(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean;
}

/** libsodium, when its prebuilt addon loads on this platform; otherwise every check is OpenSSL's */
const sodium: Sodium | undefined = (() => {
  try {
    return createRequire(import.meta.url)('sodium-native') as Sodium;
  } catch {
    return undefined;
  }
})();

const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const PUBLIC_KEY_CACHE_LIMIT = 50_000;
const publicKeyCache = new Map<string, KeyObject>();

export const PUBLIC_KEY_LENGTH = 32;
export const SEED_LENGTH = 32;
export const SIGNATURE_LENGTH = 64;

export interface Ed25519KeyPair {
  /** the 32-byte RFC 8032 private key */
  seed: Uint8Array;
  publicKey: Uint8Array;
}

export function generateSeed(): Uint8Array {
  return new Uint8Array(randomBytes(SEED_LENGTH));
}

/**
 * Parsing a private key costs more than the signature it makes, and a node signs with the same
 * few seeds (its validator key, a plugin's issuer key) again and again. Keyed by the seed's
 * array, with a copy of its bytes: a seed changed in place gets a fresh key.
 */
const privateKeyCache = new WeakMap<Uint8Array, { bytes: Uint8Array; key: KeyObject }>();

function privateKeyObject(seed: Uint8Array): KeyObject {
  if (seed.length !== SEED_LENGTH) throw new RangeError(`an Ed25519 seed is ${SEED_LENGTH} bytes, got ${seed.length}`);
  const cached = privateKeyCache.get(seed);
  if (cached && Buffer.from(cached.bytes).equals(seed)) return cached.key;
  const key = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  privateKeyCache.set(seed, { bytes: Uint8Array.from(seed), key });
  return key;
}

function publicKeyObject(publicKey: Uint8Array): KeyObject {
  const id = Buffer.from(publicKey).toString('hex');
  let key = publicKeyCache.get(id);
  if (!key) {
    key = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' });
    if (publicKeyCache.size >= PUBLIC_KEY_CACHE_LIMIT) publicKeyCache.clear();
    publicKeyCache.set(id, key);
  }
  return key;
}

export function keyPairFromSeed(seed: Uint8Array): Ed25519KeyPair {
  const der = createPublicKey(privateKeyObject(seed)).export({ format: 'der', type: 'spki' });
  return { seed: Uint8Array.from(seed), publicKey: new Uint8Array(der.subarray(SPKI_PREFIX.length)) };
}

export function sign(seed: Uint8Array, message: Uint8Array): Uint8Array {
  return new Uint8Array(nodeSign(null, message, privateKeyObject(seed)));
}

/** False for any malformed key or signature; never throws on hostile input. */
export function verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  return sodiumAccepts(publicKey, message, signature) || verifyOpenSsl(publicKey, message, signature);
}

function sodiumAccepts(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (!sodium || publicKey.length !== PUBLIC_KEY_LENGTH || signature.length !== SIGNATURE_LENGTH) return false;
  try {
    return sodium.crypto_sign_verify_detached(signature, message, publicKey);
  } catch {
    return false;
  }
}

/** node:crypto's verdict alone: the rule verify() follows, and the bench's unit of CPU (bench/lib/ed25519-unit.ts) */
export function verifyOpenSsl(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (publicKey.length !== PUBLIC_KEY_LENGTH || signature.length !== SIGNATURE_LENGTH) return false;
  try {
    return nodeVerify(null, message, publicKeyObject(publicKey), signature);
  } catch {
    return false;
  }
}
