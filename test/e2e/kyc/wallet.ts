import { createHash, randomBytes } from 'node:crypto';
import { SignJWT, importJWK } from 'jose';
import { clientAuthenticationAnonymous, type JwtSigner } from '@openid4vc/oauth2';
import { Openid4vciClient, setGlobalConfig } from '@openid4vc/openid4vci';
import { keyPairFromSeed } from '../../../node/client/index.js';

/**
 * A wallet's OpenID4VCI client: the library's own client (not ours), whose proofs are signed
 * with the holder's Ed25519 key.
 */

// the test serves the issuer over http on 127.0.0.1
setGlobalConfig({ allowInsecureUrls: true });

export const ed25519Jwk = (publicKey: Uint8Array, seed?: Uint8Array) => ({
  kty: 'OKP',
  crv: 'Ed25519',
  x: Buffer.from(publicKey).toString('base64url'),
  ...(seed ? { d: Buffer.from(seed).toString('base64url') } : {}),
});

export function wallet(seed: Uint8Array) {
  const { publicKey } = keyPairFromSeed(seed);
  return new Openid4vciClient({
    callbacks: {
      hash: (data, alg) => createHash(alg.replace('-', '').toLowerCase()).update(data).digest(),
      generateRandom: (n) => randomBytes(n),
      clientAuthentication: clientAuthenticationAnonymous(),
      signJwt: async (signer: JwtSigner, jwt) => {
        const key = await importJWK(ed25519Jwk(publicKey, seed), 'EdDSA');
        const compact = await new SignJWT(jwt.payload).setProtectedHeader(jwt.header as { alg: string }).sign(key);
        return { jwt: compact, signerJwk: ed25519Jwk(publicKey) };
      },
    },
  });
}

