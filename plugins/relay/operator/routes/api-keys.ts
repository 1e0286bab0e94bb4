import { newApiKey } from '../../../common/auth/api-keys.js';
import { API_KEY_INDEX, API_KEY_KIND, API_KEY_PREFIX, API_KEY_SCOPES, type ApiKeyRecord } from '../auth.js';
import { conflict, notFound } from '../../../common/http/problems.js';
import { Reply } from '../../../common/http/router.js';
import { type RouteDeps } from '../router.js';
import { oneOf, onlyFields, onlyQuery, requiredString } from '../../../common/http/validate.js';

/**
 * API keys (seed 000 "API key"): `slk_` and 43 base64url characters, shown once at creation and
 * stored only as a SHA-256 hash, with a global index from the hash to the tenant's record.
 * Listing needs any credential; creating and revoking need `full` (a session or a full key).
 * A revoked key is refused (401) from the next request on; its record stays for the audit.
 */

/** active (unrevoked) keys per tenant */
export const MAX_ACTIVE_KEYS = 100;

export function publicKey(r: ApiKeyRecord) {
  return { id: r.id, name: r.name, scope: r.scope, prefix: r.prefix, createdAt: r.createdAt, lastUsedAt: r.lastUsedAt, revokedAt: r.revokedAt };
}

export function mountApiKeys({ router, services, authenticator, now }: RouteDeps): void {
  const docs = services.store.documents;

  router.add('GET', '/v1/api-keys', 'read', async (req) => {
    onlyQuery(req.query, []);
    const keys = await docs.list<ApiKeyRecord>(req.tenantId, API_KEY_KIND);
    return keys.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id)).map(publicKey);
  });

  router.add('POST', '/v1/api-keys', 'full', async (req) => {
    const body = await req.body();
    onlyFields(body, ['name', 'scope']);
    const name = requiredString(body, 'name', { max: 100 }).trim();
    const scope = oneOf(body.scope, 'scope', API_KEY_SCOPES);
    const active = (await docs.list<ApiKeyRecord>(req.tenantId, API_KEY_KIND)).filter((k) => k.revokedAt === null);
    if (active.length >= MAX_ACTIVE_KEYS) throw conflict(`this tenant has ${active.length} active API keys, the most allowed; revoke one first`, 'API_KEY_LIMIT');
    const made = newApiKey(API_KEY_PREFIX);
    const record: ApiKeyRecord = {
      id: `key_${made.id.replace(/-/g, '')}`,
      name,
      scope,
      prefix: made.displayPrefix,
      hash: made.hash,
      createdAt: new Date(now()).toISOString(),
      createdBy: req.caller.id,
      lastUsedAt: null,
      revokedAt: null,
    };
    // the record first: an index entry never points at nothing
    await docs.put(req.tenantId, API_KEY_KIND, record.id, record);
    await docs.putIndex(API_KEY_INDEX, record.hash, { tenantId: req.tenantId, id: record.id });
    services.log.info({ tenant: req.tenantId, key: record.id, scope, by: req.caller.id }, 'API key created');
    return new Reply(201, { ...publicKey(record), key: made.key, note: 'the key is shown once; store it now. Only its hash is kept.' });
  });

  router.add('DELETE', /^\/v1\/api-keys\/([^/]+)$/, 'full', async (req) => {
    const id = req.params[0]!;
    let result: ApiKeyRecord | undefined;
    await authenticator.serial.run(id, async () => {
      const record = await docs.get<ApiKeyRecord>(req.tenantId, API_KEY_KIND, id);
      if (!record) return;
      result = record.revokedAt !== null ? record : { ...record, revokedAt: new Date(now()).toISOString() };
      if (result !== record) await docs.put(req.tenantId, API_KEY_KIND, id, result);
    });
    if (!result) throw notFound(`no API key ${id} in this tenant`);
    services.log.info({ tenant: req.tenantId, key: id, by: req.caller.id }, 'API key revoked');
    return publicKey(result);
  });
}
