import { MAX_KEYLIST } from '../../core/mediations.js';
import type { Mediation, RelayStore } from '../../store/types.js';
import type { RouteDeps } from '../router.js';
import { ago, iso, onlyFields, onlyQuery, queryInt, requiredString } from '../../../common/http/validate.js';

/**
 * Mediations (seed 000 "Mediation"), the tenant's only. Grant, deny and revoke go through
 * `MediationService.act`, the state machine of core/mediation-states.ts: an illegal transition
 * is a 409 Problem, an id that is not this tenant's a 404. `queued` counts the messages the
 * relay holds for the mediation's keys (not yet acknowledged, expired or failed);
 * `delivered24h` sums the per-mediation counter `delivered:<id>` over the last 24 hours.
 * The seed types `gate` as an object and `grantedAgo` as a string: with no policy applying the
 * gate is `{policy: "none", state: "pass"}`, and a mediation not granted now is `not granted`.
 */

export const NO_GATE = { policy: 'none', state: 'pass' } as const;
export const NOT_GRANTED = 'not granted';

export const PROTOCOLS = ['forward', 'pickup'] as const;
const DAY = 86_400_000;
export const KEYLIST_DEFAULT_LIMIT = 100;

/** The mediation's keys, all of them (a keylist holds at most MAX_KEYLIST). */
export async function allKeys(store: RelayStore, id: string): Promise<{ keys: string[]; lastAdded: number | null }> {
  const { keys } = await store.mediations.keylist(id, { limit: MAX_KEYLIST });
  return { keys: keys.map((k) => k.key), lastAdded: keys.reduce<number | null>((a, k) => (a === null || k.addedAt > a ? k.addedAt : a), null) };
}

export interface MediationFacts {
  keys: string[];
  lastAdded: number | null;
  queued: number;
}

export async function facts(store: RelayStore, m: Mediation): Promise<MediationFacts> {
  const { keys, lastAdded } = await allKeys(store, m.id);
  const queued = keys.length === 0 ? 0 : await store.messages.countPending(keys);
  return { keys, lastAdded, queued };
}

export async function mediationView(store: RelayStore, m: Mediation, now: number) {
  const f = await facts(store, m);
  const delivered = await store.counters.series(m.tenantId, `delivered:${m.id}`, now - DAY, now + 1, DAY + 1);
  return {
    id: m.id,
    recipientDid: m.recipientDid,
    state: m.state,
    gate: m.gate ? { policy: m.gate.policy, state: m.gate.state } : { ...NO_GATE },
    keylistSize: f.keys.length,
    queued: f.queued,
    delivered24h: delivered.reduce((a, b) => a + b, 0),
    grantedAgo: (m.state === 'granted' ? ago(m.grantedAt, now) : null) ?? NOT_GRANTED,
    protocols: [...PROTOCOLS],
    reason: m.reason,
    createdAt: iso(m.createdAt),
    updatedAt: iso(m.updatedAt),
    grantedAt: iso(m.grantedAt),
  };
}

export function mountMediations({ router, services, now }: RouteDeps): void {
  const { store, mediations } = services;
  const ID = '([^/]+)';

  router.add('GET', '/v1/mediations', 'read', async (req) => {
    onlyQuery(req.query, []);
    const list = await store.mediations.list(req.tenantId);
    const at = now();
    list.sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
    return Promise.all(list.map((m) => mediationView(store, m, at)));
  });

  router.add('POST', new RegExp(`^/v1/mediations/${ID}/grant$`), 'manage', async (req) => {
    const m = await mediations.act(req.tenantId, req.params[0]!, 'grant', null);
    services.log.info({ tenant: req.tenantId, mediation: m.id, by: req.caller.id }, 'mediation granted by an operator');
    return mediationView(store, m, now());
  });

  router.add('POST', new RegExp(`^/v1/mediations/${ID}/deny$`), 'manage', async (req) => {
    const body = await req.body();
    onlyFields(body, ['reason']);
    const reason = requiredString(body, 'reason', { max: 500 });
    const m = await mediations.act(req.tenantId, req.params[0]!, 'deny', reason);
    services.log.info({ tenant: req.tenantId, mediation: m.id, by: req.caller.id }, 'mediation denied by an operator');
    return mediationView(store, m, now());
  });

  router.add('POST', new RegExp(`^/v1/mediations/${ID}/revoke$`), 'manage', async (req) => {
    // an optional {reason}; no body is fine
    const hasBody = (req.ctx.req.headers['content-length'] ?? '0') !== '0' || req.ctx.req.headers['transfer-encoding'] !== undefined;
    let reason: string | null = null;
    if (hasBody) {
      const body = await req.body();
      onlyFields(body, ['reason']);
      reason = body.reason === undefined ? null : requiredString(body, 'reason', { max: 500 });
    }
    const m = await mediations.act(req.tenantId, req.params[0]!, 'revoke', reason);
    services.log.info({ tenant: req.tenantId, mediation: m.id, by: req.caller.id }, 'mediation revoked by an operator');
    return mediationView(store, m, now());
  });

  router.add('GET', new RegExp(`^/v1/mediations/${ID}/keylist$`), 'read', async (req) => {
    onlyQuery(req.query, ['limit', 'offset']);
    const limit = queryInt(req.query, 'limit', KEYLIST_DEFAULT_LIMIT, 1, MAX_KEYLIST);
    const offset = queryInt(req.query, 'offset', 0, 0, MAX_KEYLIST);
    const m = await mediations.get(req.tenantId, req.params[0]!);
    const { keys, total } = await store.mediations.keylist(m.id, { limit, offset });
    return { mediationId: m.id, items: keys.map((k) => ({ key: k.key, addedAt: iso(k.addedAt) })), total, limit, offset };
  });

  router.add('DELETE', new RegExp(`^/v1/mediations/${ID}/keylist/([^/]+)$`), 'manage', async (req) => {
    const [id, key] = [req.params[0]!, req.params[1]!];
    await mediations.removeKey(req.tenantId, id, key);
    services.log.info({ tenant: req.tenantId, mediation: id, key, by: req.caller.id }, 'routing key removed by an operator');
    const { total } = await store.mediations.keylist(id, { limit: 0 });
    return { mediationId: id, removed: key, keylistSize: total };
  });
}
