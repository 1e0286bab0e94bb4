import { createRequire } from 'node:module';
import * as blst from '@chainsafe/blst';
import type * as Mcl from 'mcl-wasm';
import { FixedBase, sumCompressed } from './fixed-base.js';
import { GENERATOR_COUNT } from './generators.js';
import { BP2_BYTES, calculateDomain, challenge, decodeScalar, generatorsBytes, messagesToScalars, mod, P1_BYTES, POINT_BYTES, SCALAR_BYTES, scalarBytes } from './suite.js';

/**
 * BBS ProofVerify (IETF CFRG BBS draft -06+, ciphersuite BLS12-381-SHA-256, core API) on mcl-wasm,
 * a WebAssembly build of herumi's mcl pairing library: about twenty times faster than the pure-JS
 * curve arithmetic of @digitalbazaar/bbs-signatures. Everything it handles is public (proof, key,
 * disclosed messages), so its variable-time arithmetic leaks nothing; proving stays on the
 * constant-time code of prove.ts.
 *
 * Same steps and checks as the draft, rearranged only where the group law makes it exact:
 *   T1 = Bbar*c + Abar*e^ + D*r1^                                      (one 3-point MSM)
 *   T2 = P1*c + Q_1*(domain*c) + sum H_i*(msg_i*c) + D*r3^ + sum H_j*m^_j  (the draft's Bv*c
 *        expanded: every point but D is fixed)
 *   h(Abar, W) * h(Bbar, -BP2) == 1                                   (two Miller loops, one final exponentiation)
 * T2's fixed points are multiplied by comb tables that native blst sums (fixed-base.ts), for P1
 * and the first generators; D*r3^, and the generators of very large credentials, by mcl. The
 * generators come from the shipped table (suite.ts), their tables built once per thread; public
 * keys are decoded and their Miller-loop lines computed once, and kept (a few issuers sign every
 * credential).
 */

type McL = typeof Mcl;

interface Ctx {
  mcl: McL;
  negBP2: Mcl.PrecomputedG2;
  /** comb tables: [0] for P1, [i + 1] for generator i (Q_1 is generator 0), built on first use */
  fixed: FixedBase[];
  /** generators past the tables, decoded for mcl on first use */
  generators: Mcl.G1[];
  /** decoded public keys with their Miller-loop precomputation (null: not a valid key), oldest first */
  keys: Map<string, Mcl.PrecomputedG2 | null>;
}

const MAX_CACHED_KEYS = 256;
/** P1, Q_1 and H_1 … H_30 get comb tables (about 7 MB for all); a larger credential's further generators go through mcl */
const FIXED_TABLES = 32;
/** points per mulVec call at most: mcl-wasm stages its operands on its WebAssembly stack, where the largest sum here (1,027 points) is known to fit */
const MSM_CHUNK = 2048;

let loading: Promise<Ctx> | undefined;
let loaded: Ctx | undefined;

/**
 * Loads mcl-wasm in this thread, once (again after a failure), without a turn of the event loop:
 * the module is required, and its WebAssembly compiled synchronously (initInline). A piscina
 * worker does not turn its loop between tasks, and the pool's inline mode expects a verification
 * to finish before the loop turns; some 100 ms the first time, mostly mcl-wasm decoding its base64.
 */
function load(): Promise<Ctx> {
  loading ??= (async () => {
    const mcl = createRequire(import.meta.url)('mcl-wasm') as McL;
    await initInline(mcl);
    // ZCash/IETF point encodings (what the draft's point_to_octets_E1/E2 are). The subgroup checks
    // (the draft's subgroup_check_G1/G2): G2 by mcl as it deserializes; G1 by blst before mcl
    // sees the point (decodeG1), four times faster than mcl's, and a proof has three G1 points.
    mcl.setETHserialization(true);
    mcl.verifyOrderG1(false);
    mcl.verifyOrderG2(true);
    const BP2 = decode(mcl.G2, BP2_BYTES)!;
    loaded = { mcl, negBP2: new mcl.PrecomputedG2(mcl.neg(BP2)), fixed: [new FixedBase(P1_BYTES)], generators: [], keys: new Map() };
    return loaded;
  })();
  loading.catch(() => (loading = undefined));
  return loading;
}

/**
 * mcl.init(BLS12_381) with WebAssembly.instantiate swapped, for that call only, for a synchronous
 * compilation (new WebAssembly.Module and Instance: same module, same instance, but the promise
 * mcl.init awaits is already settled). Should the swap be impossible, plain mcl.init.
 */
function initInline(mcl: McL): Promise<void> {
  // the project's TypeScript libraries do not describe WebAssembly: the little used here
  const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
  const original = wasm.instantiate;
  try {
    wasm.instantiate = (bytes, imports) => {
      const module = new wasm.Module(bytes);
      return Promise.resolve({ module, instance: new wasm.Instance(module, imports) });
    };
  } catch {
    return mcl.init(mcl.BLS12_381);
  }
  try {
    return mcl.init(mcl.BLS12_381);
  } finally {
    wasm.instantiate = original;
  }
}

interface WasmApi {
  instantiate: (bytes: Uint8Array, imports: object) => Promise<{ module: object; instance: object }>;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => object;
}

/** ProofVerify(PK, proof, header, ph, disclosed_messages, disclosed_indexes); false for anything invalid. Rejects only if mcl-wasm cannot load. */
export async function proofVerify(input: ProofVerifyInput): Promise<boolean> {
  const c = loaded ?? (await load());
  const ready = prepare(c, input);
  return ready !== undefined && pairingHolds(c, ready);
}

/**
 * ProofVerify of several proofs, with the same answers as one by one, and one pairing check for
 * all of them: each proof's challenge is checked on its own, then the pairing equations
 * h(Abar_i, W_i) = h(Bbar_i, BP2) are multiplied together with random 64-bit weights r_i,
 *   prod over keys W of h(sum r_i*Abar_i, W) * h(sum r_i*Bbar_i, -BP2) == 1,
 * which holds for a batch with a false equation with probability at most 2^-64 (the small
 * exponents test of Bellare, Garay and Rabin; every point was checked to be in its prime-order
 * subgroup). The pairings were over half of a proof's cost; a batch of k shares them. When the
 * batch fails, each proof is checked alone, so that only the false ones are false.
 */
export async function proofVerifyBatch(inputs: readonly ProofVerifyInput[]): Promise<boolean[]> {
  const c = loaded ?? (await load());
  const ready = inputs.map((input) => prepare(c, input));
  const live = ready.filter((r): r is Prepared => r !== undefined);
  if (live.length > 1) {
    batchChecks.checked++;
    if (batchPairingHolds(c, live)) return ready.map((r) => r !== undefined);
    batchChecks.failed++;
  }
  return ready.map((r) => r !== undefined && pairingHolds(c, r));
}

/** this thread's shared pairing checks since start, and those that failed (each then cost one check per proof) */
export const batchChecks = { checked: 0, failed: 0 };

/**
 * octets_to_point_E2 and the draft's checks: a valid encoding of a point on the curve, in the
 * prime-order subgroup (mcl checks it while it deserializes), not the identity. An encoding mcl
 * accepts but would not write (stray bits after the infinity flag) does not re-serialize to itself
 * and is refused too.
 */
function decode<T extends Mcl.G1 | Mcl.G2>(Point: new () => T, bytes: Uint8Array): T | undefined {
  const p = new Point();
  try {
    p.deserialize(bytes);
  } catch {
    return undefined;
  }
  if (p.isZero() || !equal(p.serialize(), bytes)) return undefined;
  return p;
}

/**
 * octets_to_point_E1 and the same checks, by native blst: its compressed G1 point is a min-pk
 * public key, and validating one checks exactly these (a valid encoding, on the curve, in the
 * prime-order subgroup, not the identity), four times faster than mcl. The point then reaches mcl
 * by its affine coordinates, with no square root.
 */
function decodeG1(mcl: McL, bytes: Uint8Array): Mcl.G1 | undefined {
  if (bytes.length !== POINT_BYTES) return undefined;
  let key: blst.PublicKey;
  try {
    key = blst.PublicKey.fromBytes(bytes, true);
  } catch {
    return undefined;
  }
  if (!equal(key.toBytes(true), bytes)) return undefined;
  const xy = key.toBytes(false);
  const x = new mcl.Fp();
  const y = new mcl.Fp();
  const z = new mcl.Fp();
  x.deserialize(xy.subarray(0, POINT_BYTES));
  y.deserialize(xy.subarray(POINT_BYTES));
  z.setInt(1);
  const p = new mcl.G1();
  p.setX(x);
  p.setY(y);
  p.setZ(z);
  return p;
}

/** An mcl point as a blst key, by its affine coordinates; undefined for the identity. */
function toBlst(mcl: McL, p: Mcl.G1): blst.PublicKey | undefined {
  if (p.isZero()) return undefined;
  const a = mcl.normalize(p);
  const xy = new Uint8Array(2 * POINT_BYTES);
  xy.set(a.getX().serialize(), 0);
  xy.set(a.getY().serialize(), POINT_BYTES);
  return blst.PublicKey.fromBytes(xy);
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Generator i of the shipped table (Q_1 is generator 0), compressed. */
function generatorBytes(i: number): Uint8Array {
  return generatorsBytes(i + 1).subarray(i * POINT_BYTES);
}

/** Generator i's comb table, built on first use; undefined past the tables. */
function fixedGenerator(c: Ctx, i: number): FixedBase | undefined {
  if (i + 1 >= FIXED_TABLES) return undefined;
  for (let k = c.fixed.length - 1; k <= i; k++) c.fixed.push(new FixedBase(generatorBytes(k)));
  return c.fixed[i + 1];
}

/** Generator i for mcl (past the tables), decoded on first use. */
function mclGenerator(c: Ctx, i: number): Mcl.G1 {
  let g = c.generators[i];
  if (!g) {
    g = decodeG1(c.mcl, generatorBytes(i));
    if (!g) throw new Error(`BBS generator ${i} does not decode`);
    c.generators[i] = g;
  }
  return g;
}

/** octets_to_pubkey(PK), ready for the Miller loop; `id`, the key in hex, names it in the cache and in a batch */
function publicKey(c: Ctx, pk: Uint8Array, id: string): Mcl.PrecomputedG2 | undefined {
  let W = c.keys.get(id);
  if (W === undefined) {
    const point = decode(c.mcl.G2, pk);
    W = point ? new c.mcl.PrecomputedG2(point) : null;
    if (c.keys.size >= MAX_CACHED_KEYS) {
      const [oldest, pre] = c.keys.entries().next().value!;
      c.keys.delete(oldest);
      pre?.destroy(); // its table lives in WebAssembly memory
    }
    c.keys.set(id, W);
  }
  return W ?? undefined;
}

function fr(mcl: McL, s: bigint): Mcl.Fr {
  const f = new mcl.Fr();
  f.setBigEndianMod(scalarBytes(s));
  return f;
}

function msm(mcl: McL, points: Mcl.G1[], scalars: bigint[]): Mcl.G1 {
  let acc: Mcl.G1 | undefined;
  for (let i = 0; i < points.length; i += MSM_CHUNK) {
    const part = mcl.mulVec(points.slice(i, i + MSM_CHUNK), scalars.slice(i, i + MSM_CHUNK).map((s) => fr(mcl, s)));
    acc = acc ? mcl.add(acc, part) : part;
  }
  return acc!;
}

export interface ProofVerifyInput {
  PK: Uint8Array;
  proof: Uint8Array;
  header: Uint8Array;
  ph: Uint8Array;
  /** the disclosed messages, indexes strictly ascending */
  disclosed: ReadonlyArray<{ index: number; message: Uint8Array }>;
}

const FIXED_PROOF_BYTES = 3 * POINT_BYTES + 4 * SCALAR_BYTES;

/** What is left of ProofVerify once the challenge checked: the pairing equation's points and key. */
interface Prepared {
  Abar: Mcl.G1;
  Bbar: Mcl.G1;
  W: Mcl.PrecomputedG2;
  /** the key's bytes in hex: proofs under one key share its Miller loop in a batch */
  key: string;
}

function pairingHolds(c: Ctx, p: Prepared): boolean {
  return c.mcl.finalExp(c.mcl.precomputedMillerLoop2(p.Abar, p.W, p.Bbar, c.negBP2)).isOne();
}

function batchPairingHolds(c: Ctx, batch: readonly Prepared[]): boolean {
  const { mcl } = c;
  const weights = crypto.getRandomValues(new BigUint64Array(batch.length));
  const r = Array.from(weights, (w) => fr(mcl, w === 0n ? 1n : w));
  const byKey = new Map<string, { W: Mcl.PrecomputedG2; points: Mcl.G1[]; weights: Mcl.Fr[] }>();
  batch.forEach((p, i) => {
    const group = byKey.get(p.key) ?? byKey.set(p.key, { W: p.W, points: [], weights: [] }).get(p.key)!;
    group.points.push(p.Abar);
    group.weights.push(r[i]!);
  });
  const B = mcl.mulVec(batch.map((p) => p.Bbar), r);
  let product: Mcl.GT | undefined;
  for (const g of byKey.values()) {
    const A = mcl.mulVec(g.points, g.weights);
    const loop = product ? mcl.precomputedMillerLoop(A, g.W) : mcl.precomputedMillerLoop2(A, g.W, B, c.negBP2);
    product = product ? mcl.mul(product, loop) : loop;
  }
  return mcl.finalExp(product!).isOne();
}

/** ProofVerify up to the pairing check: undefined when anything before it fails. */
function prepare(c: Ctx, input: ProofVerifyInput): Prepared | undefined {
  const { mcl } = c;
  const { proof, disclosed } = input;

  // octets_to_proof, and the lengths and indexes ProofVerify and ProofVerifyInit check
  const extra = proof.length - FIXED_PROOF_BYTES;
  if (extra < 0 || extra % SCALAR_BYTES !== 0) return undefined;
  const U = extra / SCALAR_BYTES;
  const R = disclosed.length;
  const L = R + U;
  for (let k = 0; k < R; k++) {
    const i = disclosed[k]!.index;
    if (!Number.isInteger(i) || i < 0 || i >= L || (k > 0 && i <= disclosed[k - 1]!.index)) return undefined;
  }
  if (L + 1 > GENERATOR_COUNT) return undefined;
  const scalars: bigint[] = [];
  for (let off = 3 * POINT_BYTES; off < proof.length; off += SCALAR_BYTES) {
    const s = decodeScalar(proof, off);
    if (s === undefined) return undefined;
    scalars.push(s);
  }
  const [eHat, r1Hat, r3Hat] = scalars as [bigint, bigint, bigint];
  const commitments = scalars.slice(3, 3 + U);
  const cp = scalars[3 + U]!;
  const pointBytes = [0, 1, 2].map((k) => proof.subarray(k * POINT_BYTES, (k + 1) * POINT_BYTES));
  const points = pointBytes.map((b) => decodeG1(mcl, b));
  if (points.some((p) => p === undefined)) return undefined;
  const [Abar, Bbar, D] = points as [Mcl.G1, Mcl.G1, Mcl.G1];
  const key = Buffer.from(input.PK).toString('hex');
  const W = publicKey(c, input.PK, key);
  if (!W) return undefined;

  // ProofVerifyInit
  const msgScalars = messagesToScalars(disclosed.map((d) => d.message));
  const domain = calculateDomain(input.PK, L, input.header);
  const T1 = msm(mcl, [Bbar, Abar, D], [cp, eHat, r1Hat]);
  const fixedTerms: blst.PublicKey[] = [];
  c.fixed[0]!.addTerms(cp, fixedTerms);
  const varPoints: Mcl.G1[] = [D];
  const varScalars: bigint[] = [r3Hat];
  const term = (generator: number, s: bigint) => {
    const table = fixedGenerator(c, generator);
    if (table) return table.addTerms(s, fixedTerms);
    varPoints.push(mclGenerator(c, generator));
    varScalars.push(s);
  };
  term(0, mod(domain * cp));
  const isDisclosed = new Uint8Array(L);
  disclosed.forEach((d, k) => {
    isDisclosed[d.index] = 1;
    term(d.index + 1, mod(msgScalars[k]! * cp));
  });
  let j = 0;
  for (let i = 0; i < L; i++) if (!isDisclosed[i]) term(i + 1, commitments[j++]!);
  const variable = toBlst(mcl, msm(mcl, varPoints, varScalars));
  if (variable) fixedTerms.push(variable);
  const T2 = sumCompressed(fixedTerms);

  // ProofChallengeCalculate, then the pairing check
  const expected = challenge(
    disclosed.map((d, k) => ({ index: d.index, scalar: msgScalars[k]! })),
    [...pointBytes, T1.serialize(), T2],
    domain,
    input.ph,
  );
  if (expected !== cp) return undefined;
  return { Abar, Bbar, W, key };
}
