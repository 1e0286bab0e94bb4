import { addressFromPublicKey } from './address.js';
import { fromHex, toHex } from './bytes.js';
import { attestationThreshold } from './committee.js';
import type { VerificationRecord } from './verification-records.js';
import { verifyAnswer } from './verification-answer.js';
import { requestVerified, type ClaimResult, type ConsensusProof, type RequiredClaim, type VerificationRequest } from './verification.js';

/**
 * The response a dApp reads (`ledger_getVerificationResponse`) and checks offline. Seed 002's
 * fields, plus what an offline check needs: `status`, `chainId`, `presentationHash`,
 * `finalHeight`, and each signature's Ed25519 `publicKey` (the validator address derives from it).
 */

export interface LedgerVerificationResponse {
  version: '1.0';
  requestId: string;
  /** block time of the block that made the response final (or expired it: its deadline block is not known here, so the request's) */
  timestamp: number;
  verified: boolean;
  claims: ClaimResult[];
  validatorSignatures: Array<{ validator: string; publicKey: string; signature: string }>;
  consensusProof: ConsensusProof;
  status: 'final' | 'expired';
  chainId: string;
  presentationHash: string | null;
  finalHeight: number | null;
}

/** A request as the RPC and plugins show it (ledger_getVerificationRequest(s)): seed 002's signed request, and where it stands. */
export interface VerificationRequestView {
  /** the signed request, as submitted */
  request: VerificationRequest;
  status: 'pending' | 'final' | 'expired';
  request_height: number;
  /** the last height that takes answers */
  deadline_height: number;
  /** answers needed, of a committee drawn to hold committee_size */
  threshold: number;
  committee_size: number;
  answers: number;
  /** the request transaction's hash */
  tx_hash: string;
}

/** The response of a final or expired request; undefined while it is pending. */
export function responseFromRecord(v: VerificationRecord, chainId: string): LedgerVerificationResponse | undefined {
  if (v.status === 'pending') return undefined;
  const base = { version: '1.0' as const, requestId: v.request.requestId, chainId };
  if (v.status === 'expired' || !v.outcome) {
    return {
      ...base,
      timestamp: v.requestMs,
      verified: false,
      claims: [],
      validatorSignatures: [],
      consensusProof: { totalValidators: v.committeeSize, agreedValidators: 0, threshold: v.threshold, roundId: '' },
      status: 'expired',
      presentationHash: null,
      finalHeight: null,
    };
  }
  const agreed = v.outcome.agreed.map((i) => v.answers[i]!);
  const first = agreed[0]!;
  return {
    ...base,
    timestamp: v.outcome.finalMs,
    verified: v.outcome.verified,
    claims: first.claims,
    validatorSignatures: agreed.map((a) => ({ validator: addressFromPublicKey(a.publicKey), publicKey: toHex(a.publicKey), signature: toHex(a.signature) })),
    consensusProof: { totalValidators: v.committeeSize, agreedValidators: agreed.length, threshold: v.threshold, roundId: String(v.outcome.round) },
    status: 'final',
    presentationHash: toHex(first.presentationHash),
    finalHeight: v.outcome.height,
  };
}

export interface ResponseCheck {
  /** the response is final, and at least the threshold of the given set signed these claim results */
  valid: boolean;
  /** valid, and the results satisfy every required claim of `request` */
  verified: boolean;
  /** distinct members of the set whose signature verifies */
  signers: number;
  threshold: number;
  problems: string[];
}

/**
 * Checks a response offline, against the validator set of the epoch it became final in (addresses,
 * from `ledger_getEpoch`) and the request the dApp sent. Nothing in the response is trusted: the
 * threshold comes from the set's size, `verified` is recomputed from the claims.
 */
export function verifyVerificationResponse(args: {
  response: LedgerVerificationResponse;
  request: { requestId: string; requiredClaims: readonly RequiredClaim[] };
  validators: readonly string[];
  chainId: string;
}): ResponseCheck {
  const { response: r, request } = args;
  const problems: string[] = [];
  const threshold = attestationThreshold(Math.max(args.validators.length, 1));
  if (r.status !== 'final') problems.push(`the response is ${r.status}, not final`);
  if (r.requestId !== request.requestId) problems.push(`the response answers ${r.requestId}, not ${request.requestId}`);
  if (r.chainId !== args.chainId) problems.push(`the response is for chain ${r.chainId}, not ${args.chainId}`);
  const members = new Set(args.validators);
  const signers = new Set<string>();
  let presentationHash: Uint8Array | undefined;
  try {
    presentationHash = fromHex(r.presentationHash ?? '', 32, 'presentationHash');
  } catch {
    problems.push('presentationHash is not 32 bytes of hex');
  }
  for (const s of r.validatorSignatures) {
    let key: Uint8Array;
    try {
      key = fromHex(s.publicKey, 32, 'publicKey');
    } catch {
      problems.push(`a signature of ${s.validator} carries no valid public key`);
      continue;
    }
    const address = addressFromPublicKey(key);
    if (address !== s.validator) problems.push(`the public key of ${s.validator} is another validator's`);
    else if (!members.has(address)) problems.push(`${address} is not in the validator set`);
    else if (presentationHash && verifyAnswer(key, fromHexOrEmpty(s.signature), args.chainId, r.requestId, presentationHash, r.claims)) signers.add(address);
    else problems.push(`the signature of ${address} does not verify over the claim results`);
  }
  if (signers.size < threshold) problems.push(`${signers.size} valid signatures, ${threshold} needed`);
  const valid = problems.length === 0;
  const verified = valid && requestVerified(request.requiredClaims, r.claims);
  if (valid && r.verified !== verified) problems.push(`the response says verified: ${r.verified}, its claims say ${verified}`);
  return { valid: problems.length === 0, verified: problems.length === 0 && verified, signers: signers.size, threshold, problems };
}

function fromHexOrEmpty(text: string): Uint8Array {
  try {
    return fromHex(text, 64, 'signature');
  } catch {
    return new Uint8Array(0);
  }
}
