import { toHex } from '../../protocol/bytes.js';
import type { VerificationRecord } from '../../protocol/verification-records.js';
import type { VerificationRequestView } from '../../protocol/verification-response.js';

export type { VerificationRequestView } from '../../protocol/verification-response.js';

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
