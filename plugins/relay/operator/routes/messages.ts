import { MESSAGE_PROTOCOLS, MESSAGE_STATES, type MessageRecord } from '../../store/types.js';
import { validation } from '../../../common/http/problems.js';
import type { RouteDeps } from '../router.js';
import { DID_PATTERN, iso, onlyQuery, queryEnum, queryInt, queryString } from '../../../common/http/validate.js';

/**
 * Message records and the queue's state. Records only: the relay never shows a body (it could
 * not read one anyway, the envelopes are encrypted to the recipient).
 */

export const MESSAGES_DEFAULT_LIMIT = 50;
export const MESSAGES_MAX_LIMIT = 500;
export const MESSAGES_MAX_OFFSET = 1_000_000;
const PENDING = ['queued', 'delivered', 'live-delivered'] as const;

export function messageView(r: MessageRecord) {
  return {
    id: r.id,
    mediationId: r.mediationId,
    recipient: r.recipient,
    sender: r.sender,
    protocol: r.protocol,
    state: r.state,
    size: r.size,
    receivedAt: iso(r.receivedAt),
    deliveredAt: iso(r.deliveredAt),
    acknowledgedAt: iso(r.acknowledgedAt),
    expiresAt: iso(r.expiresAt),
    reason: r.reason,
  };
}

export function mountMessages({ router, services, now, live }: RouteDeps): void {
  const { store } = services;

  router.add('GET', '/v1/messages', 'read', async (req) => {
    const q = req.query;
    onlyQuery(q, ['state', 'protocol', 'recipient', 'limit', 'offset']);
    const state = queryEnum(q, 'state', MESSAGE_STATES);
    const protocol = queryEnum(q, 'protocol', MESSAGE_PROTOCOLS);
    const recipient = queryString(q, 'recipient', 4000);
    if (recipient !== undefined && !DID_PATTERN.test(recipient)) throw validation(`recipient must be a DID or DID URL (did:<method>:<id>), got ${JSON.stringify(recipient.slice(0, 60))}`, 'recipient');
    const limit = queryInt(q, 'limit', MESSAGES_DEFAULT_LIMIT, 1, MESSAGES_MAX_LIMIT);
    const offset = queryInt(q, 'offset', 0, 0, MESSAGES_MAX_OFFSET);
    const page = await store.messages.list({ tenantId: req.tenantId, ...(state ? { state } : {}), ...(protocol ? { protocol } : {}), ...(recipient !== undefined ? { recipient } : {}), limit, offset });
    return { items: page.items.map(messageView), total: page.total, limit, offset };
  });

  router.add('GET', '/v1/queue/status', 'read', async (req) => {
    onlyQuery(req.query, []);
    const at = now();
    const counts = await store.messages.stateCounts(req.tenantId);
    const pending = PENDING.reduce((a, s) => a + counts[s], 0);
    // the listing is newest first: the oldest pending message is the last pending one
    let oldest: MessageRecord | undefined;
    if (pending > 0) {
      for (const s of PENDING) {
        if (counts[s] === 0) continue;
        const [last] = (await store.messages.list({ tenantId: req.tenantId, state: s, limit: 1, offset: counts[s] - 1 })).items;
        if (last && (!oldest || last.receivedAt < oldest.receivedAt)) oldest = last;
      }
    }
    return {
      counts,
      pending,
      oldestPendingAgeSeconds: oldest ? Math.max(0, Math.floor((at - oldest.receivedAt) / 1000)) : null,
      oldestPendingAt: oldest ? iso(oldest.receivedAt) : null,
      liveConnections: live?.connections ?? 0,
      liveMediations: services.delivery.liveMediations(),
    };
  });
}
