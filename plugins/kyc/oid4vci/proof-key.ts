import { compactVerify, importJWK } from 'jose';
import type { Jwk, JwtSigner, VerifyJwtCallback } from '@openid4vc/oauth2';
import { ed25519PublicKeyFromMultibase } from '../../../node/crypto/multibase.js';
import type { ChainView } from '../../../node/plugins/chain-view.js';
import { parseDid } from '../../../node/protocol/did.js';

/**
 * Checks a holder's proof JWT (OpenID4VCI `proof_type: jwt`): it must be signed with EdDSA by a
 * key of the credential's subject DID, as that DID's document on chain lists it now. The signer
 * is named by a DID URL `kid` (`did:ledger:…#key-1`) or by a `jwk` header that must be one of the
 * DID's keys; any other key is refused, however valid its signature.
 */

export function ed25519Jwk(publicKey: Uint8Array): Jwk & { kty: 'OKP'; crv: 'Ed25519'; x: string } {
  return { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKey).toString('base64url') };
}

/** The Ed25519 keys of `did` on chain by verification method id; empty when it is not active. */
async function subjectKeys(chain: ChainView, did: string): Promise<Map<string, Uint8Array>> {
  const doc = await chain.resolveDid(parseDid(did).identifier);
  const keys = new Map<string, Uint8Array>();
  if (!doc?.active) return keys;
  for (const m of doc.verificationMethod) keys.set(m.id, ed25519PublicKeyFromMultibase(m.publicKeyMultibase));
  return keys;
}

/** A verifyJwt callback for the library that accepts only `subjectDid`'s keys. */
export function subjectProofVerifier(chain: ChainView, subjectDid: string): VerifyJwtCallback {
  return async (signer: JwtSigner, jwt) => {
    if (signer.alg !== 'EdDSA' && signer.alg !== 'Ed25519') return { verified: false };
    const keys = await subjectKeys(chain, subjectDid);
    let key: Uint8Array | undefined;
    if (signer.method === 'did') {
      const [did] = signer.didUrl.split('#');
      if (did !== subjectDid) return { verified: false };
      key = keys.get(signer.didUrl);
    } else if (signer.method === 'jwk') {
      const x = signer.publicJwk.kty === 'OKP' && signer.publicJwk.crv === 'Ed25519' ? signer.publicJwk.x : undefined;
      key = [...keys.values()].find((k) => Buffer.from(k).toString('base64url') === x);
    }
    if (!key) return { verified: false };
    const jwk = ed25519Jwk(key);
    try {
      await compactVerify(jwt.compact, await importJWK(jwk, 'EdDSA'), { algorithms: ['EdDSA', 'Ed25519'] });
    } catch {
      return { verified: false, signerJwk: jwk };
    }
    return { verified: true, signerJwk: jwk };
  };
}
