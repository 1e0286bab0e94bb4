import type { Liveness, SandboxOutcome } from '../types.js';
import type { SessionReason } from './reasons.js';

/**
 * What a sandbox session's `sandboxOutcome` forces (default `pass`). Sandbox sessions run no
 * real verification: the automatic image checks still guard what is stored, but the decision is
 * this table's, at once, when the session enters processing:
 *
 *   pass               the verification passes (a credential follows for a did:ledger subject)
 *   fail               failed, reason face_mismatch; the liveness check reports failed (0.12); a
 *                      level-1 session has no liveness step, and its message says only that the
 *                      document was not verified
 *   timeout            expired, event verification.expired with reason timeout
 *   document_rejected  the final document upload is marked rejected and the session fails at
 *                      once with reason document_rejected, before processing
 */

export type SandboxDecision = { kind: 'pass' } | { kind: 'fail'; reason: SessionReason; message: string } | { kind: 'expire'; reason: 'timeout' };

export const outcomeOf = (s: { sandboxOutcome?: SandboxOutcome | undefined }): SandboxOutcome => s.sandboxOutcome ?? 'pass';

export function sandboxDecision(outcome: SandboxOutcome, level: 1 | 2 | 3): SandboxDecision {
  switch (outcome) {
    case 'pass':
      return { kind: 'pass' };
    case 'fail':
      return {
        kind: 'fail',
        reason: 'face_mismatch',
        message: level === 1 ? 'the document could not be verified (sandbox outcome fail)' : 'the face in the liveness frames does not match the document photo (sandbox outcome fail)',
      };
    case 'timeout':
      return { kind: 'expire', reason: 'timeout' };
    case 'document_rejected':
      // reached only when the document step was complete before the outcome could reject it
      return { kind: 'fail', reason: 'document_rejected', message: 'the document was rejected (sandbox outcome document_rejected)' };
  }
}

export const SANDBOX_REJECTION: { reason: SessionReason; message: string } = { reason: 'document_rejected', message: 'the document was rejected (sandbox outcome document_rejected)' } as const;

/** The liveness result a sandbox session reports for its frames. */
export function sandboxLiveness(outcome: SandboxOutcome, at: string, frames: number): Liveness {
  return outcome === 'fail' ? { status: 'failed', score: 0.12, completedAt: at, frames } : { status: 'passed', score: 0.99, completedAt: at, frames };
}

/** A live session's liveness result until a decision: no score is invented. */
export function liveLiveness(at: string, frames: number): Liveness {
  return { status: 'pending_review', score: null, completedAt: at, frames };
}
