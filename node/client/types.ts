/**
 * Result shapes of the JSON-RPC methods (seed 002). Amounts arrive as JSON integers that the
 * lossless parser turns into number or bigint by size; the client normalizes every amount to
 * bigint so that callers never handle both.
 */

import type { Receipt, ReceiptEvent } from '../protocol/receipt.js';
import type { VerificationRequest } from '../protocol/verification.js';

// Shapes the node itself produces are shared with it, so client and server cannot drift.
export type { BlockJson as Block } from '../protocol/block.js';
export type { Receipt, ReceiptEvent } from '../protocol/receipt.js';
export type { DidDocumentRpc as DidDocument, VerificationMethod } from '../protocol/did-document.js';
export type { ServiceEndpoint as DidService } from '../protocol/payloads.js';
export type { RecoveryPolicyRpc as RecoveryPolicy } from '../protocol/recovery-records.js';
export type { LedgerVerificationResponse as VerificationResponse } from '../protocol/verification-response.js';

export interface CanonHead {
  seq: number;
  hash: string;
}

export interface ChainInfo {
  chain_id: string;
  native_token: { symbol: string; name: string; decimals: number };
  genesis_hash: string;
  latest_block: number;
  version: string;
}

export interface NodeInfo {
  version: string;
  uptime_seconds: number;
  rss_bytes: number;
  /** the node's libp2p identity and listen multiaddrs; absent on a node without a network */
  p2p?: { peer_id: string; addresses: string[] };
}

/** ledger_getTransaction's raw form: keys, signature and Transfer.to are byte arrays. */
export interface RawTransaction {
  sender_pubkey: number[];
  nonce: number | bigint;
  payload: Record<string, unknown>;
  signature: number[];
}

export interface Validator {
  address: string;
  staked: bigint;
  /** the amount in the 21-day unbonding lock */
  unbonding: bigint;
  /** 0 to 1000 */
  reputation: number;
  active: boolean;
}

/** An epoch and its validator set (ledger_getEpoch): by default the epoch of the next block to commit. */
export interface Epoch {
  epoch: number;
  first_height: number;
  /** the boundary: its block computes the next set */
  last_height: number;
  epoch_length: number;
  /** canonical order; weight 1-3 by stake tier */
  validators: Array<{ address: string; bls_public_key: string; weight: number }>;
}

/** Where a node's consensus stands (ledger_getConsensusStatus). */
export interface ConsensusStatus {
  epoch: number;
  round: number;
  high_qc_round: number;
  locked_round: number;
  last_voted_round: number;
  committed_height: number;
  /** the leader of the current round on the branch of the node's high QC */
  leader: string | null;
  /** the validators leadership rotates over on that branch */
  active_validators: string[] | null;
  /** null, or why the node stopped signing */
  halted: ({ reason: string } & Record<string, unknown>) | null;
}

export interface CredentialRecord {
  id: string;
  issuer_did: string;
  subject_did: string;
  credential_type: string;
  hash: string;
  /** null until registered */
  issued_ms: number | null;
  revoked: boolean;
  revoked_ms: number | null;
  kyc_level?: number;
  status: 'pending' | 'registered' | 'expired';
  issuer_active: boolean;
  status_list: number;
  status_index: number;
  evidence_digest: string;
  request_height: number;
  deadline_height: number;
  threshold: number;
  consensus_round: number | null;
  validator_signatures: Array<{ validator: string; signature: string }>;
  bbs_public_key?: string;
  bbs_message_count?: number;
  tx_hash: string;
}

/** ledger_getCredentialRequest: the record in any status, with its attestation count. */
export interface CredentialRequestStatus extends CredentialRecord {
  attestations: number;
}

export interface CredentialVerification {
  valid: boolean;
  credential: CredentialRecord;
  revoked: boolean;
}

export interface DisclosedMessage {
  index: number;
  /** lowercase hex */
  message: string;
}

export interface BbsCredentialProofResult {
  valid: boolean;
  proof_valid: boolean;
  is_bbs: boolean;
  revoked: boolean;
  credential: CredentialRecord;
}

/** ledger_getVerificationRequests' `status` filter */
export type VerificationStatusFilter = 'pending' | 'final' | 'expired' | 'all';

/** A verification request and where it stands (ledger_getVerificationRequest(s)): one definition for the server and the client. */
export type { VerificationRequestView } from '../protocol/verification-response.js';

/** ledger_submitVerificationRequest */
export interface SubmittedVerificationRequest {
  requestId: string;
  txHash: string;
}

/**
 * What ledger_submitPresentation takes: a signed presentation (presentForVerification builds one;
 * its exact type is node/verification/presentation.ts's, which this light module does not load).
 */
export interface PresentationJson {
  version: '1.0';
  requestId: string;
  holder: string;
  credentials: ReadonlyArray<object>;
  signature: string;
}

/** ledger_submitPresentation: where the presentation went */
export interface SubmittedPresentation {
  requestId: string;
  /** hex SHA-256 of the presentation: what the committee's answers name */
  presentationHash: string;
  /** peers it was sent to */
  peers: number;
  /** whether this node is a committee member that checks it itself */
  answeringHere: boolean;
}

export function toBigInt(value: unknown, what: string): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return BigInt(value);
  throw new TypeError(`${what}: expected an integer, got ${typeof value === 'string' ? JSON.stringify(value) : typeof value}`);
}

export function normalizeReceipt(r: Receipt | null): Receipt | null {
  if (r === null) return null;
  return {
    ...r,
    fee_paid: toBigInt(r.fee_paid, 'receipt.fee_paid'),
    events: (r.events ?? []).map((e: ReceiptEvent) => ('amount' in e ? ({ ...e, amount: toBigInt(e.amount, `${e.type}.amount`) } as ReceiptEvent) : e)),
  };
}

export function normalizeValidator(v: Validator | null): Validator | null {
  if (v === null) return null;
  return { ...v, staked: toBigInt(v.staked, 'validator.staked'), unbonding: toBigInt(v.unbonding, 'validator.unbonding') };
}
