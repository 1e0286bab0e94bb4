import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { blake3 as nobleBlake3 } from '@noble/hashes/blake3.js';

type Blake3 = (data: Uint8Array) => Uint8Array;

/**
 * The native BLAKE3 (`@napi-rs/blake-hash`, prebuilt) is 1.5 to 4 times faster than the JavaScript
 * one for the 100 to 1,000 bytes of a transaction or a header. Its prebuilt binaries do not cover
 * every platform Node runs on, so where it does not load the JavaScript one serves: the two give
 * the same bytes (test/crypto/hash.test.ts).
 */
function loadNative(): Blake3 | undefined {
  try {
    const { blake3: native } = createRequire(import.meta.url)('@napi-rs/blake-hash') as { blake3: (d: Uint8Array) => Buffer };
    return (data) => {
      const out = native(data);
      return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
    };
  } catch {
    return undefined;
  }
}

const native = loadNative();

/** Which BLAKE3 this process uses. */
export const blake3Backend: 'native' | 'js' = native ? 'native' : 'js';

/** BLAKE3 with a 32-byte output: the chain's primary hash. */
export const blake3: Blake3 = native ?? ((data) => nobleBlake3(data));

/** BLAKE3 in JavaScript, whatever the backend: the reference the native one is tested against. */
export function blake3Js(data: Uint8Array): Uint8Array {
  return nobleBlake3(data);
}

/** SHA-256: the secondary hash (credential registration and commitments). */
export function sha256(data: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha256').update(data).digest());
}
