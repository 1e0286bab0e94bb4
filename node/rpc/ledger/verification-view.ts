import { toHex } from '../../protocol/bytes.js';
import type { VerificationRecord, VerificationStatus } from '../../protocol/verification-records.js';
import type { VerificationRequest } from '../../protocol/verification.js';

/** A request as the RPC and plugins show it: seed 002's signed request, and where it stands. */
export interface VerificationRequestView {
  request: VerificationRequest;
  status: VerificationStatus;
  request_height: number;
  deadline_height: number;
  /** answers needed, of a committee drawn to hold committee_size */
  threshold: number;
  committee_size: number;
  answers: number;
  /** the request transaction's hash */
  tx_hash: string;
}

export function verificationRequestView(v: VerificationRecord): VerificationRequestView {
  return {
    request: { ...v.request, signature: toHex(v.signature) },
    status: v.status,
    request_height: v.requestHeight,
    deadline_height: v.deadlineHeight,
    threshold: v.threshold,
    committee_size: v.committeeSize,
    answers: v.answers.length,
    tx_hash: toHex(v.txHash),
  };
}

export const VERIFICATION_STATUSES = ['pending', 'final', 'expired', 'all'] as const;
export type VerificationStatusFilter = (typeof VERIFICATION_STATUSES)[number];
export const MAX_LISTED_REQUESTS = 100;

export const statusFilter = (status: VerificationStatusFilter) => (v: VerificationRecord) => status === 'all' || v.status === status;
