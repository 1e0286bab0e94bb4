import { createHash } from 'node:crypto';
import { blake3 as nobleBlake3 } from '@noble/hashes/blake3.js';

/** BLAKE3 with a 32-byte output: the chain's primary hash. */
export function blake3(data: Uint8Array): Uint8Array {
  return nobleBlake3(data);
}

/** SHA-256: the secondary hash (credential registration and commitments). */
export function sha256(data: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha256').update(data).digest());
}
