import { createHash } from 'node:crypto';
import { ed25519, ed25519_hasher } from '@noble/curves/ed25519.js';
import { bytesToNumberLE as leToInt, numberToBytesLE as intToLe } from '@noble/curves/utils.js';

/**
 * ECVRF-EDWARDS25519-SHA512-TAI and -ELL2 (RFC 9381, sections 5 and 5.5), on @noble/curves.
 * A VRF proof `pi` shows that `beta` is the one output of the key's VRF on `alpha`: anyone with
 * the public key can check it, and nobody can predict it without the secret key. The key pair is
 * an ordinary Ed25519 one (RFC 8032): the 32-byte seed and its public key.
 *
 * pi (80 bytes) = Gamma (32) ‖ c (16, little-endian) ‖ s (32, little-endian)
 * beta (64 bytes) = SHA-512(suite ‖ 0x03 ‖ point(8 · Gamma) ‖ 0x00)
 */

export type EcvrfSuite = 'TAI' | 'ELL2';

export const ECVRF_PROOF_LENGTH = 80;
export const ECVRF_OUTPUT_LENGTH = 64;

type Point = InstanceType<typeof ed25519.Point>;

const Point = ed25519.Point;
const ORDER = Point.Fn.ORDER;
const SUITE: Record<EcvrfSuite, number> = { TAI: 0x03, ELL2: 0x04 };
const C_LENGTH = 16;

function sha512(...parts: Uint8Array[]): Uint8Array {
  const h = createHash('sha512');
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
}

/** RFC 8032 decoding (strict: a non-canonical y or a bad sign bit fails); undefined when invalid. */
function toPoint(bytes: Uint8Array): Point | undefined {
  try {
    return Point.fromBytes(bytes, false);
  } catch {
    return undefined;
  }
}

/** H, the curve point alpha is hashed to, salted with the public key (RFC 9381 5.4.1). */
function encodeToCurve(suite: EcvrfSuite, publicKey: Uint8Array, alpha: Uint8Array): Point {
  if (suite === 'ELL2') {
    const dst = Uint8Array.of(...new TextEncoder().encode('ECVRF_edwards25519_XMD:SHA-512_ELL2_NU_'), SUITE.ELL2);
    return ed25519_hasher.encodeToCurve(Uint8Array.of(...publicKey, ...alpha), { DST: dst }) as unknown as Point;
  }
  // try-and-increment: about half of all strings decode, so 256 tries never all fail in practice
  for (let ctr = 0; ctr < 256; ctr++) {
    const hash = sha512(Uint8Array.of(SUITE.TAI, 0x01), publicKey, alpha, Uint8Array.of(ctr, 0x00));
    const p = toPoint(hash.subarray(0, 32));
    if (p) return p.clearCofactor();
  }
  throw new Error('ECVRF try-and-increment found no point');
}

/** c = the first 16 bytes of SHA-512(suite ‖ 0x02 ‖ Y ‖ H ‖ Gamma ‖ U ‖ V ‖ 0x00), little-endian. */
function challenge(suite: EcvrfSuite, points: Point[]): bigint {
  const hash = sha512(Uint8Array.of(SUITE[suite], 0x02), ...points.map((p) => p.toBytes()), Uint8Array.of(0x00));
  return leToInt(hash.subarray(0, C_LENGTH));
}

function proofToHash(suite: EcvrfSuite, gamma: Point): Uint8Array {
  return sha512(Uint8Array.of(SUITE[suite], 0x03), gamma.clearCofactor().toBytes(), Uint8Array.of(0x00));
}

/** The proof for `alpha` under the Ed25519 key whose 32-byte seed is `secretKey`. */
export function ecvrfProve(secretKey: Uint8Array, alpha: Uint8Array, suite: EcvrfSuite = 'TAI'): Uint8Array {
  if (secretKey.length !== 32) throw new RangeError(`an ECVRF secret key is a 32-byte Ed25519 seed, got ${secretKey.length} bytes`);
  const { scalar: x, pointBytes: publicKey } = ed25519.utils.getExtendedPublicKey(secretKey);
  const Y = Point.fromBytes(publicKey);
  const H = encodeToCurve(suite, publicKey, alpha);
  const gamma = H.multiply(x);
  // the nonce of RFC 9381 5.4.2.2: SHA-512 of the seed's second half and H, mod q
  const k = leToInt(sha512(sha512(secretKey).subarray(32), H.toBytes())) % ORDER;
  const c = challenge(suite, [Y, H, gamma, Point.BASE.multiply(k), H.multiply(k)]);
  const s = (k + c * x) % ORDER;
  return Uint8Array.of(...gamma.toBytes(), ...intToLe(c, C_LENGTH), ...intToLe(s, 32));
}

/**
 * The VRF output `beta` when `proof` is valid for `alpha` under `publicKey`, else undefined.
 * Never throws on malformed input. A low-order public key is refused (RFC 9381 5.4.5).
 */
export function ecvrfVerify(publicKey: Uint8Array, alpha: Uint8Array, proof: Uint8Array, suite: EcvrfSuite = 'TAI'): Uint8Array | undefined {
  if (publicKey.length !== 32 || proof.length !== ECVRF_PROOF_LENGTH) return undefined;
  const Y = toPoint(publicKey);
  if (!Y || Y.clearCofactor().is0()) return undefined;
  const gamma = toPoint(proof.subarray(0, 32));
  if (!gamma) return undefined;
  const c = leToInt(proof.subarray(32, 32 + C_LENGTH));
  const s = leToInt(proof.subarray(32 + C_LENGTH));
  if (s >= ORDER) return undefined;
  const H = encodeToCurve(suite, publicKey, alpha);
  const U = Point.BASE.multiplyUnsafe(s).subtract(Y.multiplyUnsafe(c));
  const V = H.multiplyUnsafe(s).subtract(gamma.multiplyUnsafe(c));
  if (challenge(suite, [Y, H, gamma, U, V]) !== c) return undefined;
  return proofToHash(suite, gamma);
}

/** beta from a proof, without checking it (use only on a proof already verified). */
export function ecvrfProofToHash(proof: Uint8Array, suite: EcvrfSuite = 'TAI'): Uint8Array {
  const gamma = toPoint(proof.subarray(0, 32));
  if (proof.length !== ECVRF_PROOF_LENGTH || !gamma) throw new RangeError('not an ECVRF proof');
  return proofToHash(suite, gamma);
}
