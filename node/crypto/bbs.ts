import { CIPHERSUITES, verifyProof } from '@digitalbazaar/bbs-signatures';
import { BBS_FIXED_PROOF_BYTES, BBS_PUBLIC_KEY_BYTES, BBS_SCALAR_BYTES, MAX_BBS_MESSAGES } from './sizes.js';

export { BBS_PUBLIC_KEY_BYTES, MAX_BBS_MESSAGES, MAX_BBS_PROOF_BYTES } from './sizes.js';

/**
 * BBS proof verification (IETF CFRG draft, ciphersuite BLS12-381-SHA-256). Stateless; any
 * malformed input yields false, never an exception.
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

export async function verifyBbsProof(input: BbsProofInput): Promise<boolean> {
  if (!consistentShape(input)) return false;
  const disclosed = [...input.disclosed].sort((a, b) => a.index - b.index);
  try {
    return await verifyProof({
      publicKey: input.publicKey,
      proof: input.proof,
      header: input.header,
      presentationHeader: input.presentationHeader,
      disclosedMessages: disclosed.map((d) => d.message),
      disclosedMessageIndexes: disclosed.map((d) => d.index),
      ciphersuite: CIPHERSUITES.BLS12381_SHA256,
    });
  } catch {
    return false;
  }
}
