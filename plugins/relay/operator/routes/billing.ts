import { MEDIATION_STATES } from '../../store/types.js';
import { API_KEY_KIND, PLAN, type ApiKeyRecord } from '../auth.js';
import type { RouteDeps } from '../router.js';
import { onlyQuery } from '../../../common/http/validate.js';

/**
 * Billing and usage. A self-hosted relay bills nobody: `plan` is `self-hosted`, `provider` is
 * null and there is no payment route. The usage numbers are real: messages received and
 * delivered this calendar month (UTC) from the throughput counters, mediations by state, and
 * keys and policies in use.
 */

export function monthStart(now: number): number {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

export function mountBilling({ router, services, now }: RouteDeps): void {
  router.add('GET', '/v1/billing', 'read', async (req) => {
    onlyQuery(req.query, []);
    const tenantId = req.tenantId;
    const to = now() + 1;
    const from = monthStart(to - 1);
    const sum = async (name: string) => (await services.store.counters.series(tenantId, name, from, to, to - from)).reduce((a, b) => a + b, 0);
    const [received, delivered, mediations, keys, policies] = await Promise.all([
      sum('received'),
      sum('delivered'),
      services.store.mediations.list(tenantId),
      services.store.documents.list<ApiKeyRecord>(tenantId, API_KEY_KIND),
      services.gates.policies(tenantId),
    ]);
    const byState = Object.fromEntries(MEDIATION_STATES.map((s) => [s, mediations.filter((m) => m.state === s).length]));
    return {
      plan: PLAN,
      provider: null,
      period: { start: new Date(from).toISOString(), end: new Date(to - 1).toISOString() },
      usage: {
        messagesReceived: received,
        messagesDelivered: delivered,
        mediations: { total: mediations.length, ...byState },
        apiKeys: keys.filter((k) => k.revokedAt === null).length,
        policies: policies.length,
      },
      note: 'a self-hosted relay has no payment provider and charges nothing; these are usage counts for your own records',
    };
  });
}
