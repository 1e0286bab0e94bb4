import { invalid, LedgerError } from '../../../node/errors.js';
import { Evidence, type Reviewer } from './evidence.js';
import type { SessionService } from './sessions.js';
import { awaitingDecision } from './states.js';
import type { DeciderActor } from './actors.js';

/**
 * The review desk: live sessions whose automatic checks passed wait here for a human decision
 * (unless a verification provider decides them), oldest first. The operator sees every
 * organization's; a member (owner, admin, reviewer) sees their own organization's only, and
 * another organization's session is a 404 like an unknown one. Approving passes the session (a
 * credential follows for a did:ledger subject); rejecting fails it with the reviewer's
 * machine-readable reason and message, as verification.failed reports. Either needs every piece
 * of the session's evidence opened by the reviewer who decides: 409 EVIDENCE_NOT_OPENED names
 * what is left. The decision is recorded with who made it and when (`review` on the session).
 */

export const REASON_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

export class ReviewQueue {
  readonly evidence: Evidence;

  constructor(private readonly sessions: SessionService) {
    this.evidence = new Evidence(sessions);
  }

  /** The waiting sessions; a member's list is always their own organization's. */
  list(reviewer: Reviewer, opts: { organizationId?: string; limit: number; offset: number }): Promise<{ sessions: Array<Record<string, unknown>>; total: number }> {
    const organizationId = reviewer.kind === 'user' ? reviewer.organizationId : opts.organizationId;
    return this.sessions.reviewQueue({ limit: opts.limit, offset: opts.offset, ...(organizationId !== undefined ? { organizationId } : {}) });
  }

  approve(reviewer: Reviewer, sessionId: string): Promise<Record<string, unknown>> {
    return this.decide(reviewer, sessionId, { outcome: 'pass' });
  }

  reject(reviewer: Reviewer, sessionId: string, reason: string, message?: string): Promise<Record<string, unknown>> {
    if (!REASON_PATTERN.test(reason)) throw invalid('REVIEW_REASON_INVALID', 'reason is a lowercase code of a-z, 0-9 and _ (at most 64), such as face_mismatch', { field: 'reason' });
    return this.decide(reviewer, sessionId, { outcome: 'fail', reason, message: message ?? `rejected in review: ${reason}` });
  }

  /** A document's image (the operator's base64 route); it counts as opened. */
  async image(reviewer: Reviewer, sessionId: string, documentId: string): Promise<{ mediaType: string; bytes: Uint8Array }> {
    const noDocument = () => new LedgerError('DOCUMENT_NOT_FOUND', 'no such document in this session', 'not_found');
    if (!documentId.startsWith('doc_')) throw noDocument();
    try {
      return await this.evidence.image(reviewer, sessionId, documentId);
    } catch (err) {
      throw err instanceof LedgerError && err.code === 'EVIDENCE_NOT_FOUND' ? noDocument() : err;
    }
  }

  private async decide(reviewer: Reviewer, sessionId: string, decision: { outcome: 'pass' } | { outcome: 'fail'; reason: string; message: string }): Promise<Record<string, unknown>> {
    const s = await this.evidence.session(reviewer, sessionId);
    // sandbox sessions are decided by their outcome, never here
    if (!awaitingDecision(s) || s.sandbox) {
      throw new LedgerError('SESSION_NOT_IN_REVIEW', s.status === 'pending' ? 'the session is still pending: its steps are not complete' : 'the session is not awaiting a decision', 'conflict');
    }
    const unopened = await this.evidence.unopened(reviewer, s);
    if (unopened.length > 0) {
      throw new LedgerError('EVIDENCE_NOT_OPENED', `open every piece of evidence before deciding; not yet opened by you: ${unopened.join(', ')} (GET …/evidence/<evidenceId>)`, 'conflict');
    }
    const by: DeciderActor = reviewer.kind === 'operator' ? { kind: 'operator' } : { kind: 'user', userId: reviewer.userId, ...(reviewer.email !== undefined ? { email: reviewer.email } : {}) };
    return this.sessions.decide(s.id, decision, by);
  }
}
