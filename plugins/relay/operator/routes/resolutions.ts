import { validation } from '../../../common/http/problems.js';
import type { RouteDeps } from '../router.js';
import { DID_PATTERN, onlyQuery } from '../../../common/http/validate.js';

/**
 * DID resolutions as the relay routes by them: did:ledger from the on-chain DID document (cached
 * for plugins.relay.resolverTtlMs), did:key and did:peer from the DID itself. `re-resolve`
 * bypasses the cache. A failed resolution is answered (200, `active: false`, `error`) and emits
 * `resolution.failed` to the caller's tenant.
 */

/** how many granted mediations GET /v1/resolutions resolves at once */
const PARALLEL = 8;

function did(text: string): string {
  if (!DID_PATTERN.test(text) || text.length > 2000) throw validation(`not a DID (did:<method>:<id>): ${JSON.stringify(text.slice(0, 80))}`, 'did');
  return text;
}

export function mountResolutions({ router, services }: RouteDeps): void {
  const { resolutions, store } = services;

  router.add('GET', '/v1/resolutions', 'read', async (req) => {
    onlyQuery(req.query, []);
    const granted = (await store.mediations.list(req.tenantId)).filter((m) => m.state === 'granted');
    const out = [];
    for (let i = 0; i < granted.length; i += PARALLEL) {
      const chunk = granted.slice(i, i + PARALLEL);
      out.push(...(await Promise.all(chunk.map((m) => resolutions.resolve(m.recipientDid, { fresh: false, tenantId: req.tenantId })))));
    }
    return out;
  });

  router.add('GET', /^\/v1\/resolutions\/([^/]+)$/, 'read', async (req) => {
    onlyQuery(req.query, []);
    return resolutions.resolve(did(req.params[0]!), { fresh: false, tenantId: req.tenantId });
  });

  router.add('POST', /^\/v1\/resolutions\/([^/]+)\/re-resolve$/, 'manage', async (req) => {
    return resolutions.resolve(did(req.params[0]!), { fresh: true, tenantId: req.tenantId });
  });
}
