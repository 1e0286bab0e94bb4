import { Reply } from '../../../common/http/router.js';
import { onlyFields, onlyQuery, optionalString, queryInt, queryString, requiredString } from '../../../common/http/validate.js';
import type { ReviewQueue } from '../../verification/review.js';
import { REASON_PATTERN } from '../../verification/review.js';
import type { KycRouter } from '../router.js';

/**
 * The operator review queue (operator token, `Authorization: Bearer <plugins.kyc.operatorToken>`):
 *
 *   GET  /v1/review/sessions?organizationId&limit&offset     {sessions[], total}, oldest first
 *   GET  /v1/review/sessions/<id>/documents/<documentId>     {documentId, image{mediaType, data (base64)}}
 *   POST /v1/review/sessions/<id>/approve                    no body; {session}
 *   POST /v1/review/sessions/<id>/reject                     {reason (code), message?}; {session}
 *
 * Deciding a session that is not awaiting a decision is a 409 SESSION_NOT_IN_REVIEW.
 */

export function mountReview(router: KycRouter, deps: { review: ReviewQueue }): void {
  const { review } = deps;

  router.add('GET', '/v1/review/sessions', 'operator', async (req) => {
    onlyQuery(req.query, ['organizationId', 'limit', 'offset']);
    const organizationId = queryString(req.query, 'organizationId', 100);
    const limit = queryInt(req.query, 'limit', 20, 1, 100);
    const offset = queryInt(req.query, 'offset', 0, 0, 1_000_000_000);
    return review.list({ ...(organizationId !== undefined ? { organizationId } : {}), limit, offset });
  });

  router.add('GET', /^\/v1\/review\/sessions\/([^/]+)\/documents\/([^/]+)$/, 'operator', async (req) => {
    onlyQuery(req.query, []);
    const { mediaType, bytes } = await review.image(req.params[0]!, req.params[1]!);
    return { documentId: req.params[1]!, image: { mediaType, data: Buffer.from(bytes).toString('base64') } };
  });

  router.add('POST', /^\/v1\/review\/sessions\/([^/]+)\/approve$/, 'operator', async (req) => {
    // approve takes no body; one with fields is refused rather than ignored
    if (Number(req.ctx.req.headers['content-length'] ?? 0) > 0) onlyFields(await req.body(), []);
    return new Reply(200, { session: await review.approve(req.params[0]!) });
  });

  router.add('POST', /^\/v1\/review\/sessions\/([^/]+)\/reject$/, 'operator', async (req) => {
    const body = await req.body();
    onlyFields(body, ['reason', 'message']);
    const reason = requiredString(body, 'reason', { max: 64, pattern: REASON_PATTERN, patternText: 'a lowercase code such as face_mismatch' });
    const message = optionalString(body, 'message', { max: 500 });
    return { session: await review.reject(req.params[0]!, reason, message) };
  });
}
