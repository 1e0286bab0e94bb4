import { bls12_381 } from '@noble/curves/bls12-381.js';
import { calculateDomain, challenge, concatBytes, decodeScalar, EXPAND_LEN, expandMessage, generatorsBytes, messagesToScalars, mod, os2ip, P1_BYTES, POINT_BYTES, r, scalarBytes } from './suite.js';

/**
 * BBS ProofGen (IETF CFRG BBS draft -06+, ciphersuite BLS12-381-SHA-256, core API) on
 * @noble/curves. The hidden messages, the signature and the random scalars are the holder's
 * secrets, so every multiplication goes through `ctMsm`, a data-oblivious fixed-window
 * multi-scalar multiplication: the same doublings, additions and table reads whatever the
 * scalars (as noble's own constant-time `multiply`, but with one doubling chain shared by all
 * the points of a sum). With the generators decoded once from the shipped table instead of
 * hashed to the curve on every call, it is several times faster than @digitalbazaar/bbs-signatures,
 * and gives the same bytes for the same random scalars (test/crypto/bbs-impl.test.ts).
 */

const G1 = bls12_381.G1.Point;
type G1Point = InstanceType<typeof G1>;

let P1: G1Point | undefined;
const generators: G1Point[] = [];

function generatorPoints(count: number): G1Point[] {
  if (generators.length < count) {
    const bytes = generatorsBytes(count);
    for (let i = generators.length; i < count; i++) generators.push(G1.fromBytes(bytes.subarray(i * POINT_BYTES, (i + 1) * POINT_BYTES)));
  }
  return generators;
}

const WINDOW = 4;
const WINDOWS = Math.ceil(r.toString(2).length / WINDOW); // 64
const MASK = BigInt((1 << WINDOW) - 1);

/**
 * sum(points[i] * scalars[i]) for scalars in [0, r), without a branch or a table index that
 * depends on a scalar: each point's multiples 0..15 are built, then for each 4-bit window (most
 * significant first) the sum is doubled four times and every point adds the multiple its digit
 * selects, found by reading the whole table. Complete addition formulas make adding the identity
 * (digit 0) the same work as any other addition.
 */
export function ctMsm(points: readonly G1Point[], scalars: readonly bigint[]): G1Point {
  const tables = points.map((p) => {
    const t: G1Point[] = [G1.ZERO, p];
    for (let k = 2; k <= Number(MASK); k++) t.push(t[k - 1]!.add(p));
    return t;
  });
  let acc = G1.ZERO;
  for (let w = WINDOWS - 1; w >= 0; w--) {
    if (w !== WINDOWS - 1) for (let d = 0; d < WINDOW; d++) acc = acc.double();
    const shift = BigInt(w * WINDOW);
    for (let i = 0; i < tables.length; i++) {
      const table = tables[i]!;
      const digit = Number((scalars[i]! >> shift) & MASK);
      let sel = table[0]!;
      for (let k = 1; k < table.length; k++) sel = k === digit ? table[k]! : sel;
      acc = acc.add(sel);
    }
  }
  return acc;
}

/** octets_to_signature: A a G1 point in the subgroup and not the identity, 0 < e < r */
export function octetsToSignature(signature: Uint8Array): { A: G1Point; e: bigint } | undefined {
  if (signature.length !== POINT_BYTES + 32) return undefined;
  let A: G1Point;
  try {
    A = G1.fromBytes(signature.subarray(0, POINT_BYTES));
  } catch {
    return undefined;
  }
  const e = decodeScalar(signature, POINT_BYTES);
  return A.is0() || e === undefined ? undefined : { A, e };
}

/** calculate_random_scalars(count): OS2IP(get_random(expand_len)) mod r, each */
export function randomScalars(count: number): bigint[] {
  return Array.from({ length: count }, () => os2ip(crypto.getRandomValues(new Uint8Array(EXPAND_LEN))) % r);
}

/** mocked_calculate_random_scalars(count, seed, dst) of the draft's test vectors */
export function mockedRandomScalars(count: number, seed: Uint8Array, dst: Uint8Array): bigint[] {
  const v = expandMessage(seed, dst, EXPAND_LEN * count);
  return Array.from({ length: count }, (_, i) => os2ip(v.subarray(i * EXPAND_LEN, (i + 1) * EXPAND_LEN)) % r);
}

export interface ProofGenInput {
  PK: Uint8Array;
  signature: Uint8Array;
  header: Uint8Array;
  ph: Uint8Array;
  messages: readonly Uint8Array[];
  /** strictly ascending, each below messages.length */
  disclosedIndexes: readonly number[];
  /** 5 + U scalars (r1, r2, e~, r1~, r3~, m~_j1 … m~_jU); random ones when absent (tests pass the draft's mocked ones) */
  randomScalars?: readonly bigint[];
}

/** ProofGen(PK, signature, header, ph, messages, disclosed_indexes); throws if the signature does not decode */
export function proofGen(input: ProofGenInput): Uint8Array {
  const sig = octetsToSignature(input.signature);
  if (!sig) throw new Error('the signature does not decode (A must be a G1 point other than the identity, 0 < e < r)');
  const { A, e } = sig;
  const L = input.messages.length;
  const disclosedSet = new Set(input.disclosedIndexes);
  const undisclosed: number[] = [];
  for (let i = 0; i < L; i++) if (!disclosedSet.has(i)) undisclosed.push(i);
  const U = undisclosed.length;
  const rs = input.randomScalars ?? randomScalars(5 + U);
  if (rs.length !== 5 + U) throw new Error(`ProofGen needs ${5 + U} random scalars, got ${rs.length}`);
  const [r1, r2, eTilde, r1Tilde, r3Tilde] = rs as [bigint, bigint, bigint, bigint, bigint];
  const mTilde = rs.slice(5);

  // ProofInit
  const msg = messagesToScalars(input.messages);
  const gens = generatorPoints(L + 1);
  const domain = calculateDomain(input.PK, L, input.header);
  P1 ??= G1.fromBytes(P1_BYTES);
  const B = P1.add(ctMsm(gens.slice(0, L + 1), [domain, ...msg]));
  const D = ctMsm([B], [r2]);
  const Abar = ctMsm([A], [mod(r1 * r2)]);
  const Bbar = ctMsm([D, Abar], [r1, mod(-e)]);
  const T1 = ctMsm([Abar, D], [eTilde, r1Tilde]);
  const T2 = ctMsm([D, ...undisclosed.map((j) => gens[j + 1]!)], [r3Tilde, ...mTilde]);
  const points = [Abar, Bbar, D];
  const pointBytes = [...points, T1, T2].map((p) => p.toBytes(true));

  // ProofChallengeCalculate, ProofFinalize
  const c = challenge(
    input.disclosedIndexes.map((index) => ({ index, scalar: msg[index]! })),
    pointBytes,
    domain,
    input.ph,
  );
  const r3 = bls12_381.fields.Fr.inv(r2);
  const eHat = mod(eTilde + e * c);
  const r1Hat = mod(r1Tilde - r1 * c);
  const r3Hat = mod(r3Tilde - r3 * c);
  const mHat = undisclosed.map((j, k) => mod(mTilde[k]! + msg[j]! * c));
  return concatBytes(...pointBytes.slice(0, 3), ...[eHat, r1Hat, r3Hat, ...mHat, c].map(scalarBytes));
}
