import { fromHex } from '../../../node/client/index.js';
import { verify } from '../../../node/crypto/ed25519.js';
import { invalid } from '../../../node/errors.js';
import { HttpProblem } from '../../common/http/problems.js';
import type { PendingRedeem } from './store.js';

/**
 * The check of the holder's proof (OpenID4VCI `proof_type: jwt`) the phone signed, before the
 * issuer sees it: the header and claims the wallet asked for, and an Ed25519 signature by the
 * caller's registered key, so a wrong key or a corrupted signature gets a precise answer here
 * (and the issuer's nonce is not spent on it).
 */

export const PROOF_TYP = 'openid4vci-proof+jwt';

/** Throws 400 BAD_PROOF for a claim the wallet did not ask for, 403 BAD_PROOF_SIGNATURE for a signature not by `p.publicKey`. */
export function checkProof(jwt: string, p: PendingRedeem, now: number): void {
  const parts = jwt.split('.');
  if (parts.length !== 3 || parts.some((s) => !/^[A-Za-z0-9_-]+$/.test(s))) throw invalid('BAD_PROOF', 'the proof must be a compact JWS (three base64url parts)', { field: 'proofJwt' });
  const [h, pl, s] = parts as [string, string, string];
  let header: Record<string, unknown>;
  let payload: Record<string, unknown>;
  try {
    header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8')) as Record<string, unknown>;
    payload = JSON.parse(Buffer.from(pl, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    throw invalid('BAD_PROOF', 'the proof JWT header or payload is not base64url JSON', { field: 'proofJwt' });
  }
  const want = (ok: boolean, what: string): void => {
    if (!ok) throw invalid('BAD_PROOF', `the proof JWT ${what}`, { field: 'proofJwt' });
  };
  want(header['alg'] === 'EdDSA', 'must have alg EdDSA');
  want(header['kid'] === p.kid, `must have kid ${p.kid}`);
  want(header['typ'] === PROOF_TYP, `must have typ ${PROOF_TYP}`);
  want(header['jwk'] === undefined, 'names its key by kid, not jwk');
  want(payload['aud'] === p.payload['aud'], `must have aud ${String(p.payload['aud'])}`);
  want(p.payload['nonce'] === undefined || payload['nonce'] === p.payload['nonce'], "must carry the issuer's nonce of proofJwtPayload");
  want(typeof payload['iat'] === 'number' && Math.abs((payload['iat'] as number) * 1000 - now) <= 10 * 60_000, 'must have an iat within 10 minutes of now');
  const signature = Buffer.from(s, 'base64url');
  if (signature.length !== 64 || !verify(fromHex(p.publicKey, 32), Buffer.from(`${h}.${pl}`, 'ascii'), signature)) {
    throw new HttpProblem('forbidden', 'the proof signature does not verify under your registered key: sign signingInput (its ASCII bytes) with Ed25519', { code: 'BAD_PROOF_SIGNATURE' });
  }
}
