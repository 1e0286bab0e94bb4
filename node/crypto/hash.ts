import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { blake3 as nobleBlake3 } from '@noble/hashes/blake3.js';

type Blake3 = (data: Uint8Array) => Uint8Array;

/**
 * The native BLAKE3 of `@napi-rs/blake-hash` is 1.5 to 4 times faster than the JavaScript one for
 * the 100 to 1,000 bytes of a transaction or a header. Its prebuilt binaries are optional
 * dependencies for Linux x64 only (glibc and musl): the registry the lockfile is made from carries
 * no other platform's, and `npm ci` needs every optional package of a dependency in the lockfile.
 * Elsewhere the JavaScript one serves; the two give the same bytes (test/crypto/hash.test.ts).
 */
const NATIVE_PACKAGES = ['@napi-rs/blake-hash-linux-x64-gnu', '@napi-rs/blake-hash-linux-x64-musl'];

function loadNative(): Blake3 | undefined {
  if (process.platform !== 'linux' || process.arch !== 'x64') return undefined;
  const require = createRequire(import.meta.url);
  for (const name of NATIVE_PACKAGES) {
    try {
      const { blake3: native } = require(name) as { blake3: (d: Uint8Array) => Buffer };
      return (data) => {
        const out = native(data);
        return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
      };
    } catch {
      // not installed (the other libc), or it does not load here
    }
  }
  return undefined;
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
