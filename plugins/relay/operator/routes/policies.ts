import { randomBytes } from 'node:crypto';
import { CREDENTIAL_TYPES } from '../../../../node/protocol/credential-types.js';
import { APPLIES_TO, DISCLOSURES, POLICY_KIND, parsePresentation, type Policy } from '../../core/gates.js';
import { parseSettingsPatch } from '../../core/settings.js';
import { conflict, notFound, validation } from '../../../common/http/problems.js';
import { Reply } from '../../../common/http/router.js';
import { type RouteDeps } from '../router.js';
import { DID_PATTERN, oneOf, onlyFields, onlyQuery, optionalString, requiredString } from '../../../common/http/validate.js';

/**
 * Credential-gated policies and the two per-tenant limits (seed 000 "Policies", "Limits").
 * `POST /v1/policies/test` runs `GateService.evaluate`, the very function the live mediation and
 * delivery paths call, on committed chain state, and answers the verdict; it stores and emits
 * nothing.
 */

export const MAX_POLICIES = 100;

export function mountPolicies({ router, services, now }: RouteDeps): void {
  const docs = services.store.documents;
  const settings = services.settings;

  // fixed paths before the /v1/policies/<id> pattern
  for (const [path, field] of [
    ['rate-limit', 'rateLimitPerDidPerMin'],
    ['retention', 'retentionSeconds'],
  ] as const) {
    router.add('GET', `/v1/policies/${path}`, 'read', async (req) => {
      onlyQuery(req.query, []);
      return { [field]: (await settings.get(req.tenantId))[field] };
    });
    router.add('PUT', `/v1/policies/${path}`, 'manage', async (req) => {
      const patch = parseSettingsPatch(await req.body(), [field]);
      return { [field]: (await settings.update(req.tenantId, patch))[field] };
    });
  }

  router.add('POST', '/v1/policies/test', 'manage', async (req) => {
    const body = await req.body();
    onlyFields(body, ['policyId', 'credentialRef', 'holder', 'presentation']);
    const policyId = requiredString(body, 'policyId', { max: 100 });
    const credentialRef = requiredString(body, 'credentialRef', { max: 200 });
    const holder = optionalString(body, 'holder', { max: 4000, pattern: DID_PATTERN, patternText: 'a DID (did:<method>:<id>)' });
    const policy = await docs.get<Policy>(req.tenantId, POLICY_KIND, policyId);
    if (!policy) throw notFound(`no policy ${policyId} in this tenant`);
    let presentation;
    try {
      presentation = parsePresentation(credentialRef, body.presentation);
    } catch (err) {
      throw validation((err as Error).message.replace('credential_presentation', 'presentation').replace('credential_ref', 'credentialRef'), body.presentation === undefined ? 'credentialRef' : 'presentation');
    }
    const verdict = await services.gates.evaluate(policy, presentation, holder ?? null);
    return { ...verdict, policyName: policy.name, credentialType: policy.credentialType, disclosure: policy.disclosure, appliesTo: policy.appliesTo, holder: holder ?? null };
  });

  router.add('GET', '/v1/policies', 'read', async (req) => {
    onlyQuery(req.query, []);
    const list = await services.gates.policies(req.tenantId);
    return list.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  });

  router.add('POST', '/v1/policies', 'manage', async (req) => {
    const body = await req.body();
    onlyFields(body, ['name', 'credentialType', 'disclosure', 'appliesTo']);
    const name = requiredString(body, 'name', { max: 100 }).trim();
    const credentialType = oneOf(body.credentialType, 'credentialType', CREDENTIAL_TYPES);
    const disclosure = body.disclosure === undefined ? 'full' : oneOf(body.disclosure, 'disclosure', DISCLOSURES);
    const appliesTo = body.appliesTo === undefined ? 'both' : oneOf(body.appliesTo, 'appliesTo', APPLIES_TO);
    const existing = await services.gates.policies(req.tenantId);
    if (existing.length >= MAX_POLICIES) throw conflict(`this tenant has ${existing.length} policies, the most allowed`, 'POLICY_LIMIT');
    if (existing.some((p) => p.name === name)) throw conflict(`a policy named ${JSON.stringify(name)} exists already`, 'POLICY_EXISTS');
    const policy: Policy = { id: `pol_${randomBytes(8).toString('hex')}`, tenantId: req.tenantId, name, credentialType, disclosure, appliesTo, createdAt: new Date(now()).toISOString() };
    await docs.put(req.tenantId, POLICY_KIND, policy.id, policy);
    services.gates.forget(req.tenantId);
    services.log.info({ tenant: req.tenantId, policy: policy.id, by: req.caller.id }, 'policy created');
    return new Reply(201, policy);
  });

  router.add('DELETE', /^\/v1\/policies\/([^/]+)$/, 'manage', async (req) => {
    const id = req.params[0]!;
    const policy = await docs.get<Policy>(req.tenantId, POLICY_KIND, id);
    if (!policy) throw notFound(`no policy ${id} in this tenant`);
    await docs.delete(req.tenantId, POLICY_KIND, id);
    services.gates.forget(req.tenantId);
    services.log.info({ tenant: req.tenantId, policy: id, by: req.caller.id }, 'policy deleted');
    return { id, deleted: true };
  });
}
