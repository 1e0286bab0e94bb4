import { invalid } from '../../../node/errors.js';
import type { SessionService } from './sessions.js';

/**
 * The operator review queue: live sessions whose automatic checks passed wait here for a human
 * decision (unless a verification provider decides them). Oldest first, across organizations.
 * Approving passes the session (a credential follows for a did:ledger subject); rejecting fails
 * it with the operator's machine-readable reason and message, as verification.failed reports.
 */

export const REASON_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

export class ReviewQueue {
  constructor(private readonly sessions: SessionService) {}

  list(opts: { organizationId?: string; limit: number; offset: number }): Promise<{ sessions: Array<Record<string, unknown>>; total: number }> {
    return this.sessions.reviewQueue(opts);
  }

  approve(sessionId: string): Promise<Record<string, unknown>> {
    return this.sessions.decide(sessionId, { outcome: 'pass' }, 'operator');
  }

  reject(sessionId: string, reason: string, message?: string): Promise<Record<string, unknown>> {
    if (!REASON_PATTERN.test(reason)) throw invalid('REVIEW_REASON_INVALID', 'reason is a lowercase code of a-z, 0-9 and _ (at most 64), such as face_mismatch', { field: 'reason' });
    return this.sessions.decide(sessionId, { outcome: 'fail', reason, message: message ?? `rejected in review: ${reason}` }, 'operator');
  }

  image(sessionId: string, documentId: string): Promise<{ mediaType: string; bytes: Uint8Array }> {
    return this.sessions.documentImage(sessionId, documentId);
  }
}
