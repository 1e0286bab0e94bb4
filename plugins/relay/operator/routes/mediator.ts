import { parseSettingsPatch, WIRE_TENANT, type TenantSettings } from '../../core/settings.js';
import { SUPPORTED_PROTOCOLS } from '../../protocols/discover-features.js';
import { validation } from '../../../common/http/problems.js';
import type { RouteDeps } from '../router.js';
import { onlyQuery, queryEnum } from '../../../common/http/validate.js';

/**
 * The mediator's identity and the tenant's configuration, and its throughput. `endpoint` is the
 * public URL of POST /didcomm the invitation carries; it is read from the wire's tenant
 * (`default`) only, so only that tenant may change it. Throughput comes from the per-minute
 * counters `received` and `delivered` in fixed buckets per window.
 */

export const WINDOWS = { '1h': { span: 3600_000, bucket: 60_000 }, '6h': { span: 6 * 3600_000, bucket: 5 * 60_000 }, '24h': { span: 86_400_000, bucket: 15 * 60_000 }, '7d': { span: 7 * 86_400_000, bucket: 3600_000 } } as const;
export type ThroughputWindow = keyof typeof WINDOWS;
const WINDOW_NAMES = Object.keys(WINDOWS) as ThroughputWindow[];
const CONFIG_FIELDS: readonly (keyof TenantSettings)[] = ['endpoint', 'retentionSeconds', 'purgeOnAck', 'rateLimitPerDidPerMin', 'manualApproval'];
export const MEDIATOR_PROTOCOLS = SUPPORTED_PROTOCOLS.map((p) => p.id);

/** `https://relay.example/didcomm` -> `https://relay.example/invite` */
export function inviteUrl(endpoint: string | null): string | null {
  if (endpoint === null) return null;
  try {
    return new URL('/invite', endpoint).href;
  } catch {
    return null;
  }
}

export function mountMediator({ router, services, now, endpoint }: RouteDeps): void {
  const { settings, store } = services;

  const describe = async (tenantId: string) => {
    const s = await settings.get(tenantId);
    const url = await endpoint();
    return {
      did: services.identity.did,
      // the same keys as a did:peer:2 carrying the endpoint, for agents that resolve no did:key services
      peerDid: url === null ? null : services.identity.peerDid(url),
      invitationUrl: inviteUrl(url),
      peerInvitationUrl: url === null ? null : `${inviteUrl(url)}?did=peer`,
      endpoint: url,
      accept: ['didcomm/v2'],
      protocols: MEDIATOR_PROTOCOLS,
      network: services.network,
      settings: { rateLimitPerDidPerMin: s.rateLimitPerDidPerMin, retentionSeconds: s.retentionSeconds, purgeOnAck: s.purgeOnAck, manualApproval: s.manualApproval, endpoint: s.endpoint },
    };
  };

  router.add('GET', '/v1/mediator', 'read', async (req) => {
    onlyQuery(req.query, []);
    return describe(req.tenantId);
  });

  router.add('PUT', '/v1/mediator/config', 'manage', async (req) => {
    const patch = parseSettingsPatch(await req.body(), CONFIG_FIELDS);
    if (patch.endpoint !== undefined && req.tenantId !== WIRE_TENANT) {
      throw validation(`endpoint is the wire's public URL and belongs to the tenant ${WIRE_TENANT}; this tenant is ${req.tenantId}`, 'endpoint');
    }
    await settings.update(req.tenantId, patch);
    services.log.info({ tenant: req.tenantId, fields: Object.keys(patch), by: req.caller.id }, 'mediator configuration changed');
    return describe(req.tenantId);
  });

  router.add('GET', '/v1/mediator/throughput', 'read', async (req) => {
    onlyQuery(req.query, ['window']);
    const window = queryEnum(req.query, 'window', WINDOW_NAMES) ?? '1h';
    const { span, bucket } = WINDOWS[window];
    // buckets end at the next bucket boundary, so the last one is the bucket under way
    const to = Math.floor(now() / bucket) * bucket + bucket;
    const from = to - span;
    const [received, delivered] = await Promise.all([store.counters.series(req.tenantId, 'received', from, to, bucket), store.counters.series(req.tenantId, 'delivered', from, to, bucket)]);
    return {
      window,
      bucketSeconds: bucket / 1000,
      from: new Date(from).toISOString(),
      to: new Date(to).toISOString(),
      points: received.map((r, i) => ({ at: new Date(from + i * bucket).toISOString(), received: r, delivered: delivered[i] ?? 0 })),
      totals: { received: received.reduce((a, b) => a + b, 0), delivered: delivered.reduce((a, b) => a + b, 0) },
    };
  });
}
