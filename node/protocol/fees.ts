import { UNIT } from './amount.js';

/**
 * The fee schedule, in smallest units. A fee is fixed by the payload kind; transactions carry no
 * fee field. Fees are credited to the proposer of the block that includes the transaction.
 */
export const FEES: Readonly<Record<string, bigint>> = {
  Transfer: UNIT / 100_000n, // 0.00001
  Stake: UNIT / 10_000n, // 0.0001
  Unstake: UNIT / 10_000n, // 0.0001
  DidCreate: UNIT / 1_000n, // 0.001 (seed 002)
  DidDeactivate: UNIT / 10_000n, // 0.0001 (seed 002)
  SetRecoveryPolicy: UNIT / 10_000n, // 0.0001: a DID update (seed 002)
  DidRecover: UNIT / 1_000n, // 0.001: every validator verifies up to 10 guardian signatures
  ValidatorRegister: UNIT / 100n, // 0.01: one pairing check for every validator; registering is rare
  SubmitEvidence: UNIT / 10_000n, // 0.0001: reporting an equivocation should cost no more than a Stake
  // The credential payloads pay this transaction fee; a request also carries its issuance fee (credential-types.ts).
  CredentialRequest: UNIT / 10_000n, // 0.0001
  CredentialAttest: UNIT / 100_000n, // 0.00001: committee members attest often, and are paid from the issuance fee
  CredentialRevoke: UNIT / 10_000n, // 0.0001, as a DID update
  ValidatorQualify: UNIT / 10_000n, // 0.0001
  // A request also carries its own `fee` (at least 0.001), held for the committee that answers it.
  VerificationRequest: UNIT / 10_000n, // 0.0001
  VerificationAnswer: UNIT / 100_000n, // 0.00001: as an attestation, paid back from the request's fee
  VerificationAnswerBatch: UNIT / 100_000n, // one answer's fee, however many answers the batch holds
};

export function feeFor(kind: string): bigint {
  const fee = FEES[kind];
  if (fee === undefined) throw new Error(`no fee is defined for payload kind ${kind}`);
  return fee;
}
