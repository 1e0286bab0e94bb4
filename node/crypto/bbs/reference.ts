import { CIPHERSUITES, verifyProof } from '@digitalbazaar/bbs-signatures';
import { canonicalCoordinates } from './suite.js';
import type { ProofVerifyInput } from './verify.js';

/**
 * ProofVerify by the reference library, @digitalbazaar/bbs-signatures (pure JavaScript, some
 * twenty times slower than verify.ts), should mcl-wasm not load. It gives verify.ts's answers
 * (test/crypto/bbs-impl.test.ts): the one input the library takes that the draft refuses, a
 * coordinate not below p, is refused first.
 */
export async function referenceProofVerify(input: ProofVerifyInput): Promise<boolean> {
  return canonicalCoordinates(input.proof, input.PK) && libraryProofVerify(input);
}

/** The library's own answer, false where it throws; the tests and bench:bbs compare ours with it. */
export async function libraryProofVerify(input: ProofVerifyInput): Promise<boolean> {
  try {
    return await verifyProof({
      publicKey: input.PK,
      proof: input.proof,
      header: input.header,
      presentationHeader: input.ph,
      disclosedMessages: input.disclosed.map((d) => d.message),
      disclosedMessageIndexes: input.disclosed.map((d) => d.index),
      ciphersuite: CIPHERSUITES.BLS12381_SHA256,
    });
  } catch {
    return false;
  }
}
