import { CIPHERSUITES, generateKeyPair, sign } from '@digitalbazaar/bbs-signatures';
import { invalid } from '../errors.js';
import { proofGen } from './bbs/prove.js';
import { referenceProofVerify } from './bbs/reference.js';
import { proofVerify, proofVerifyBatch, type ProofVerifyInput } from './bbs/verify.js';
import { BBS_FIXED_PROOF_BYTES, BBS_PUBLIC_KEY_BYTES, BBS_SCALAR_BYTES, MAX_BBS_MESSAGES } from './sizes.js';

export { BBS_PUBLIC_KEY_BYTES, MAX_BBS_MESSAGES, MAX_BBS_PROOF_BYTES } from './sizes.js';

/**
 * BBS (IETF CFRG draft, ciphersuite BLS12-381-SHA-256). Proof verification is stateless, and any
 * malformed input yields false, never an exception. Key generation, signing and proving are for
 * issuers and holders (the KYC plugin signs its credentials' BBS form); their bad input is a
 * LedgerError.
 *
 * Verification runs on mcl-wasm (bbs/verify.ts) and proving on @noble/curves with the generators
 * precomputed (bbs/prove.ts), both our own code after the draft's steps, some 20 and 4 times
 * faster than @digitalbazaar/bbs-signatures. Key generation and signing stay with that library,
 * which also verifies should mcl-wasm not load (bbs/reference.ts) and checks our code in the
 * tests (test/crypto/bbs-impl.test.ts).
 */

export interface BbsProofInput {
  proof: Uint8Array;
  publicKey: Uint8Array;
  header: Uint8Array;
  presentationHeader: Uint8Array;
  disclosed: ReadonlyArray<{ index: number; message: Uint8Array }>;
  totalMessageCount: number;
}

/**
 * How many messages the signed credential holds, as the proof's length and the disclosed list
 * imply it (the proof carries one scalar per hidden message); 0 when the length cannot be a proof.
 * Verification time grows linearly with this number.
 */
export function impliedMessageCount(proofBytes: number, disclosedCount: number): number {
  const extra = proofBytes - BBS_FIXED_PROOF_BYTES;
  return extra < 0 || extra % BBS_SCALAR_BYTES !== 0 ? 0 : disclosedCount + extra / BBS_SCALAR_BYTES;
}

/** The proof's length fixes how many messages stayed hidden; it must agree with the total. */
export function consistentShape(i: BbsProofInput): boolean {
  if (i.publicKey.length !== BBS_PUBLIC_KEY_BYTES) return false;
  if (!Number.isInteger(i.totalMessageCount) || i.totalMessageCount < 1 || i.totalMessageCount > MAX_BBS_MESSAGES) return false;
  if (impliedMessageCount(i.proof.length, i.disclosed.length) !== i.totalMessageCount) return false;
  const seen = new Set<number>();
  for (const d of i.disclosed) {
    if (!Number.isInteger(d.index) || d.index < 0 || d.index >= i.totalMessageCount || seen.has(d.index)) return false;
    seen.add(d.index);
  }
  return true;
}

function proofVerifyArgs(input: BbsProofInput): ProofVerifyInput {
  const disclosed = [...input.disclosed].sort((a, b) => a.index - b.index);
  return { PK: input.publicKey, proof: input.proof, header: input.header, ph: input.presentationHeader, disclosed };
}

export async function verifyBbsProof(input: BbsProofInput): Promise<boolean> {
  return (await verifyBbsProofs([input]))[0]!;
}

/** verifyBbsProof of each input, in order, sharing one pairing check (bbs/verify.ts proofVerifyBatch). */
export async function verifyBbsProofs(inputs: readonly BbsProofInput[]): Promise<boolean[]> {
  const shaped = inputs.map((input) => (consistentShape(input) ? proofVerifyArgs(input) : undefined));
  const args = shaped.filter((a): a is ProofVerifyInput => a !== undefined);
  let verdicts: boolean[];
  try {
    verdicts = args.length === 1 ? [await proofVerify(args[0]!)] : await proofVerifyBatch(args);
  } catch {
    // mcl-wasm could not load (or a bug threw): the reference library gives the same answers, slowly
    verdicts = await Promise.all(args.map((a) => referenceProofVerify(a)));
  }
  let k = 0;
  return shaped.map((a) => a !== undefined && verdicts[k++]!);
}

/** A secret key is one scalar; the key material a pair is made from must be at least as long. */
export const BBS_SECRET_KEY_BYTES = BBS_SCALAR_BYTES;
/** A (a compressed G1 point, 48 bytes) ‖ e (a scalar) */
export const BBS_SIGNATURE_BYTES = 48 + BBS_SCALAR_BYTES;

export interface BbsKeyPair {
  secretKey: Uint8Array;
  publicKey: Uint8Array;
}

/** A new key pair; from `seed` (key material of at least 32 bytes) the same pair every time. */
export async function bbsKeyPair(seed?: Uint8Array): Promise<BbsKeyPair> {
  if (seed !== undefined && seed.length < BBS_SECRET_KEY_BYTES) throw invalid('BAD_BBS_KEY', `BBS key material must be at least ${BBS_SECRET_KEY_BYTES} bytes, got ${seed.length}`);
  return generateKeyPair({ ciphersuite: CIPHERSUITES.BLS12381_SHA256, ...(seed ? { seed } : {}) });
}

function checkKeys(k: { secretKey?: Uint8Array; publicKey: Uint8Array }, messages: readonly Uint8Array[]): void {
  if (k.secretKey !== undefined && k.secretKey.length !== BBS_SECRET_KEY_BYTES) throw invalid('BAD_BBS_KEY', `a BBS secret key is ${BBS_SECRET_KEY_BYTES} bytes, got ${k.secretKey.length}`);
  if (k.publicKey.length !== BBS_PUBLIC_KEY_BYTES) throw invalid('BAD_BBS_KEY', `a BBS public key is ${BBS_PUBLIC_KEY_BYTES} bytes, got ${k.publicKey.length}`);
  // the chain registers 1 to MAX_BBS_MESSAGES messages: a signature over more could never be checked there
  if (messages.length < 1 || messages.length > MAX_BBS_MESSAGES) throw invalid('BAD_BBS_MESSAGES', `a BBS signature covers 1 to ${MAX_BBS_MESSAGES} messages, got ${messages.length}`);
}

/** The signature over `messages` in their order, bound to `header`. */
export async function bbsSign(a: { secretKey: Uint8Array; publicKey: Uint8Array; header: Uint8Array; messages: readonly Uint8Array[] }): Promise<Uint8Array> {
  checkKeys(a, a.messages);
  return sign({ secretKey: a.secretKey, publicKey: a.publicKey, header: a.header, messages: [...a.messages], ciphersuite: CIPHERSUITES.BLS12381_SHA256 });
}

/**
 * A proof of the signature that discloses the messages at `disclosedIndexes` (any order; the
 * proof takes them ascending, as verifyBbsProof does) and hides the rest.
 */
export async function bbsDeriveProof(a: {
  publicKey: Uint8Array;
  signature: Uint8Array;
  header: Uint8Array;
  messages: readonly Uint8Array[];
  presentationHeader: Uint8Array;
  disclosedIndexes: readonly number[];
}): Promise<Uint8Array> {
  checkKeys(a, a.messages);
  if (a.signature.length !== BBS_SIGNATURE_BYTES) throw invalid('BAD_BBS_SIGNATURE', `a BBS signature is ${BBS_SIGNATURE_BYTES} bytes, got ${a.signature.length}`);
  const indexes = [...new Set(a.disclosedIndexes)].sort((x, y) => x - y);
  if (indexes.length !== a.disclosedIndexes.length) throw invalid('BAD_BBS_INDEXES', 'disclosedIndexes repeats an index');
  const outside = indexes.find((i) => !Number.isInteger(i) || i < 0 || i >= a.messages.length);
  if (outside !== undefined) throw invalid('BAD_BBS_INDEXES', `disclosed index ${outside} is outside 0 to ${a.messages.length - 1}`);
  try {
    return proofGen({ PK: a.publicKey, signature: a.signature, header: a.header, ph: a.presentationHeader, messages: a.messages, disclosedIndexes: indexes });
  } catch (err) {
    // a signature that does not decode (A not a G1 point, e not a scalar) is refused; the
    // signature is not checked, so one over other messages gives a proof that does not verify
    throw invalid('BAD_BBS_SIGNATURE', `no proof can be derived: ${err instanceof Error ? err.message : String(err)}`);
  }
}
