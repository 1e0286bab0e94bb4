import { Reply } from '../../../common/http/router.js';
import { oneOf, onlyFields, onlyQuery, requiredString } from '../../../common/http/validate.js';
import { publicApiKey, type ApiKeyService } from '../../accounts/api-keys.js';
import { API_KEY_MODES } from '../../types.js';
import { CAN, requireRole } from '../roles.js';
import type { KycRouter } from '../router.js';

/**
 * /v1/api-keys (account JWT of an owner, admin or developer): create answers 201 `{key, id}` (plus the key's record fields; the
 * key itself is shown this once), list `{keys[]}`, delete `{message}` and the key stops working at once.
 */
export function mountApiKeys(router: KycRouter, deps: { apiKeys: ApiKeyService }): void {
  router.add('POST', '/v1/api-keys', 'jwt', async (req) => {
    requireRole(req.caller, CAN.develop);
    const body = await req.body();
    onlyFields(body, ['name', 'mode']);
    const name = requiredString(body, 'name', { max: 100 }).trim();
    const mode = oneOf(body.mode, 'mode', API_KEY_MODES);
    const { key, record } = await deps.apiKeys.create(req.tenantId, name, mode);
    return new Reply(201, { key, ...publicApiKey(record) });
  });

  router.add('GET', '/v1/api-keys', 'jwt', async (req) => {
    requireRole(req.caller, CAN.develop);
    onlyQuery(req.query, []);
    return { keys: await deps.apiKeys.list(req.tenantId) };
  });

  router.add('DELETE', /^\/v1\/api-keys\/([^/]+)$/, 'jwt', async (req) => {
    requireRole(req.caller, CAN.develop);
    const id = req.params[0]!;
    await deps.apiKeys.delete(req.tenantId, id);
    return { message: `API key ${id} deleted; it no longer authenticates.` };
  });
}
