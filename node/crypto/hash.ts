import { createHash } from 'node:crypto';
import { blake3 as nativeBlake3 } from '@napi-rs/blake-hash';

/**
 * BLAKE3 with a 32-byte output: the chain's primary hash. Native (`@napi-rs/blake-hash`, the
 * reference Rust implementation, prebuilt): 3× the JavaScript one for 32 bytes, 6× for 1 KiB,
 * the same digests (test/crypto/hash.test.ts). The answer is copied into a plain Uint8Array, so
 * `slice` copies and `.buffer` is its own, as with every other byte string here.
 */
export function blake3(data: Uint8Array): Uint8Array {
  return new Uint8Array(nativeBlake3(data));
}

/** SHA-256: the secondary hash (credential registration and commitments). */
export function sha256(data: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha256').update(data).digest());
}
