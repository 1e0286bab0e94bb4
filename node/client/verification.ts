import { keyPairFromSeed } from '../crypto/ed25519.js';
import { LedgerError } from '../errors.js';
import { didForPublicKey, parseDid } from '../protocol/did.js';
import {
  MIN_VERIFICATION_FEE,
  parseVerificationRequest,
  signVerificationRequest,
  type RequiredClaim,
  type VerificationRequest,
} from '../protocol/verification.js';
import type { LedgerVerificationResponse } from '../protocol/verification-response.js';
import type { RpcClient } from './rpc-client.js';

export { verifyVerificationResponse, type LedgerVerificationResponse, type ResponseCheck } from '../protocol/verification-response.js';
export { DEFAULT_VALID_FOR_BLOCKS, MIN_VERIFICATION_FEE, type ClaimResult, type ConsensusProof, type RequiredClaim, type VerificationRequest } from '../protocol/verification.js';

/**
 * Verification requests for relying parties (issue 27; docs/protocol.md, "Verification requests
 * and responses"): build and sign the request, which is itself the on-chain transaction, and wait
 * for the committee's response. What a subject's wallet needs to answer (presentForVerification)
 * is in presentation.ts: it needs BBS and JSON-LD, which this light module does not load.
 */

/** A required claim as a dApp writes it; `constraints` default to none, `acceptZKProof` to true. */
export interface ClaimSpec {
  type: string;
  constraints?: Record<string, unknown>;
  /**
   * Whether a BBS selective-disclosure proof may satisfy the claim. Default true: it is the only
   * way a KYC credential shows an age, and it discloses the least.
   */
  acceptZKProof?: boolean;
}

export interface VerificationRequestArgs {
  /** the requester's 32-byte Ed25519 seed: an authentication key of its DID, and the sending account */
  requesterSeed: Uint8Array;
  /** default: the DID of the seed's key, on the subject's network */
  requesterDid?: string;
  subjectDid: string;
  claims: ClaimSpec[];
  /** why the dApp asks, shown to the subject (1 to 256 characters) */
  purpose: string;
  /** smallest units; default MIN_VERIFICATION_FEE (0.001), paid to the committee that answers */
  fee?: bigint | number | string;
  /** default a random UUID; unique on the chain forever */
  requestId?: string;
  /** Unix ms; default now */
  timestamp?: number;
  /** ledger_chainInfo's chain_id */
  chainId: string;
  /** the requester account's next nonce: ledger_getNonce(address, "pending") */
  nonce: bigint | number;
  /** blocks the request stays open, 5 to 10,000; default 300 */
  validForBlocks?: number;
}

function nonceOf(n: bigint | number): number {
  const big = BigInt(n);
  // the request's JSON carries it as a number, so it must stay exact there
  if (big < 0n || big > BigInt(Number.MAX_SAFE_INTEGER)) throw new LedgerError('BAD_NONCE', `nonce must be an integer from 0 to ${Number.MAX_SAFE_INTEGER}`);
  return Number(big);
}

function feeOf(fee: bigint | number | string | undefined): string {
  if (fee === undefined) return String(MIN_VERIFICATION_FEE);
  const text = typeof fee === 'string' ? fee : String(BigInt(fee));
  if (!/^\d+$/.test(text)) throw new LedgerError('BAD_VERIFICATION_REQUEST', `fee must be a non-negative integer of smallest units, got ${JSON.stringify(text.slice(0, 40))}`);
  // refused by every node, so refused here before anything is signed
  if (BigInt(text) < MIN_VERIFICATION_FEE) throw new LedgerError('FEE_TOO_LOW', `the fee ${text} is below the minimum verification fee ${MIN_VERIFICATION_FEE}`, 'invalid', { minimum: String(MIN_VERIFICATION_FEE) });
  return text;
}

/**
 * The signed request, ready for `ledger_submitVerificationRequest` (RpcClient
 * submitVerificationRequest). Checked with the node's own parser before and after signing, so a
 * malformed request throws BAD_VERIFICATION_REQUEST naming the member instead of costing a call.
 */
export function buildVerificationRequest(a: VerificationRequestArgs): VerificationRequest {
  if (a.requesterSeed.length !== 32) throw new LedgerError('BAD_SEED', `requesterSeed must be 32 bytes, got ${a.requesterSeed.length}`);
  const subject = parseDid(a.subjectDid);
  const requesterDid = a.requesterDid ?? didForPublicKey(subject.network, keyPairFromSeed(a.requesterSeed).publicKey);
  const requiredClaims: RequiredClaim[] = a.claims.map((c) => ({ type: c.type, constraints: c.constraints ?? {}, acceptZKProof: c.acceptZKProof ?? true }));
  const unsigned: Omit<VerificationRequest, 'signature'> = {
    version: '1.0',
    requestId: a.requestId ?? globalThis.crypto.randomUUID(),
    timestamp: a.timestamp ?? Date.now(),
    requester: { did: requesterDid, purpose: a.purpose },
    subject: { did: a.subjectDid },
    requiredClaims,
    fee: feeOf(a.fee),
    chainId: a.chainId,
    nonce: nonceOf(a.nonce),
    ...(a.validForBlocks === undefined ? {} : { validForBlocks: a.validForBlocks }),
  };
  // the parser checks every member; a placeholder signature lets it run before signing
  parseVerificationRequest({ ...unsigned, signature: '0'.repeat(128) });
  return signVerificationRequest(unsigned, a.requesterSeed);
}

export interface ResponseWaitOptions {
  /** default 60 s: a committee answers within a few blocks, an unanswered request expires after validForBlocks */
  timeoutMs?: number;
  /** between polls; default 500 ms */
  intervalMs?: number;
  signal?: AbortSignal;
}

/**
 * Polls ledger_getVerificationResponse until the request is final or expired; LedgerError
 * RESPONSE_TIMEOUT after timeoutMs (the request may still be answered later).
 */
export async function waitForVerificationResponse(client: Pick<RpcClient, 'getVerificationResponse'>, requestId: string, options: ResponseWaitOptions = {}): Promise<LedgerVerificationResponse> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const intervalMs = options.intervalMs ?? 500;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    options.signal?.throwIfAborted();
    const response = await client.getVerificationResponse(requestId);
    if (response) return response;
    const left = deadline - Date.now();
    if (left <= 0) {
      throw new LedgerError('RESPONSE_TIMEOUT', `no response to verification request ${requestId} within ${timeoutMs} ms; it is still pending`, 'not_found', { requestId });
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(intervalMs, left)));
  }
}

