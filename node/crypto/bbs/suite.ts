import { bls12_381 } from '@noble/curves/bls12-381.js';
import { createHash } from 'node:crypto';
import { bytesToNumberBE, concatBytes, numberToBytesBE } from '@noble/curves/utils.js';
import { GENERATOR_COUNT, GENERATORS_BASE64 } from './generators.js';

/**
 * The ciphersuite BLS12-381-SHA-256 of the IETF CFRG BBS draft (-06 and later), its core API
 * (api_id "…H2G_HM2S_"): the constants, hash_to_scalar and messages_to_scalars, serialization,
 * calculate_domain and the generators. Names follow the draft. Curve arithmetic is elsewhere:
 * verify.ts (mcl-wasm, public data only) and prove.ts (@noble/curves, constant-time).
 */

const ascii = (s: string) => new TextEncoder().encode(s);

export const CIPHERSUITE_ID = 'BBS_BLS12381G1_XMD:SHA-256_SSWU_RO_';
export const API_ID = ascii(CIPHERSUITE_ID + 'H2G_HM2S_');
const H2S_DST = concatBytes(API_ID, ascii('H2S_'));
const MAP_DST = concatBytes(API_ID, ascii('MAP_MSG_TO_SCALAR_AS_HASH_'));
export const SEED_DST = concatBytes(API_ID, ascii('SIG_GENERATOR_SEED_'));
export const GENERATOR_DST = concatBytes(API_ID, ascii('SIG_GENERATOR_DST_'));
export const GENERATOR_SEED = concatBytes(API_ID, ascii('MESSAGE_GENERATOR_SEED'));

/** the order of G1, G2 and GT */
export const r = bls12_381.fields.Fr.ORDER;
export const EXPAND_LEN = 48;
export const POINT_BYTES = 48;
export const SCALAR_BYTES = 32;
/** compressed P1, the suite's fixed G1 point */
export const P1_BYTES = hexBytes('a8ce256102840821a3e94ea9025e4662b205762f9776b3a766c872b948f1fd225e7c59698588e70d11406d161b4e28c9');
/** compressed BP2, the G2 base point */
export const BP2_BYTES = bls12_381.G2.Point.BASE.toBytes(true);

function hexBytes(hex: string): Uint8Array {
  return Uint8Array.from(hex.match(/../g)!.map((b) => parseInt(b, 16)));
}

export const mod = (x: bigint) => ((x % r) + r) % r;
export const i2osp8 = (n: number) => numberToBytesBE(n, 8);
export const scalarBytes = (s: bigint) => numberToBytesBE(s, SCALAR_BYTES);
export { bytesToNumberBE as os2ip, concatBytes };

const Z_PAD = new Uint8Array(64);

/**
 * expand_message_xmd with SHA-256 (RFC 9380, 5.3.1) on node:crypto's SHA-256, which is several
 * times faster than a JavaScript one for these short inputs. Same bytes as @noble/curves's
 * expand_message_xmd (test/crypto/bbs-impl.test.ts).
 */
export function expandMessage(msg: Uint8Array, dst: Uint8Array, len = EXPAND_LEN): Uint8Array {
  const ell = Math.ceil(len / 32);
  if (dst.length > 255 || ell > 255 || len > 65535) throw new RangeError('expand_message_xmd: bad lengths');
  const dstPrime = concatBytes(dst, Uint8Array.of(dst.length));
  const b0 = createHash('sha256').update(Z_PAD).update(msg).update(Uint8Array.of(len >> 8, len & 0xff, 0)).update(dstPrime).digest();
  const out = new Uint8Array(ell * 32);
  let bi = createHash('sha256').update(b0).update(Uint8Array.of(1)).update(dstPrime).digest();
  out.set(bi, 0);
  for (let i = 2; i <= ell; i++) {
    const x = new Uint8Array(32);
    for (let k = 0; k < 32; k++) x[k] = b0[k]! ^ bi[k]!;
    bi = createHash('sha256').update(x).update(Uint8Array.of(i)).update(dstPrime).digest();
    out.set(bi, (i - 1) * 32);
  }
  return out.subarray(0, len);
}

/** hash_to_scalar(msg_octets, dst), the default dst being api_id || "H2S_" */
export function hashToScalar(msg: Uint8Array, dst: Uint8Array = H2S_DST): bigint {
  return bytesToNumberBE(expandMessage(msg, dst)) % r;
}

export function messagesToScalars(messages: readonly Uint8Array[]): bigint[] {
  return messages.map((m) => hashToScalar(m, MAP_DST));
}

/** OS2IP of one 32-byte scalar of a signature or proof; undefined unless 0 < s < r */
export function decodeScalar(bytes: Uint8Array, offset: number): bigint | undefined {
  const s = bytesToNumberBE(bytes.subarray(offset, offset + SCALAR_BYTES));
  return s > 0n && s < r ? s : undefined;
}

const p = bls12_381.fields.Fp.ORDER;
const X_MASK = (1n << 381n) - 1n; // below the three flag bits of a compressed point's first byte

/**
 * Whether the x coordinates of a proof's three G1 points and of a public key (G2: x_c1 with the
 * flags, then x_c0) are below p, as octets_to_point_E1/E2 (the ZCash encoding) require: the
 * reference library reduces them instead, and would accept a valid proof re-encoded with x + p.
 */
export function canonicalCoordinates(proof: Uint8Array, pk: Uint8Array): boolean {
  if (proof.length < 3 * POINT_BYTES || pk.length !== 2 * POINT_BYTES) return false;
  for (let k = 0; k < 3; k++) if ((bytesToNumberBE(proof.subarray(k * POINT_BYTES, (k + 1) * POINT_BYTES)) & X_MASK) >= p) return false;
  return (bytesToNumberBE(pk.subarray(0, POINT_BYTES)) & X_MASK) < p && bytesToNumberBE(pk.subarray(POINT_BYTES)) < p;
}

let generatorBytes: Uint8Array | undefined;

/**
 * The compressed generators Q_1, H_1, …: create_generators(count, api_id) is the first `count`
 * of them. They are fixed by the ciphersuite, so they ship as a table (generators.ts, checked
 * against `createGenerators` by test/crypto/bbs-impl.test.ts): hash_to_curve costs a few ms each.
 */
export function generatorsBytes(count: number): Uint8Array {
  if (!Number.isInteger(count) || count < 1 || count > GENERATOR_COUNT) throw new RangeError(`BBS generators: 1 to ${GENERATOR_COUNT}, not ${count}`);
  generatorBytes ??= Uint8Array.from(Buffer.from(GENERATORS_BASE64, 'base64'));
  return generatorBytes.subarray(0, count * POINT_BYTES);
}

/** create_generators(count, api_id) as the draft computes it (hash_to_curve_g1 of a chain of expand_message) */
export function createGenerators(count: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  let v = expandMessage(GENERATOR_SEED, SEED_DST);
  for (let i = 1; i <= count; i++) {
    v = expandMessage(concatBytes(v, i2osp8(i)), SEED_DST);
    out.push(bls12_381.G1.hashToCurve(v, { DST: GENERATOR_DST }).toBytes(true));
  }
  return out;
}

/**
 * calculate_domain(PK, Q_1, (H_1, …, H_L), header, api_id):
 * hash_to_scalar(PK || I2OSP(L, 8) || Q_1 || H_1 || … || H_L || api_id || I2OSP(length(header), 8) || header)
 */
export function calculateDomain(pk: Uint8Array, L: number, header: Uint8Array): bigint {
  return hashToScalar(concatBytes(pk, i2osp8(L), generatorsBytes(L + 1), API_ID, i2osp8(header.length), header));
}

/**
 * ProofChallengeCalculate: hash_to_scalar(serialize((R, i1, msg_i1, …, iR, msg_iR, Abar, Bbar, D,
 * T1, T2, domain)) || I2OSP(length(ph), 8) || ph). Points come compressed.
 */
export function challenge(
  disclosed: ReadonlyArray<{ index: number; scalar: bigint }>,
  points: readonly Uint8Array[],
  domain: bigint,
  ph: Uint8Array,
): bigint {
  const parts: Uint8Array[] = [i2osp8(disclosed.length)];
  for (const d of disclosed) parts.push(i2osp8(d.index), scalarBytes(d.scalar));
  parts.push(...points, scalarBytes(domain), i2osp8(ph.length), ph);
  return hashToScalar(concatBytes(...parts));
}
