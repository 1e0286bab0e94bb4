import { onlyQuery } from '../../../common/http/validate.js';
import type { SessionHistory } from '../../verification/history.js';
import { CAN } from '../roles.js';
import type { KycRouter } from '../router.js';
import { readerOf } from './evidence.js';

/**
 * GET /v1/verifications/<id>/timeline (`x-api-key`, or any member's account JWT):
 * `{sessionId, timeline[{at, type, actor, detail?}], events[{id, type, createdAt, deliveries[{id,
 * endpointId, status, statusCode, attemptNumber, createdAt, nextRetryAt?, error?, resendOf?}]}]}`,
 * oldest first. Another organization's session is a 404.
 */
export function mountTimeline(router: KycRouter, deps: { history: SessionHistory }): void {
  router.add('GET', /^\/v1\/verifications\/([^/]+)\/timeline$/, 'member', async (req) => {
    const reader = readerOf(req.caller, CAN.read, ['api-key']);
    onlyQuery(req.query, []);
    return deps.history.of(reader, req.params[0]!);
  });
}
