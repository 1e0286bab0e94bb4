/**
 * BLAKE3 (32-byte output) specialised for the short inputs the state tree hashes by the thousand:
 * 65-byte nodes, 20-50-byte state keys, small values. An input of at most one chunk (1024 bytes)
 * is hashed here with preallocated state; anything longer goes to the shared implementation in
 * crypto/hash.ts. The output is plain BLAKE3: tests compare it with @noble/hashes and the
 * published vectors. Per call this is several times faster than the general-purpose hasher,
 * which allocates a hasher object and buffers for every input.
 */
import { blake3 as blake3General } from '../../crypto/hash.js';

const CHUNK_LEN = 1024;
const BLOCK_LEN = 64;
const CHUNK_START = 1;
const CHUNK_END = 2;
const ROOT = 8;
const IV = Uint32Array.of(0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19);
const PERMUTATION = [2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8];

/** Message word order of each of the 7 rounds: the permutation applied r times. */
const SCHEDULE = (() => {
  const out = new Uint8Array(7 * 16);
  let order = Array.from({ length: 16 }, (_, i) => i);
  for (let r = 0; r < 7; r++) {
    out.set(order, r * 16);
    order = PERMUTATION.map((p) => order[p]!);
  }
  return out;
})();

const cv = new Uint32Array(8);
const m = new Uint32Array(16);

/** Compresses block `m` into `cv` (chunk counter 0), keeping the first 8 output words. */
function compress(blockLen: number, flags: number): void {
  let v0 = cv[0]!, v1 = cv[1]!, v2 = cv[2]!, v3 = cv[3]!, v4 = cv[4]!, v5 = cv[5]!, v6 = cv[6]!, v7 = cv[7]!;
  let v8 = IV[0]!, v9 = IV[1]!, v10 = IV[2]!, v11 = IV[3]!, v12 = 0, v13 = 0, v14 = blockLen, v15 = flags;
  const s = SCHEDULE;
  for (let r = 0; r < 7 * 16; r += 16) {
    // the column step, then the diagonal step; each group of four lines is one G
    v0 = (v0 + v4 + m[s[r]!]!) | 0; v12 ^= v0; v12 = (v12 >>> 16) | (v12 << 16);
    v8 = (v8 + v12) | 0; v4 ^= v8; v4 = (v4 >>> 12) | (v4 << 20);
    v0 = (v0 + v4 + m[s[r + 1]!]!) | 0; v12 ^= v0; v12 = (v12 >>> 8) | (v12 << 24);
    v8 = (v8 + v12) | 0; v4 ^= v8; v4 = (v4 >>> 7) | (v4 << 25);
    v1 = (v1 + v5 + m[s[r + 2]!]!) | 0; v13 ^= v1; v13 = (v13 >>> 16) | (v13 << 16);
    v9 = (v9 + v13) | 0; v5 ^= v9; v5 = (v5 >>> 12) | (v5 << 20);
    v1 = (v1 + v5 + m[s[r + 3]!]!) | 0; v13 ^= v1; v13 = (v13 >>> 8) | (v13 << 24);
    v9 = (v9 + v13) | 0; v5 ^= v9; v5 = (v5 >>> 7) | (v5 << 25);
    v2 = (v2 + v6 + m[s[r + 4]!]!) | 0; v14 ^= v2; v14 = (v14 >>> 16) | (v14 << 16);
    v10 = (v10 + v14) | 0; v6 ^= v10; v6 = (v6 >>> 12) | (v6 << 20);
    v2 = (v2 + v6 + m[s[r + 5]!]!) | 0; v14 ^= v2; v14 = (v14 >>> 8) | (v14 << 24);
    v10 = (v10 + v14) | 0; v6 ^= v10; v6 = (v6 >>> 7) | (v6 << 25);
    v3 = (v3 + v7 + m[s[r + 6]!]!) | 0; v15 ^= v3; v15 = (v15 >>> 16) | (v15 << 16);
    v11 = (v11 + v15) | 0; v7 ^= v11; v7 = (v7 >>> 12) | (v7 << 20);
    v3 = (v3 + v7 + m[s[r + 7]!]!) | 0; v15 ^= v3; v15 = (v15 >>> 8) | (v15 << 24);
    v11 = (v11 + v15) | 0; v7 ^= v11; v7 = (v7 >>> 7) | (v7 << 25);
    v0 = (v0 + v5 + m[s[r + 8]!]!) | 0; v15 ^= v0; v15 = (v15 >>> 16) | (v15 << 16);
    v10 = (v10 + v15) | 0; v5 ^= v10; v5 = (v5 >>> 12) | (v5 << 20);
    v0 = (v0 + v5 + m[s[r + 9]!]!) | 0; v15 ^= v0; v15 = (v15 >>> 8) | (v15 << 24);
    v10 = (v10 + v15) | 0; v5 ^= v10; v5 = (v5 >>> 7) | (v5 << 25);
    v1 = (v1 + v6 + m[s[r + 10]!]!) | 0; v12 ^= v1; v12 = (v12 >>> 16) | (v12 << 16);
    v11 = (v11 + v12) | 0; v6 ^= v11; v6 = (v6 >>> 12) | (v6 << 20);
    v1 = (v1 + v6 + m[s[r + 11]!]!) | 0; v12 ^= v1; v12 = (v12 >>> 8) | (v12 << 24);
    v11 = (v11 + v12) | 0; v6 ^= v11; v6 = (v6 >>> 7) | (v6 << 25);
    v2 = (v2 + v7 + m[s[r + 12]!]!) | 0; v13 ^= v2; v13 = (v13 >>> 16) | (v13 << 16);
    v8 = (v8 + v13) | 0; v7 ^= v8; v7 = (v7 >>> 12) | (v7 << 20);
    v2 = (v2 + v7 + m[s[r + 13]!]!) | 0; v13 ^= v2; v13 = (v13 >>> 8) | (v13 << 24);
    v8 = (v8 + v13) | 0; v7 ^= v8; v7 = (v7 >>> 7) | (v7 << 25);
    v3 = (v3 + v4 + m[s[r + 14]!]!) | 0; v14 ^= v3; v14 = (v14 >>> 16) | (v14 << 16);
    v9 = (v9 + v14) | 0; v4 ^= v9; v4 = (v4 >>> 12) | (v4 << 20);
    v3 = (v3 + v4 + m[s[r + 15]!]!) | 0; v14 ^= v3; v14 = (v14 >>> 8) | (v14 << 24);
    v9 = (v9 + v14) | 0; v4 ^= v9; v4 = (v4 >>> 7) | (v4 << 25);
  }
  cv[0] = v0 ^ v8;
  cv[1] = v1 ^ v9;
  cv[2] = v2 ^ v10;
  cv[3] = v3 ^ v11;
  cv[4] = v4 ^ v12;
  cv[5] = v5 ^ v13;
  cv[6] = v6 ^ v14;
  cv[7] = v7 ^ v15;
}

/** Loads up to 64 bytes of `data` from `at` into `m` as little-endian words, zero-padded. */
function loadBlock(data: Uint8Array, at: number, len: number): void {
  if (len === BLOCK_LEN) {
    for (let i = 0, p = at; i < 16; i++, p += 4) m[i] = data[p]! | (data[p + 1]! << 8) | (data[p + 2]! << 16) | (data[p + 3]! << 24);
    return;
  }
  m.fill(0);
  for (let i = 0; i < len; i++) m[i >> 2] = m[i >> 2]! | (data[at + i]! << ((i & 3) * 8));
}

/** BLAKE3-256 of `data`. */
export function hash(data: Uint8Array): Uint8Array {
  if (data.length > CHUNK_LEN) return blake3General(data);
  cv.set(IV);
  let at = 0;
  let flags = CHUNK_START;
  while (data.length - at > BLOCK_LEN) {
    loadBlock(data, at, BLOCK_LEN);
    compress(BLOCK_LEN, flags);
    flags = 0;
    at += BLOCK_LEN;
  }
  const last = data.length - at;
  loadBlock(data, at, last);
  compress(last, flags | CHUNK_END | ROOT);
  const out = new Uint8Array(32);
  for (let i = 0; i < 8; i++) {
    const w = cv[i]!;
    out[i * 4] = w;
    out[i * 4 + 1] = w >>> 8;
    out[i * 4 + 2] = w >>> 16;
    out[i * 4 + 3] = w >>> 24;
  }
  return out;
}
