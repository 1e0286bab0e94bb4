import { conflict, notFound } from '../../../common/http/problems.js';
import { onlyFields, onlyQuery, queryEnum, queryInt, queryString, requiredString } from '../../../common/http/validate.js';
import { CREDENTIAL_STATUSES, type CredentialFilter } from '../../issuance/list.js';
import type { Revoker } from '../../issuance/revocation.js';
import { API_KEY_MODES, type VerificationSession } from '../../types.js';
import type { Actor } from '../../verification/actors.js';
import type { KycCaller } from '../auth-levels.js';
import { CAN, requireRole } from '../roles.js';
import type { KycRouter } from '../router.js';

/**
 * The organization's credentials (`x-api-key`, or an account JWT):
 *
 *   GET  /v1/credentials?credentialId&mode&status&limit&offset
 *                                                   any member; {credentials[{credentialId, sessionId,
 *                                                   subjectDid, level, mode, issuedAt, txHash, revoked,
 *                                                   revokedAt, revocationReason, revocationTxHash}], total},
 *                                                   newest first; mode sandbox|live, status active|revoked;
 *                                                   credentialId: that one only (a session's, by its id)
 *   POST /v1/verifications/<id>/revoke              an owner or admin; body `{reason}`
 *
 * Revoking signs a CredentialRevoke on chain, emits `credential.revoked` and records the step in
 * the session's timeline with who asked. 404 for a session the caller's organization does not
 * own, 409 when it has no credential or it is already revoked; 200 `{credentialId, revoked: true,
 * txHash}` once the revocation is included.
 */

export interface CredentialRouteDeps {
  router: KycRouter;
  revoker: Pick<Revoker, 'revoke'>;
  /** the organization's session, or undefined (verification/) */
  findSession(organizationId: string, sessionId: string): Promise<Pick<VerificationSession, 'id' | 'credentialId'> | undefined>;
  /** the organization's credentials (issuance/list.ts) */
  list(organizationId: string, filter: CredentialFilter): Promise<{ credentials: Array<Record<string, unknown>>; total: number }>;
  /** records the revocation in the session's timeline, where sessions are wired */
  revoked?(sessionId: string, credentialId: string, reason: string, actor: Actor): Promise<void>;
}

const SESSION_PATH = /^\/v1\/verifications\/(ver_[A-Za-z0-9_-]{1,64})\/revoke$/;

const actorOf = (c: KycCaller): Actor => (c.via === 'jwt' && c.userId ? { kind: 'user', userId: c.userId } : { kind: 'api-key', ...(c.apiKey ? { keyId: c.apiKey.id } : {}) });

export function mountCredentialRoutes({ router, revoker, findSession, list, revoked }: CredentialRouteDeps): void {
  router.add('GET', '/v1/credentials', 'member', async (req) => {
    requireRole(req.caller, CAN.read, ['api-key']);
    onlyQuery(req.query, ['credentialId', 'mode', 'status', 'limit', 'offset']);
    const credentialId = queryString(req.query, 'credentialId', 200);
    const mode = queryEnum(req.query, 'mode', API_KEY_MODES);
    const status = queryEnum(req.query, 'status', CREDENTIAL_STATUSES);
    const limit = queryInt(req.query, 'limit', 20, 1, 100);
    const offset = queryInt(req.query, 'offset', 0, 0, 1_000_000_000);
    return list(req.tenantId, { ...(credentialId !== undefined ? { credentialId } : {}), ...(mode ? { mode } : {}), ...(status ? { status } : {}), limit, offset });
  });

  router.add('POST', SESSION_PATH, 'member', async (req) => {
    requireRole(req.caller, CAN.administer, ['api-key']);
    const body = await req.body();
    onlyFields(body, ['reason']);
    const reason = requiredString(body, 'reason', { max: 500 });
    const session = await findSession(req.tenantId, req.params[0]!);
    if (!session) throw notFound(`no verification session ${req.params[0]}`);
    if (!session.credentialId) throw conflict(`session ${session.id} has no credential to revoke`, 'NO_CREDENTIAL');
    const result = await revoker.revoke(req.tenantId, session.credentialId, reason);
    await revoked?.(session.id, session.credentialId, reason, actorOf(req.caller));
    return result;
  });
}
