import { createHash, createPrivateKey, randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { importJWK, SignJWT } from 'jose';
import { clientAuthenticationAnonymous, Oauth2ClientErrorResponseError, type JwtSigner, type SignJwtCallback } from '@openid4vc/oauth2';
import { Openid4vciClient, Openid4vciRetrieveCredentialsError, setGlobalConfig, type CredentialOfferObject, type IssuerMetadataResult } from '@openid4vc/openid4vci';

/**
 * An outside wallet in a process of its own: the @openid4vc/openid4vci client and nothing of the
 * node's code, so its copy of the library (and that library's process-wide switch for plain-http
 * URLs) is not the issuer's. The wallet turns the switch on for itself, to read an issuer served
 * over http on loopback; the issuer's process never sees it. Run by wallet.ts: it reads one JSON
 * command a line on stdin and prints one JSON answer a line on stdout, `{result}` or `{error}`.
 *
 * Commands: `resolve {link}` (the offer and the issuer's metadata), `token {txCode?}`,
 * `credential {proof?: {seed, signer, nonce}}` with the proof signed by the Ed25519 key of `seed`
 * (hex), named by its `jwk` or by a DID URL `kid`.
 */

setGlobalConfig({ allowInsecureUrls: true });

const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');

function keyOf(seedHex: string): { kty: string; crv: string; x: string; d: string } {
  const key = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, Buffer.from(seedHex, 'hex')]), format: 'der', type: 'pkcs8' });
  return key.export({ format: 'jwk' }) as { kty: string; crv: string; x: string; d: string };
}

function signerOf(seedHex: string): SignJwtCallback {
  const { d, ...publicJwk } = keyOf(seedHex);
  return async (_signer, jwt) => {
    const key = await importJWK({ ...publicJwk, d }, 'EdDSA');
    return { jwt: await new SignJWT(jwt.payload).setProtectedHeader(jwt.header as { alg: string }).sign(key), signerJwk: publicJwk };
  };
}

function client(signJwt: SignJwtCallback = () => Promise.reject(new Error('no key to sign with'))): Openid4vciClient {
  return new Openid4vciClient({
    callbacks: {
      hash: (data, alg) => createHash(alg.replace('-', '').toLowerCase()).update(data).digest(),
      generateRandom: (n) => randomBytes(n),
      clientAuthentication: clientAuthenticationAnonymous(),
      signJwt,
    },
  });
}

interface Proof {
  seed: string;
  signer: { method: 'jwk' } | { method: 'did'; didUrl: string };
  nonce: string;
}

const state: { offer?: CredentialOfferObject; metadata?: IssuerMetadataResult; accessToken?: string } = {};
const need = <T>(value: T | undefined, what: string): T => {
  if (value === undefined) throw new Error(`${what} first`);
  return value;
};

const commands: Record<string, (args: Record<string, unknown>) => Promise<unknown>> = {
  async resolve({ link }) {
    state.offer = await client().resolveCredentialOffer(link as string);
    state.metadata = await client().resolveIssuerMetadata(state.offer.credential_issuer);
    return { offer: state.offer, credentialIssuer: state.metadata.credentialIssuer.credential_issuer };
  },
  async token({ txCode }) {
    const credentialOffer = need(state.offer, 'resolve');
    const { accessTokenResponse } = await client().retrievePreAuthorizedCodeAccessTokenFromOffer({ credentialOffer, issuerMetadata: need(state.metadata, 'resolve'), ...(txCode ? { txCode: txCode as string } : {}) });
    state.accessToken = accessTokenResponse.access_token;
    return accessTokenResponse;
  },
  async credential({ proof }) {
    const issuerMetadata = need(state.metadata, 'resolve');
    const accessToken = need(state.accessToken, 'token');
    let jwt: string | undefined;
    if (proof) {
      const p = proof as Proof;
      const { d: _d, ...publicJwk } = keyOf(p.seed);
      const signer: JwtSigner = p.signer.method === 'did' ? { method: 'did', didUrl: p.signer.didUrl, alg: 'EdDSA' } : { method: 'jwk', publicJwk, alg: 'EdDSA' };
      ({ jwt } = await client(signerOf(p.seed)).createCredentialRequestJwtProof({ issuerMetadata, credentialConfigurationId: 'KYCCredential', signer, nonce: p.nonce }));
    }
    const got = await client().retrieveCredentials({ issuerMetadata, accessToken, credentialConfigurationId: 'KYCCredential', ...(jwt ? { proof: { proof_type: 'jwt', jwt } } : {}) });
    return got.credentialResponse;
  },
};

/** What the issuer answered, when it answered an error: its status and OAuth error body. */
function failure(err: unknown): { message: string; status?: number; body?: unknown } {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof Oauth2ClientErrorResponseError) return { message, status: err.response.status, body: err.errorResponse };
  if (err instanceof Openid4vciRetrieveCredentialsError) return { message, status: err.response.response.status, body: err.response.credentialErrorResponseResult?.data };
  return { message };
}

for await (const line of createInterface({ input: process.stdin })) {
  const { op, ...args } = JSON.parse(line) as { op: string } & Record<string, unknown>;
  const command = commands[op];
  const answer = command ? await command(args).then((result) => ({ result }), (err: unknown) => ({ error: failure(err) })) : { error: { message: `unknown command ${op}` } };
  process.stdout.write(`${JSON.stringify(answer)}\n`);
}
