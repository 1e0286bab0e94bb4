import { HttpProblem } from '../../../common/http/problems.js';
import { onlyQuery } from '../../../common/http/validate.js';
import type { Role } from '../../types.js';
import type { Evidence, EvidenceReader, Reviewer } from '../../verification/evidence.js';
import type { KycCaller } from '../auth-levels.js';
import { CAN, requireRole } from '../roles.js';
import type { KycRequest, KycRouter } from '../router.js';

/**
 * A session's evidence for the organization (`x-api-key`, or `Authorization: Bearer <account
 * JWT>` of any member):
 *
 *   GET /v1/verifications/<id>/evidence                 {sessionId, status, documents[], liveness, unopened[]?}
 *   GET /v1/verifications/<id>/evidence/<evidenceId>    the image's bytes, its Content-Type, Cache-Control: no-store
 *
 * A member who fetches an image here opens it as on the review desk (verification/evidence.ts).
 */

/** The reader a caller is: a member whose role is in `roles`, the API key or the operator where allowed; 403 ROLE_FORBIDDEN otherwise. */
export function readerOf(caller: KycCaller, roles: readonly Role[], allow: ReadonlyArray<'api-key' | 'operator'>): EvidenceReader {
  requireRole(caller, roles, allow);
  if (caller.via === 'operator') return { kind: 'operator' };
  if (caller.via === 'api-key') return { kind: 'api-key', organizationId: caller.organizationId };
  if (!caller.userId) throw new HttpProblem('forbidden', 'this account has no user id', { code: 'ROLE_FORBIDDEN' });
  return { kind: 'user', userId: caller.userId, organizationId: caller.organizationId };
}

/** A reviewer: a member who may review, or the operator. */
export const reviewerOf = (caller: KycCaller): Reviewer => readerOf(caller, CAN.review, ['operator']) as Reviewer;

/** Sends an evidence image as its bytes; never cached, never sniffed. */
export function sendImage(req: KycRequest<'member'>, image: { mediaType: string; bytes: Uint8Array }): void {
  req.ctx.send(200, image.bytes, image.mediaType, { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
}

export function mountEvidence(router: KycRouter, deps: { evidence: Evidence }): void {
  const { evidence } = deps;
  const reader = (req: KycRequest<'member'>) => readerOf(req.caller, CAN.read, ['api-key']);

  router.add('GET', /^\/v1\/verifications\/([^/]+)\/evidence$/, 'member', async (req) => {
    onlyQuery(req.query, []);
    return evidence.list(reader(req), req.params[0]!);
  });

  router.add('GET', /^\/v1\/verifications\/([^/]+)\/evidence\/([^/]+)$/, 'member', async (req) => {
    onlyQuery(req.query, []);
    sendImage(req, await evidence.image(reader(req), req.params[0]!, req.params[1]!));
  });
}
