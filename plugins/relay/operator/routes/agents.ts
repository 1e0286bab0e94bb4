import type { RouteDeps } from '../router.js';
import { ago, onlyQuery } from '../../../common/http/validate.js';
import { facts } from './mediations.js';

/**
 * Agents (seed 000 "Agent"): a read-only view composed per mediation of the tenant. `presence`
 * is always `offline` (there is no presence channel). `ratePerMin` is what the limiter counted
 * for the DID in the current minute; `lastSeenAgo` is the latest thing the relay recorded from
 * the agent: its last mediation change, its last keylist addition, or an envelope counted in the
 * current minute.
 */

export function mountAgents({ router, services, now }: RouteDeps): void {
  const { store, coordination, settings } = services;

  router.add('GET', '/v1/agents', 'read', async (req) => {
    onlyQuery(req.query, []);
    const at = now();
    const { rateLimitPerDidPerMin } = await settings.get(req.tenantId);
    const list = await store.mediations.list(req.tenantId);
    list.sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
    return Promise.all(
      list.map(async (m) => {
        const f = await facts(store, m);
        const ratePerMin = (await coordination.limiter.peek(m.recipientDid)).count;
        const lastSeen = Math.max(m.updatedAt, f.lastAdded ?? 0, ratePerMin > 0 ? at : 0);
        return {
          did: m.recipientDid,
          presence: 'offline',
          mediationState: m.state,
          queued: f.queued,
          ratePerMin,
          rateLimit: rateLimitPerDidPerMin,
          lastSeenAgo: ago(lastSeen, at),
          mediationId: m.id,
        };
      }),
    );
  });
}
