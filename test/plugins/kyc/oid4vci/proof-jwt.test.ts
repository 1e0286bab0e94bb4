import t from 'tap';
import { compactVerify, importJWK, SignJWT } from 'jose';
import type { VerifyJwtCallback } from '@openid4vc/oauth2';
import { getGlobalConfig, setGlobalConfig } from '@openid4vc/openid4vci';
import { generateSeed, keyPairFromSeed } from '../../../../node/crypto/ed25519.js';
import { issuerUrlRefusal, PROOF_JWT_TYP, verifyProofJwt, type ProofJwtCheck } from '../../../../plugins/kyc/oid4vci/proof-jwt.js';
import { ed25519Jwk, ProofKeyRefused } from '../../../../plugins/kyc/oid4vci/proof-key.js';

/**
 * The proof JWT rules on their own: the audience is this issuer's own URL, https or plain http on
 * a loopback host and nowhere else, whatever the library's process-wide `allowInsecureUrls` says;
 * every refusal is 400 `invalid_proof` with its reason. The signer check is a plain Ed25519 check
 * of one holder key here (the chain's DID keys are the e2e tests' part).
 */

const NOW = 1_800_000_000_000;
const NONCE = 'c-nonce-0123456789';
const LOOPBACK = 'http://127.0.0.1:8083';

const holder = keyPairFromSeed(generateSeed());
const stranger = keyPairFromSeed(generateSeed());

async function proof(o: { aud?: unknown; nonce?: string; iat?: number | null; typ?: string; exp?: number; key?: typeof holder; kid?: string } = {}): Promise<string> {
  const key = o.key ?? holder;
  const payload: Record<string, unknown> = { aud: o.aud ?? LOOPBACK, nonce: o.nonce ?? NONCE };
  if (o.iat !== null) payload.iat = o.iat ?? NOW / 1000;
  if (o.exp !== undefined) payload.exp = o.exp;
  const header = { alg: 'EdDSA', typ: o.typ ?? PROOF_JWT_TYP, jwk: ed25519Jwk(key.publicKey), ...(o.kid ? { kid: o.kid } : {}) };
  const signing = await importJWK({ ...ed25519Jwk(key.publicKey), d: Buffer.from(key.seed).toString('base64url') }, 'EdDSA');
  return new SignJWT(payload).setProtectedHeader(header).sign(signing);
}

/** The holder's key only: a jwk that is not the holder's is refused as the KYC plugin refuses it. */
const holderOnly: VerifyJwtCallback = async (signer, jwt) => {
  if (signer.method !== 'jwk' || signer.publicJwk.x !== ed25519Jwk(holder.publicKey).x) throw new ProofKeyRefused("the proof's jwk is not the holder's key");
  await compactVerify(jwt.compact, await importJWK(ed25519Jwk(holder.publicKey), 'EdDSA'));
  return { verified: true, signerJwk: ed25519Jwk(holder.publicKey) };
};

const check = (jwt: string, o: Partial<ProofJwtCheck> = {}): ProofJwtCheck => ({ jwt, issuerUrl: LOOPBACK, expectedNonce: NONCE, nonceExpiresAt: NOW + 60_000, now: NOW, verifyJwt: holderOnly, ...o });

/** The OAuth answer a refused proof gets: status and body. */
async function refusal(c: ProofJwtCheck): Promise<{ status: number; body: Record<string, unknown> }> {
  try {
    await verifyProofJwt(c);
  } catch (err) {
    const e = err as { status?: number; errorResponse?: Record<string, unknown> };
    if (!e.errorResponse) throw err;
    return { status: e.status!, body: e.errorResponse };
  }
  throw new Error('the proof was accepted');
}

t.test('https, and plain http on loopback, take proofs; the library switch stays off', async (t) => {
  t.equal(getGlobalConfig().allowInsecureUrls, false, 'this process runs with the library switch off');
  for (const url of [LOOPBACK, 'http://localhost:8083', 'http://[::1]:8083', 'http://127.3.4.5', 'https://kyc.example.com']) {
    t.equal(issuerUrlRefusal(url), undefined, url);
    await t.resolves(verifyProofJwt(check(await proof({ aud: url }), { issuerUrl: url })), `a proof for ${url} verifies`);
  }
  t.equal(getGlobalConfig().allowInsecureUrls, false, 'and still is');
  await t.resolves(verifyProofJwt(check(await proof({ aud: ['https://other.example', LOOPBACK] }))), 'aud may be a list that names this issuer');
});

t.test('plain http on a host that is not loopback takes no proofs, whatever the library switch', async (t) => {
  const urls = ['http://kyc.example.com:8083', 'http://10.0.0.5:8083', 'http://127.0.0.1.example.com', 'http://localhost.example.com'];
  for (const url of urls) t.match(issuerUrlRefusal(url), /takes no proofs: a proof's aud must be an https URL, or plain http on localhost, 127\.0\.0\.0\/8 or ::1/, url);
  const jwt = await proof({ aud: urls[0] });
  const before = getGlobalConfig();
  t.teardown(() => setGlobalConfig(before));
  for (const allowInsecureUrls of [false, true]) {
    setGlobalConfig({ ...before, allowInsecureUrls });
    t.match(await refusal(check(jwt, { issuerUrl: urls[0] })), { status: 400, body: { error: 'invalid_proof', error_description: /^this issuer \(http:\/\/kyc\.example\.com:8083\) takes no proofs/ } }, `switch ${allowInsecureUrls ? 'on' : 'off'}`);
  }
});

t.test('each refusal names its reason', async (t) => {
  const cases: Array<[string, Promise<ProofJwtCheck> | ProofJwtCheck, RegExp]> = [
    ['another audience', proof({ aud: 'https://other.example' }).then((j) => check(j)), /^the proof's aud must be this issuer, http:\/\/127\.0\.0\.1:8083, not https:\/\/other\.example$/],
    ['an http aud for an https issuer', proof({ aud: LOOPBACK }).then((j) => check(j, { issuerUrl: 'https://kyc.example.com' })), /aud must be this issuer, https:\/\/kyc\.example\.com, not http:\/\/127\.0\.0\.1:8083/],
    ['no aud', proof({ aud: [] }).then((j) => check(j)), /^the proof's aud must be this issuer, http:\/\/127\.0\.0\.1:8083$/],
    ['a stale nonce', proof({ nonce: 'an-older-nonce' }).then((j) => check(j)), /^the proof's nonce is not the current c_nonce$/],
    ['an expired c_nonce', proof().then((j) => check(j, { nonceExpiresAt: NOW - 1 })), /c_nonce expired/],
    ['another typ', proof({ typ: 'JWT' }).then((j) => check(j)), /^the proof's typ must be openid4vci-proof\+jwt$/],
    ['no iat', proof({ iat: null }).then((j) => check(j)), /^the proof has no 'iat'$/],
    ['kid and jwk', proof({ kid: 'did:ledger:testnet:abc#key-1' }).then((j) => check(j)), /'kid' or by 'jwk', not both/],
    ['an exp in the past', proof({ exp: NOW / 1000 - 10 }).then((j) => check(j)), /'exp' is in the past/],
    ['a foreign key', proof({ key: stranger }).then((j) => check(j)), /^the proof's jwk is not the holder's key$/],
    ['not a JWT', check('not-a-jwt'), /^the proof is not a compact JWT/],
    ['a malformed payload', proof({ iat: 'yesterday' as unknown as number }).then((j) => check(j)), /^the proof's payload is malformed: iat: /],
  ];
  for (const [what, c, reason] of cases) {
    t.match(await refusal(await c), { status: 400, body: { error: 'invalid_proof', error_description: reason } }, what);
  }
});

t.test('a failure of the signer check itself is not the holder’s fault', async (t) => {
  const broken = new Error('the chain store is closed');
  const failing: VerifyJwtCallback = async () => {
    throw broken;
  };
  await t.rejects(verifyProofJwt(check(await proof(), { verifyJwt: failing })), broken, 'the error itself, not a 400');
});
