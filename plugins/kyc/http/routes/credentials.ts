import { conflict, notFound } from '../../../common/http/problems.js';
import { onlyFields, requiredString } from '../../../common/http/validate.js';
import type { Revoker } from '../../issuance/revocation.js';
import type { VerificationSession } from '../../types.js';
import type { KycRouter } from '../router.js';

/**
 * POST /v1/verifications/<id>/revoke (API key; body `{reason}`): revokes the session's credential
 * on chain (CredentialRevoke signed by the issuer) and emits `credential.revoked`. 404 for a
 * session the caller's organization does not own, 409 when it has no credential or it is already
 * revoked; 200 `{credentialId, revoked: true, txHash}` once the revocation is included.
 */

export interface CredentialRouteDeps {
  router: KycRouter;
  revoker: Pick<Revoker, 'revoke'>;
  /** the organization's session, or undefined (verification/) */
  findSession(organizationId: string, sessionId: string): Promise<Pick<VerificationSession, 'id' | 'credentialId'> | undefined>;
}

const SESSION_PATH = /^\/v1\/verifications\/(ver_[A-Za-z0-9_-]{1,64})\/revoke$/;

export function mountCredentialRoutes({ router, revoker, findSession }: CredentialRouteDeps): void {
  router.add('POST', SESSION_PATH, 'apiKey', async (req) => {
    const body = await req.body();
    onlyFields(body, ['reason']);
    const reason = requiredString(body, 'reason', { max: 500 });
    const session = await findSession(req.tenantId, req.params[0]!);
    if (!session) throw notFound(`no verification session ${req.params[0]}`);
    if (!session.credentialId) throw conflict(`session ${session.id} has no credential to revoke`, 'NO_CREDENTIAL');
    return revoker.revoke(req.tenantId, session.credentialId, reason);
  });
}
