import { onlyFields, onlyQuery, optionalString, requiredString } from '../../../common/http/validate.js';
import { validation } from '../../../common/http/problems.js';
import { Reply } from '../../../common/http/router.js';
import { MAX_OFFER_CHARS, MAX_PROOF_JWT_CHARS, MAX_TX_CODE_CHARS, REDEEM_ID, type CredentialRedeemer } from '../../credentials/redeem.js';
import type { CredentialStatusChecker } from '../../credentials/status.js';
import type { CredentialStore } from '../../credentials/store.js';
import type { WalletRouter } from '../router.js';
import { refuseSecretParams, refuseSecrets } from '../secrets.js';

/**
 * The user's KYC credentials (seed 001 B):
 *   GET  /v1/credentials       the cached credentials, each status refreshed (a JSON array, `[]` when none),
 *                              each with its BBS form (`bbs`, null when none) for the device's proofs
 *   POST /v1/oid4vci/redeem    `{credentialOffer, txCode?}`: 200 `{status: "proof_required", …}` when
 *                              the issuer wants a proof of possession, else 201 and the credential;
 *                              then `{redeemId, proofSignature | proofJwt}`: 201 and the credential
 * (credentials/redeem.ts explains the two calls: the proof is signed on the phone).
 * A credential and its BBS form hold the user's personal data (the BBS form the date of birth):
 * every answer is the caller's own records, and `Cache-Control: no-store` keeps them out of caches.
 */

const PRIVATE = { 'cache-control': 'no-store' };

export interface CredentialRouteDeps {
  store: CredentialStore;
  redeemer: CredentialRedeemer;
  status: CredentialStatusChecker;
}

const PROOF_SIGNATURE = /^[A-Za-z0-9_-]{86}$/;

/** An offer link or the offer JSON, which may be pretty-printed (line breaks and tabs are fine). */
function offerText(value: unknown): string {
  if (value === undefined || value === null) throw validation('credentialOffer is required: the offer link (openid-credential-offer://…), the offer URI, or the offer JSON', 'credentialOffer');
  if (typeof value !== 'string') throw validation('credentialOffer must be a string: the offer link or the offer JSON text', 'credentialOffer');
  if (value.trim() === '') throw validation('credentialOffer must not be empty', 'credentialOffer');
  if (value.length > MAX_OFFER_CHARS) throw validation(`credentialOffer is at most ${MAX_OFFER_CHARS} characters (got ${value.length})`, 'credentialOffer');
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(value)) throw validation('credentialOffer must not contain control characters', 'credentialOffer');
  return value;
}

export function mountCredentials(router: WalletRouter, deps: CredentialRouteDeps): void {
  router.add('GET', '/v1/credentials', 'session', async (req) => {
    refuseSecretParams(req.query);
    onlyQuery(req.query, []);
    const refreshed = await deps.status.refresh(await deps.store.list(req.caller.userId));
    await deps.store.put(...refreshed);
    return new Reply(200, refreshed.map((r) => ({ ...r, bbs: r.bbs ?? null })), PRIVATE);
  });

  router.add('POST', '/v1/oid4vci/redeem', 'session', async (req) => {
    refuseSecretParams(req.query);
    const body = await req.body();
    refuseSecrets(body);
    if (body['redeemId'] !== undefined) {
      onlyFields(body, ['redeemId', 'proofSignature', 'proofJwt']);
      const redeemId = requiredString(body, 'redeemId', { max: 40, pattern: REDEEM_ID, patternText: 'the redeemId of the proof_required answer' });
      const proofSignature = optionalString(body, 'proofSignature', { max: 86, pattern: PROOF_SIGNATURE, patternText: 'the 64-byte Ed25519 signature of signingInput, base64url (86 characters)' });
      const proofJwt = optionalString(body, 'proofJwt', { max: MAX_PROOF_JWT_CHARS });
      if ((proofSignature === undefined) === (proofJwt === undefined)) throw validation('send exactly one of proofSignature and proofJwt with the redeemId', 'proofSignature');
      const record = await deps.redeemer.complete(req.caller, { redeemId, ...(proofSignature !== undefined ? { proofSignature } : { proofJwt: proofJwt! }) });
      return new Reply(201, record, PRIVATE);
    }
    onlyFields(body, ['credentialOffer', 'txCode']);
    const credentialOffer = offerText(body['credentialOffer']);
    const txCode = optionalString(body, 'txCode', { max: MAX_TX_CODE_CHARS });
    const out = await deps.redeemer.start(req.caller, { credentialOffer, ...(txCode !== undefined ? { txCode } : {}) });
    return out.status === 'proof_required' ? new Reply(200, out) : new Reply(201, out.credential, PRIVATE);
  });
}
