import { createHash } from 'node:crypto';
import { ed25519, ed25519_hasher } from '@noble/curves/ed25519.js';
import { bytesToNumberLE as leToInt, numberToBytesLE as intToLe } from '@noble/curves/utils.js';
import * as vt from './ed25519-vartime.js';
import { ECVRF_PROOF_LENGTH } from './sizes.js';

export { ECVRF_OUTPUT_LENGTH, ECVRF_PROOF_LENGTH } from './sizes.js';

/**
 * ECVRF-EDWARDS25519-SHA512-TAI and -ELL2 (RFC 9381, sections 5 and 5.5), on @noble/curves.
 * A VRF proof `pi` shows that `beta` is the one output of the key's VRF on `alpha`: anyone with
 * the public key can check it, and nobody can predict it without the secret key. The key pair is
 * an ordinary Ed25519 one (RFC 8032): the 32-byte seed and its public key.
 *
 * pi (80 bytes) = Gamma (32) ‖ c (16, little-endian) ‖ s (32, little-endian)
 * beta (64 bytes) = SHA-512(suite ‖ 0x03 ‖ point(8 · Gamma) ‖ 0x00)
 *
 * Issuance verifies every attestation on every node, so verification is tuned: variable-time
 * arithmetic (ed25519-vartime.ts), per-key tables, shared doubling chains, one field inversion
 * for all encodings, and a memo of exact inputs (ecvrfVerifyCached). Proving keeps @noble/curves'
 * constant-time multiplications. None of it changes a result; the RFC vectors pin the outputs.
 */

export type EcvrfSuite = 'TAI' | 'ELL2';

type Point = InstanceType<typeof ed25519.Point>;

const Point = ed25519.Point;
const Fp = Point.Fp;
const ORDER = Point.Fn.ORDER;
const SUITE: Record<EcvrfSuite, number> = { TAI: 0x03, ELL2: 0x04 };
const C_LENGTH = 16;

function sha512(...parts: Uint8Array[]): Uint8Array {
  const h = createHash('sha512');
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('hex');
}

/** RFC 8032 decoding (strict: a non-canonical y or a bad sign bit fails); undefined when invalid. */
function toPoint(bytes: Uint8Array): Point | undefined {
  try {
    return Point.fromBytes(bytes, false);
  } catch {
    return undefined;
  }
}

/**
 * Encodings of several points with one field inversion (RFC 8032 5.1.2, as Point.toBytes). A
 * strictly decoded point encodes back to its input, so decoded points never need this.
 */
function encodePoints(points: Point[]): Uint8Array[] {
  const inverses = Fp.invertBatch(points.map((p) => p.Z));
  return points.map((p, i) => {
    const bytes = Fp.toBytes(Fp.mul(p.Y, inverses[i]!));
    if (Fp.mul(p.X, inverses[i]!) & 1n) bytes[31]! |= 0x80;
    return bytes;
  });
}

/** The first try-and-increment hash that decodes to a point (RFC 9381 5.4.1.1), decoded by `decode`. */
function tryAndIncrement<T>(publicKey: Uint8Array, alpha: Uint8Array, decode: (bytes: Uint8Array) => T | undefined): T {
  // about half of all strings decode, so 256 tries never all fail in practice
  for (let ctr = 0; ctr < 256; ctr++) {
    const p = decode(sha512(Uint8Array.of(SUITE.TAI, 0x01), publicKey, alpha, Uint8Array.of(ctr, 0x00)).subarray(0, 32));
    if (p) return p;
  }
  throw new Error('ECVRF try-and-increment found no point');
}

/** H, the curve point alpha is hashed to, salted with the public key (RFC 9381 5.4.1). */
function encodeToCurve(suite: EcvrfSuite, publicKey: Uint8Array, alpha: Uint8Array): Point {
  if (suite === 'ELL2') {
    const dst = Uint8Array.of(...new TextEncoder().encode('ECVRF_edwards25519_XMD:SHA-512_ELL2_NU_'), SUITE.ELL2);
    return ed25519_hasher.encodeToCurve(Uint8Array.of(...publicKey, ...alpha), { DST: dst }) as unknown as Point;
  }
  return tryAndIncrement(publicKey, alpha, toPoint).clearCofactor();
}

/** c = the first 16 bytes of SHA-512(suite ‖ 0x02 ‖ Y ‖ H ‖ Gamma ‖ U ‖ V ‖ 0x00), little-endian. */
function challenge(suite: EcvrfSuite, encoded: Uint8Array[]): bigint {
  const hash = sha512(Uint8Array.of(SUITE[suite], 0x02), ...encoded, Uint8Array.of(0x00));
  return leToInt(hash.subarray(0, C_LENGTH));
}

/** beta from the encoding of 8 · Gamma. */
function outputOf(suite: EcvrfSuite, cofactorGamma: Uint8Array): Uint8Array {
  return sha512(Uint8Array.of(SUITE[suite], 0x03), cofactorGamma, Uint8Array.of(0x00));
}

/**
 * A seed's scalar, public key and nonce prefix (RFC 8032 5.1.5), kept per seed array with a copy
 * of its bytes (a seed changed in place gets fresh values): an attester proves with one key again
 * and again, and deriving them costs a base-point multiplication.
 */
const proverKeys = new WeakMap<Uint8Array, { bytes: Uint8Array; x: bigint; publicKey: Uint8Array; prefix: Uint8Array }>();

function proverKey(secretKey: Uint8Array): { x: bigint; publicKey: Uint8Array; prefix: Uint8Array } {
  const cached = proverKeys.get(secretKey);
  if (cached && Buffer.from(cached.bytes).equals(secretKey)) return cached;
  const { scalar: x, pointBytes: publicKey, prefix } = ed25519.utils.getExtendedPublicKey(secretKey);
  const entry = { bytes: Uint8Array.from(secretKey), x, publicKey, prefix };
  proverKeys.set(secretKey, entry);
  return entry;
}

/** The proof for `alpha` under the Ed25519 key whose 32-byte seed is `secretKey`. Constant-time multiplications: x and k are secret. */
export function ecvrfProve(secretKey: Uint8Array, alpha: Uint8Array, suite: EcvrfSuite = 'TAI'): Uint8Array {
  if (secretKey.length !== 32) throw new RangeError(`an ECVRF secret key is a 32-byte Ed25519 seed, got ${secretKey.length} bytes`);
  const { x, publicKey, prefix } = proverKey(secretKey);
  const H = encodeToCurve(suite, publicKey, alpha);
  const gamma = H.multiply(x);
  const [h, g] = encodePoints([H, gamma]);
  // the nonce of RFC 9381 5.4.2.2: SHA-512 of the seed's second half and H, mod q
  const k = leToInt(sha512(prefix, h!)) % ORDER;
  const c = challenge(suite, [publicKey, h!, g!, ...encodePoints([Point.BASE.multiply(k), H.multiply(k)])]);
  const s = (k + c * x) % ORDER;
  return Uint8Array.of(...g!, ...intToLe(c, C_LENGTH), ...intToLe(s, 32));
}

/**
 * Chunked multiples for U = s·B − c·Y: the scalars are cut into 16-bit chunks, and the points into
 * P, 2^16·P, 2^32·P, …, so U takes 16 doublings, not 253. The base point's tables are built once;
 * a key's (of −Y, for the 128-bit c) once per key: validators attest again and again, so decoding
 * the key (a square root) and its tables are paid once. Least recently used key goes first.
 */
const CHUNK_BITS = 16;
const KEY_CACHE_LIMIT = 256;
const keyCache = new Map<string, vt.Table[]>();
let baseTables: vt.Table[] | undefined;

function chunkTables(p: vt.Ext, chunks: number, w: number): vt.Table[] {
  const tables = [vt.table(p, w)];
  for (let i = 1; i < chunks; i++) {
    p = vt.doubleTimes(p, CHUNK_BITS);
    tables.push(vt.table(p, w));
  }
  return tables;
}

/** The 16-bit little-endian chunks of a scalar's bytes. */
function chunks(bytes: Uint8Array): bigint[] {
  const out: bigint[] = [];
  for (let i = 0; i < bytes.length; i += 2) out.push(BigInt(bytes[i]! | (bytes[i + 1]! << 8)));
  return out;
}

/** undefined for a key that is not a point or has low order (RFC 9381 5.4.5); such keys are not cached. */
function keyTables(publicKey: Uint8Array): vt.Table[] | undefined {
  const id = hex(publicKey);
  const hit = keyCache.get(id);
  if (hit) {
    keyCache.delete(id);
    keyCache.set(id, hit);
    return hit;
  }
  const Y = vt.decode(publicKey);
  if (!Y || vt.isIdentity(vt.doubleTimes(Y, 3))) return undefined;
  const tables = chunkTables(vt.negate(Y), (C_LENGTH * 8) / CHUNK_BITS, 5);
  keyCache.set(id, tables);
  if (keyCache.size > KEY_CACHE_LIMIT) keyCache.delete(keyCache.keys().next().value as string);
  return tables;
}

/**
 * The VRF output `beta` when `proof` is valid for `alpha` under `publicKey`, else undefined.
 * Never throws on malformed input. A low-order public key is refused (RFC 9381 5.4.5).
 */
export function ecvrfVerify(publicKey: Uint8Array, alpha: Uint8Array, proof: Uint8Array, suite: EcvrfSuite = 'TAI'): Uint8Array | undefined {
  if (publicKey.length !== 32 || proof.length !== ECVRF_PROOF_LENGTH) return undefined;
  const minusY = keyTables(publicKey);
  if (!minusY) return undefined;
  const gammaBytes = proof.subarray(0, 32);
  const gamma = vt.decode(gammaBytes);
  if (!gamma) return undefined;
  const cBytes = proof.subarray(32, 32 + C_LENGTH);
  const sBytes = proof.subarray(32 + C_LENGTH);
  const c = leToInt(cBytes);
  const s = leToInt(sBytes);
  if (s >= ORDER) return undefined;
  let H: vt.Ext;
  if (suite === 'TAI') H = vt.doubleTimes(tryAndIncrement(publicKey, alpha, vt.decode), 3);
  else {
    const h = encodeToCurve(suite, publicKey, alpha);
    H = [h.X, h.Y, h.Z, h.T];
  }
  baseTables ??= chunkTables([Point.BASE.X, Point.BASE.Y, Point.BASE.Z, Point.BASE.T], 256 / CHUNK_BITS, 7);
  // RFC 9381 5.3 steps 7 and 8: U = s·B − c·Y, V = s·H − c·Gamma
  const U = vt.multiScalar([...baseTables, ...minusY], [...chunks(sBytes), ...chunks(cBytes)]);
  const V = vt.multiScalar([vt.table(H, 5), vt.table(vt.negate(gamma), 5)], [s, c]);
  // a strictly decoded point encodes back to its input bytes: Y and Gamma need no encoding
  const [h, u, v, cofactorGamma] = vt.encodeAll([H, U, V, vt.doubleTimes(gamma, 3)]);
  if (challenge(suite, [publicKey, h!, gammaBytes, u!, v!]) !== c) return undefined;
  return outputOf(suite, cofactorGamma!);
}

/**
 * Results of ecvrfVerify by the exact bytes of (suite, publicKey, proof, alpha): a deterministic
 * value, so a hit returns what verifying again would. A block is executed by its proposer and
 * again by a proposer that re-runs it, and a proof checked before its block arrives costs a lookup
 * there. Oldest first out; valid entries hold a copy of beta, failures hold null.
 */
const VERIFIED_LIMIT = 8192;
const verified = new Map<string, Uint8Array | null>();

/** ecvrfVerify, answered from the memo when these exact inputs were checked before. */
export function ecvrfVerifyCached(publicKey: Uint8Array, alpha: Uint8Array, proof: Uint8Array, suite: EcvrfSuite = 'TAI'): Uint8Array | undefined {
  if (publicKey.length !== 32 || proof.length !== ECVRF_PROOF_LENGTH) return undefined;
  // publicKey and proof have fixed lengths, so the concatenation is unambiguous
  const id = suite + hex(publicKey) + hex(proof) + hex(alpha);
  const hit = verified.get(id);
  if (hit !== undefined) return hit === null ? undefined : Uint8Array.from(hit);
  const beta = ecvrfVerify(publicKey, alpha, proof, suite);
  verified.set(id, beta ? Uint8Array.from(beta) : null);
  if (verified.size > VERIFIED_LIMIT) verified.delete(verified.keys().next().value as string);
  return beta;
}

/** beta from a proof, without checking it (use only on a proof already verified). */
export function ecvrfProofToHash(proof: Uint8Array, suite: EcvrfSuite = 'TAI'): Uint8Array {
  const gamma = proof.length === ECVRF_PROOF_LENGTH ? vt.decode(proof.subarray(0, 32)) : undefined;
  if (!gamma) throw new RangeError('not an ECVRF proof');
  return outputOf(suite, vt.encodeAll([vt.doubleTimes(gamma, 3)])[0]!);
}
