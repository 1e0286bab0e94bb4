import { Reply } from '../../../common/http/router.js';
import { onlyFields, onlyQuery, optionalString, queryInt, queryString, requiredString } from '../../../common/http/validate.js';
import type { Reviewer } from '../../verification/evidence.js';
import type { ReviewQueue } from '../../verification/review.js';
import { REASON_PATTERN } from '../../verification/review.js';
import type { KycRouter } from '../router.js';
import { reviewerOf, sendImage } from './evidence.js';

/**
 * The review desk: the operator token (`Authorization: Bearer <plugins.kyc.operatorToken>`,
 * every organization) or a member's account JWT with role owner, admin or reviewer (their own
 * organization; another's session is a 404). An API key or a developer is 403 ROLE_FORBIDDEN.
 *
 *   GET  /v1/review/sessions?organizationId&limit&offset          {sessions[], total}, oldest first
 *   GET  /v1/review/sessions/<id>/evidence                        {sessionId, status, documents[], liveness, unopened[]}
 *   GET  /v1/review/sessions/<id>/evidence/<evidenceId>           the image's bytes (Content-Type, Cache-Control: no-store)
 *   GET  /v1/review/sessions/<id>/documents/<documentId>          {documentId, image{mediaType, data (base64)}}
 *   POST /v1/review/sessions/<id>/approve                         no body; {session}
 *   POST /v1/review/sessions/<id>/reject                          {reason (code), message?}; {session}
 *
 * Fetching an image opens it for that reviewer. Deciding before every document and frame was
 * opened by the same reviewer is a 409 EVIDENCE_NOT_OPENED; deciding a session that is not
 * awaiting a decision is a 409 SESSION_NOT_IN_REVIEW.
 */

export function mountReview(router: KycRouter, deps: { review: ReviewQueue; emailOf?: (userId: string) => Promise<string | undefined> }): void {
  const { review } = deps;
  /** the reviewer with their email, as the decision records it */
  const decider = async (reviewer: Reviewer): Promise<Reviewer> => {
    if (reviewer.kind !== 'user' || !deps.emailOf) return reviewer;
    const email = await deps.emailOf(reviewer.userId);
    return email === undefined ? reviewer : { ...reviewer, email };
  };

  router.add('GET', '/v1/review/sessions', 'member', async (req) => {
    const reviewer = reviewerOf(req.caller);
    onlyQuery(req.query, ['organizationId', 'limit', 'offset']);
    const organizationId = queryString(req.query, 'organizationId', 100);
    const limit = queryInt(req.query, 'limit', 20, 1, 100);
    const offset = queryInt(req.query, 'offset', 0, 0, 1_000_000_000);
    return review.list(reviewer, { ...(organizationId !== undefined ? { organizationId } : {}), limit, offset });
  });

  router.add('GET', /^\/v1\/review\/sessions\/([^/]+)\/evidence$/, 'member', async (req) => {
    const reviewer = reviewerOf(req.caller);
    onlyQuery(req.query, []);
    return review.evidence.list(reviewer, req.params[0]!);
  });

  router.add('GET', /^\/v1\/review\/sessions\/([^/]+)\/evidence\/([^/]+)$/, 'member', async (req) => {
    const reviewer = reviewerOf(req.caller);
    onlyQuery(req.query, []);
    sendImage(req, await review.evidence.image(reviewer, req.params[0]!, req.params[1]!));
  });

  router.add('GET', /^\/v1\/review\/sessions\/([^/]+)\/documents\/([^/]+)$/, 'member', async (req) => {
    const reviewer = reviewerOf(req.caller);
    onlyQuery(req.query, []);
    const { mediaType, bytes } = await review.image(reviewer, req.params[0]!, req.params[1]!);
    return { documentId: req.params[1]!, image: { mediaType, data: Buffer.from(bytes).toString('base64') } };
  });

  router.add('POST', /^\/v1\/review\/sessions\/([^/]+)\/approve$/, 'member', async (req) => {
    const reviewer = reviewerOf(req.caller);
    // approve takes no body; one with fields is refused rather than ignored
    if (Number(req.ctx.req.headers['content-length'] ?? 0) > 0) onlyFields(await req.body(), []);
    return new Reply(200, { session: await review.approve(await decider(reviewer), req.params[0]!) });
  });

  router.add('POST', /^\/v1\/review\/sessions\/([^/]+)\/reject$/, 'member', async (req) => {
    const reviewer = reviewerOf(req.caller);
    const body = await req.body();
    onlyFields(body, ['reason', 'message']);
    const reason = requiredString(body, 'reason', { max: 64, pattern: REASON_PATTERN, patternText: 'a lowercase code such as face_mismatch' });
    const message = optionalString(body, 'message', { max: 500 });
    return { session: await review.reject(await decider(reviewer), req.params[0]!, reason, message) };
  });
}
