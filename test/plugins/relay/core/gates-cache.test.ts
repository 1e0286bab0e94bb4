import t from 'tap';
import { harness, TENANT_A } from '../operator/harness.js';

t.test('the live path sees a policy as soon as the operator API writes or deletes it', async (t) => {
  const h = await harness(t);
  const token = await h.session(TENANT_A);
  t.equal(await h.services.gates.enforce(TENANT_A, 'mediation', undefined, null), null, 'no policy: nothing to enforce');
  const created = await h.req('POST', '/v1/policies', { token, body: { name: 'kyc', credentialType: 'KYCCredential', disclosure: 'full', appliesTo: 'mediation' } });
  t.equal(created.status, 201);
  t.match(await h.services.gates.enforce(TENANT_A, 'mediation', undefined, null), { pass: false, policy: created.body.id });
  t.equal((await h.req('DELETE', `/v1/policies/${created.body.id}`, { token })).status, 200);
  t.equal(await h.services.gates.enforce(TENANT_A, 'mediation', undefined, null), null, 'deleted: enforced no more');
});
