import { createCipheriv, createDecipheriv, createHash, createHmac, createPrivateKey, createPublicKey, diffieHellman, generateKeyPairSync, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';
import { hchacha } from '@noble/ciphers/chacha.js';

/**
 * The JOSE primitives DIDComm's X25519 envelopes use, on Node's own crypto (OpenSSL): X25519,
 * the Concat KDF of ECDH-ES and ECDH-1PU (RFC 7518 4.6.2; draft-madden-jose-ecdh-1pu-04 5.2 with
 * the content tag), AES-256 key wrap, and the three content ciphers. No I/O, no state but a
 * bounded cache of public key objects.
 */

export type ContentAlg = 'A256CBC-HS512' | 'A256GCM' | 'XC20P';

export const CONTENT: Record<ContentAlg, { keyBytes: number; ivBytes: number; tagBytes: number }> = {
  'A256CBC-HS512': { keyBytes: 64, ivBytes: 16, tagBytes: 32 },
  A256GCM: { keyBytes: 32, ivBytes: 12, tagBytes: 16 },
  XC20P: { keyBytes: 32, ivBytes: 24, tagBytes: 16 },
};

export const b64u = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');

/** base64url without padding, refusing any other alphabet (Buffer would skip bad characters silently) */
export function fromB64u(text: unknown): Buffer | null {
  if (typeof text !== 'string' || !/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return null;
  return Buffer.from(text, 'base64url');
}

const PUBLIC_CACHE_MAX = 4096;
const publicKeys = new Map<string, KeyObject>();

/** an X25519 public key from its 32 bytes (base64url), cached: the same agents write again and again */
export function x25519Public(x: string): KeyObject | null {
  let key = publicKeys.get(x);
  if (key) return key;
  const raw = fromB64u(x);
  if (!raw || raw.length !== 32) return null;
  key = createPublicKey({ key: { kty: 'OKP', crv: 'X25519', x }, format: 'jwk' });
  if (publicKeys.size >= PUBLIC_CACHE_MAX) publicKeys.delete(publicKeys.keys().next().value!);
  publicKeys.set(x, key);
  return key;
}

export function x25519Private(jwk: { x: string; d: string }): KeyObject {
  return createPrivateKey({ key: { kty: 'OKP', crv: 'X25519', x: jwk.x, d: jwk.d }, format: 'jwk' });
}

export function x25519Ephemeral(): { privateKey: KeyObject; x: string } {
  const { privateKey, publicKey } = generateKeyPairSync('x25519');
  return { privateKey, x: (publicKey.export({ format: 'jwk' }) as { x: string }).x };
}

/** X25519; OpenSSL refuses a low-order public key (an all-zero secret), which throws here */
export function x25519(privateKey: KeyObject, publicKey: KeyObject): Buffer {
  return diffieHellman({ privateKey, publicKey });
}

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};
const lengthPrefixed = (bytes: Uint8Array) => [u32(bytes.length), bytes];

/**
 * The 256-bit key-wrapping key: one pass of the Concat KDF over Z with SHA-256. `tag` is the
 * content tag ECDH-1PU binds in key-wrapping mode (absent for ECDH-ES).
 */
export function concatKdf(z: Uint8Array, alg: string, apu: Uint8Array, apv: Uint8Array, tag?: Uint8Array): Buffer {
  const hash = createHash('sha256').update(u32(1)).update(z);
  for (const part of [...lengthPrefixed(Buffer.from(alg)), ...lengthPrefixed(apu), ...lengthPrefixed(apv), u32(256)]) hash.update(part);
  if (tag && tag.length > 0) for (const part of lengthPrefixed(tag)) hash.update(part);
  return hash.digest();
}

const KW_IV = Buffer.from('A6A6A6A6A6A6A6A6', 'hex');

export function wrapKey(kek: Uint8Array, cek: Uint8Array): Buffer {
  const c = createCipheriv('id-aes256-wrap', kek, KW_IV);
  return Buffer.concat([c.update(cek), c.final()]);
}

/** throws when the integrity check of RFC 3394 fails */
export function unwrapKey(kek: Uint8Array, wrapped: Uint8Array): Buffer {
  const d = createDecipheriv('id-aes256-wrap', kek, KW_IV);
  return Buffer.concat([d.update(wrapped), d.final()]);
}

const SIGMA = new Uint32Array([0x61707865, 0x3320646e, 0x79622d32, 0x6b206574]);

/** XChaCha20-Poly1305 as ChaCha20-Poly1305 under the HChaCha20 subkey (draft-irtf-cfrg-xchacha 2.3) */
function xchachaKeyNonce(key: Uint8Array, iv: Uint8Array): [Buffer, Buffer] {
  const words = (b: Uint8Array) => {
    const out = new Uint32Array(b.length / 4);
    for (let i = 0; i < out.length; i++) out[i] = Buffer.from(b.buffer, b.byteOffset, b.byteLength).readUInt32LE(i * 4);
    return out;
  };
  const sub = new Uint32Array(8);
  hchacha(SIGMA, words(key), words(iv.subarray(0, 16)), sub);
  const subkey = Buffer.alloc(32);
  sub.forEach((w, i) => subkey.writeUInt32LE(w, i * 4));
  return [subkey, Buffer.concat([Buffer.alloc(4), iv.subarray(16, 24)])];
}

function aadLength(aad: Uint8Array): Buffer {
  const al = Buffer.alloc(8);
  al.writeBigUInt64BE(BigInt(aad.length) * 8n);
  return al;
}

/** `iv` is fresh random bytes but in tests against published vectors */
export function encryptContent(enc: ContentAlg, cek: Uint8Array, plaintext: Uint8Array, aad: Uint8Array, iv: Buffer = randomBytes(CONTENT[enc].ivBytes)): { iv: Buffer; ciphertext: Buffer; tag: Buffer } {
  if (enc === 'A256CBC-HS512') {
    const c = createCipheriv('aes-256-cbc', cek.subarray(32), iv);
    const ciphertext = Buffer.concat([c.update(plaintext), c.final()]);
    const tag = createHmac('sha512', cek.subarray(0, 32)).update(aad).update(iv).update(ciphertext).update(aadLength(aad)).digest().subarray(0, 32);
    return { iv, ciphertext, tag };
  }
  const [key, nonce] = enc === 'XC20P' ? xchachaKeyNonce(cek, iv) : [cek, iv];
  const c = createCipheriv(enc === 'XC20P' ? 'chacha20-poly1305' : 'aes-256-gcm', key, nonce, { authTagLength: 16 } as never);
  (c as unknown as { setAAD(a: Uint8Array): void }).setAAD(aad);
  const ciphertext = Buffer.concat([c.update(plaintext), c.final()]);
  return { iv, ciphertext, tag: (c as unknown as { getAuthTag(): Buffer }).getAuthTag() };
}

/** throws when the tag does not authenticate the ciphertext and the AAD */
export function decryptContent(enc: ContentAlg, cek: Uint8Array, iv: Uint8Array, ciphertext: Uint8Array, tag: Uint8Array, aad: Uint8Array): Buffer {
  const spec = CONTENT[enc];
  if (cek.length !== spec.keyBytes || iv.length !== spec.ivBytes || tag.length !== spec.tagBytes) throw new Error(`bad ${enc} key, iv or tag length`);
  if (enc === 'A256CBC-HS512') {
    const expected = createHmac('sha512', cek.subarray(0, 32)).update(aad).update(iv).update(ciphertext).update(aadLength(aad)).digest().subarray(0, 32);
    if (!timingSafeEqual(expected, tag)) throw new Error('the content tag does not match');
    const d = createDecipheriv('aes-256-cbc', cek.subarray(32), iv);
    return Buffer.concat([d.update(ciphertext), d.final()]);
  }
  const [key, nonce] = enc === 'XC20P' ? xchachaKeyNonce(cek, iv) : [cek, iv];
  const d = createDecipheriv(enc === 'XC20P' ? 'chacha20-poly1305' : 'aes-256-gcm', key, nonce, { authTagLength: 16 } as never);
  (d as unknown as { setAAD(a: Uint8Array): void }).setAAD(aad);
  (d as unknown as { setAuthTag(t: Uint8Array): void }).setAuthTag(tag);
  return Buffer.concat([d.update(ciphertext), d.final()]);
}

export const sha256 = (text: string): Buffer => createHash('sha256').update(text).digest();
