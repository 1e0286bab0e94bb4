import t from 'tap';
import type { Credential } from '../../../../../node/protocol/credential-document.js';
import { JobStore, type StoredCredential } from '../../../../../plugins/kyc/issuance/jobs.js';
import { LEDGER_DID, ORG_A, ORG_B, serve } from '../../verification/harness.js';

/** A credential as the issuer stores it; the list reads only its record fields, not the document. */
function stored(n: number, sessionId: string, organizationId: string, issuedAt: number, revoked?: StoredCredential['revoked']): StoredCredential {
  return {
    credentialId: `urn:ledger:credential:${String(n).padStart(32, '0')}`,
    sessionId,
    organizationId,
    subjectDid: LEDGER_DID,
    credential: {} as Credential,
    txHash: String(n).repeat(64).slice(0, 64),
    issuedAt,
    ...(revoked ? { revoked } : {}),
  };
}

t.test("the organization's credentials, by any member or the API key, with mode and status filters", async (t) => {
  const h = await serve(t);
  const session = async (key: string, level: number) => (await h.req('POST', '/v1/verifications', { key, body: { level } })).body.session.id as string;
  const live = await session('sk_live_a', 2);
  const sandbox = await session('sk_sandbox_a', 1);
  const other = await session('sk_live_b', 1);
  const table = new JobStore(h.base.db).credentials;
  const t0 = Date.parse('2025-06-01T00:00:00.000Z');
  const c1 = stored(1, live, ORG_A, t0);
  const c2 = stored(2, sandbox, ORG_A, t0 + 1000, { at: t0 + 5000, reason: 'stolen', txHash: 'f'.repeat(64) });
  const c3 = stored(3, other, ORG_B, t0 + 2000);
  for (const c of [c1, c2, c3]) await table.put(c.credentialId, c);

  const all = await h.req('GET', '/v1/credentials', { jwt: 'jwt_developer_a' });
  t.equal(all.status, 200);
  t.same(all.body, {
    credentials: [
      { credentialId: c2.credentialId, sessionId: sandbox, subjectDid: LEDGER_DID, level: 1, mode: 'sandbox', issuedAt: '2025-06-01T00:00:01.000Z', txHash: c2.txHash, revoked: true, revokedAt: '2025-06-01T00:00:05.000Z', revocationReason: 'stolen', revocationTxHash: 'f'.repeat(64) },
      { credentialId: c1.credentialId, sessionId: live, subjectDid: LEDGER_DID, level: 2, mode: 'live', issuedAt: '2025-06-01T00:00:00.000Z', txHash: c1.txHash, revoked: false, revokedAt: null, revocationReason: null, revocationTxHash: null },
    ],
    total: 2,
  }, 'newest first, its organization only');
  const ids = async (q: string, as: { key?: string; jwt?: string } = { jwt: 'jwt_reviewer_a' }) => (await h.req('GET', `/v1/credentials${q}`, as)).body.credentials.map((c: { credentialId: string }) => c.credentialId);
  t.same(await ids('?mode=live'), [c1.credentialId]);
  t.same(await ids('?mode=sandbox&status=revoked'), [c2.credentialId]);
  t.same(await ids('?status=active'), [c1.credentialId]);
  t.same(await ids('?limit=1&offset=1', { key: 'sk_live_a' }), [c1.credentialId]);
  t.same(await ids('', { jwt: 'jwt_reviewer_b' }), [c3.credentialId]);
  const byId = (id: string) => `?credentialId=${encodeURIComponent(id)}`;
  t.same(await ids(byId(c1.credentialId)), [c1.credentialId], 'one credential by its id, as a session page reads it');
  t.same(await ids(`${byId(c2.credentialId)}&status=active`), [], 'with the other filters still applied');
  t.same(await ids(byId(c3.credentialId)), [], "another organization's is not there");
  t.same(await ids(byId('urn:ledger:credential:unknown')), []);
  for (const [q, field] of [['mode=test', 'mode'], ['status=expired', 'status'], ['limit=0', 'limit'], ['offset=-1', 'offset'], ['sort=asc', 'sort'], [`credentialId=${'x'.repeat(201)}`, 'credentialId']] as const) {
    t.match(await h.req('GET', `/v1/credentials?${q}`, { jwt: 'jwt_owner_a' }), { status: 400, body: { field } }, q);
  }
  t.match(await h.req('GET', '/v1/credentials', { operator: true }), { status: 403, body: { code: 'ROLE_FORBIDDEN' } });
  t.equal((await h.req('GET', '/v1/credentials')).status, 401);
});

t.test('revoking by account needs an owner or admin; the API key revokes as before', async (t) => {
  const h = await serve(t);
  const id = (await h.req('POST', '/v1/verifications', { key: 'sk_live_a', body: { level: 1 } })).body.session.id as string;
  const revoke = (as: { key?: string; jwt?: string; operator?: boolean }, session = id) => h.req('POST', `/v1/verifications/${session}/revoke`, { ...as, body: { reason: 'stolen' } });
  for (const jwt of ['jwt_developer_a', 'jwt_reviewer_a']) t.match(await revoke({ jwt }), { status: 403, body: { code: 'ROLE_FORBIDDEN' } }, jwt);
  t.match(await revoke({ operator: true }), { status: 403, body: { code: 'ROLE_FORBIDDEN' } });
  // past the role check, to the session: it has no credential yet (test/e2e revokes on chain)
  for (const as of [{ jwt: 'jwt_owner_a' }, { jwt: 'jwt_admin_a' }, { jwt: 'jwt_legacy_a' }, { key: 'sk_live_a' }]) t.match(await revoke(as), { status: 409, body: { code: 'NO_CREDENTIAL' } }, JSON.stringify(as));
  t.match(await revoke({ jwt: 'jwt_reviewer_b' }), { status: 403 }, 'a reviewer of another organization is refused by role first');
  t.equal((await revoke({ key: 'sk_live_b' })).status, 404, "another organization's session");
  t.match(await h.req('POST', `/v1/verifications/${id}/revoke`, { jwt: 'jwt_owner_a', body: {} }), { status: 400, body: { field: 'reason' } });
});
