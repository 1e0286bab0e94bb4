import type { RouteDeps } from '../router.js';
import { DID_PATTERN, onlyQuery, queryInt, queryString } from '../../../common/http/validate.js';
import { validation } from '../../../common/http/problems.js';

/** The tenant's delivery log, newest first: `[{id, at, level, message}]` (+ `recipient`). */

export const LOG_DEFAULT_LIMIT = 50;
export const LOG_MAX_LIMIT = 500;

export function mountDeliveryLog({ router, services }: RouteDeps): void {
  router.add('GET', '/v1/delivery-log', 'read', async (req) => {
    onlyQuery(req.query, ['recipient', 'limit']);
    const recipient = queryString(req.query, 'recipient', 4000);
    if (recipient !== undefined && !DID_PATTERN.test(recipient)) throw validation(`recipient must be a DID (did:<method>:<id>), got ${JSON.stringify(recipient.slice(0, 60))}`, 'recipient');
    const limit = queryInt(req.query, 'limit', LOG_DEFAULT_LIMIT, 1, LOG_MAX_LIMIT);
    // entries buffered in the last second are written first, so the log shows what just happened
    await services.delivery.flushLog();
    const entries = await services.store.log.list(req.tenantId, { ...(recipient !== undefined ? { recipient } : {}), limit });
    return entries.map((e) => ({ id: e.id, at: new Date(e.at).toISOString(), level: e.level, message: e.message, recipient: e.recipient }));
  });
}
