import { compactVerify, importJWK } from 'jose';
import type { Jwk, JwtSigner, VerifyJwtCallback } from '@openid4vc/oauth2';
import { ed25519PublicKeyFromMultibase } from '../../../node/crypto/multibase.js';
import type { ChainView } from '../../../node/plugins/chain-view.js';
import { parseDid } from '../../../node/protocol/did.js';

/**
 * Checks a holder's proof JWT (OpenID4VCI `proof_type: jwt`): it must be signed with EdDSA by a
 * key of the credential's subject DID, as that DID's document on chain lists it now. The signer
 * is named by a DID URL `kid` (`did:ledger:…#key-1`) or by a `jwk` header that must be one of the
 * DID's keys; any other key is refused, however valid its signature. A refusal throws
 * ProofKeyRefused, whose message says why; the holder reads it as the `error_description`.
 */

export class ProofKeyRefused extends Error {
  override readonly name = 'ProofKeyRefused';
}

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

/** The subject's key that `signer` names, with how the refusal names the signer. */
async function signerKey(chain: ChainView, subjectDid: string, signer: JwtSigner): Promise<{ key: Uint8Array; name: string }> {
  if (signer.method !== 'did' && signer.method !== 'jwk') throw new ProofKeyRefused(`name the signing key by a kid of ${subjectDid} or by a jwk header`);
  if (signer.method === 'did' && signer.didUrl.split('#')[0] !== subjectDid) {
    throw new ProofKeyRefused(`the proof is signed by ${signer.didUrl.split('#')[0]}, not by the credential's subject ${subjectDid}`);
  }
  const keys = await subjectKeys(chain, subjectDid);
  if (keys.size === 0) throw new ProofKeyRefused(`the credential's subject ${subjectDid} has no active DID document on chain`);
  if (signer.method === 'did') {
    const key = keys.get(signer.didUrl);
    if (!key) throw new ProofKeyRefused(`${signer.didUrl} is not a key of ${subjectDid} on chain`);
    return { key, name: signer.didUrl };
  }
  const x = signer.publicJwk.kty === 'OKP' && signer.publicJwk.crv === 'Ed25519' ? signer.publicJwk.x : undefined;
  const key = [...keys.values()].find((k) => Buffer.from(k).toString('base64url') === x);
  if (!key) throw new ProofKeyRefused(`the proof's jwk is not a key of the credential's subject ${subjectDid} on chain`);
  return { key, name: 'its jwk' };
}

/** A verifyJwt callback for the library that accepts only `subjectDid`'s keys. */
export function subjectProofVerifier(chain: ChainView, subjectDid: string): VerifyJwtCallback {
  return async (signer: JwtSigner, jwt) => {
    if (signer.alg !== 'EdDSA' && signer.alg !== 'Ed25519') throw new ProofKeyRefused(`the proof is signed with ${signer.alg}; this issuer takes EdDSA (Ed25519) proofs`);
    const { key, name } = await signerKey(chain, subjectDid, signer);
    const jwk = ed25519Jwk(key);
    try {
      await compactVerify(jwt.compact, await importJWK(jwk, 'EdDSA'), { algorithms: ['EdDSA', 'Ed25519'] });
    } catch {
      throw new ProofKeyRefused(`the proof's signature does not verify with ${name}`);
    }
    return { verified: true, signerJwk: jwk };
  };
}
