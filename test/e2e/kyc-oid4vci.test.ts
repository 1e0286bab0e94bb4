import t from 'tap';
import { didForPublicKey, generateSeed, keyPairFromSeed, verifyCredentialProof, type Credential } from '../../node/client/index.js';
import { ed25519PublicKeyFromMultibase } from '../../node/crypto/multibase.js';
import { KycClient } from '../../bench/lib/kyc/client.js';
import { testJpeg } from '../../bench/lib/kyc/images.js';
import { startKycNode, subjectOnChain } from './kyc/setup.js';
import { refusedBy, startOutsideWallet } from './kyc/wallet.js';

/**
 * The "done": an OpenID4VCI wallet in its own process (the library's client, with its own
 * copy of the library) redeems a KYC offer from a node started as `npm start` starts it, its KYC
 * plugin on plain http at 127.0.0.1, with a proof signed by the subject's key. Proofs by a key
 * that is not the subject's are refused with 400 `invalid_proof` and a description that says so.
 */

t.test('an outside wallet redeems a KYC offer over http with a proof', async (t) => {
  const n = await startKycNode(t);
  t.match(n.kyc, /^http:\/\/127\.0\.0\.1:\d+$/, 'the issuer is plain http on loopback');
  const api = new KycClient(n.kyc);
  await api.register('wallet@example.org', 'a long enough passphrase', 'Wallet Owner');
  await api.createKey('sandbox');
  const subject = await subjectOnChain(n, 0);
  const { session } = await api.createSession({ level: 2, sandbox: true, sandboxOutcome: 'pass', subjectDid: subject.did });
  await api.uploadDocument(session.id, testJpeg(800, 500, 1), { type: 'passport', side: 'front', final: true });
  await api.livenessChallenge(session.id);
  await api.liveness(session.id, [testJpeg(320, 240, 2), testJpeg(320, 240, 3), testJpeg(320, 240, 4)]);
  const end = Date.now() + 60_000;
  let full = (await api.getSession(session.id)).session;
  while (!full.credentialOfferUri) {
    if (Date.now() > end) throw new Error(`no credential offer: ${JSON.stringify(full)}`);
    await new Promise((r) => setTimeout(r, 200));
    full = (await api.getSession(session.id)).session;
  }
  const link = `openid-credential-offer://?credential_offer_uri=${encodeURIComponent(full.credentialOfferUri)}`;

  const wallet = await startOutsideWallet(t);
  const { credentialIssuer } = await wallet.resolve(link);
  t.equal(credentialIssuer, n.kyc);
  const token = await wallet.token();
  t.ok(token.c_nonce, 'the token answer carries a c_nonce');

  const stranger = generateSeed();
  const foreignKey = await refusedBy(wallet.credential({ seed: stranger, nonce: token.c_nonce! }));
  t.match(foreignKey, { status: 400, body: { error: 'invalid_proof', error_description: `the proof's jwk is not a key of the credential's subject ${subject.did} on chain` } }, 'a key that is not the subject DID’s is refused, and the answer says so');
  const strangerDid = didForPublicKey('testnet', keyPairFromSeed(stranger).publicKey);
  const foreignDid = await refusedBy(wallet.credential({ seed: stranger, didUrl: `${strangerDid}#key-1`, nonce: token.c_nonce! }));
  t.match(foreignDid, { status: 400, body: { error: 'invalid_proof', error_description: `the proof is signed by ${strangerDid}, not by the credential's subject ${subject.did}` } });
  const forged = await refusedBy(wallet.credential({ seed: stranger, didUrl: `${subject.did}#key-1`, nonce: token.c_nonce! }));
  t.match(forged, { status: 400, body: { error: 'invalid_proof', error_description: `the proof's signature does not verify with ${subject.did}#key-1` } }, "another key claiming the subject's kid");
  for (const refused of [foreignKey, foreignDid, forged]) t.notMatch(refused.body?.error_description, /https|Invalid proof/, 'no complaint about the URL scheme');

  const got = await wallet.credential({ seed: subject.seed, didUrl: `${subject.did}#key-1`, nonce: token.c_nonce! });
  const credential = got.credential as Credential;
  t.match(credential, { id: full.credentialId, credentialSubject: { id: subject.did, kycLevel: 2 } }, "the subject's proof gets the credential");
  const issuerDoc = (await n.rpc.didResolve(credential.issuer.id))!;
  t.same(await verifyCredentialProof(credential, ed25519PublicKeyFromMultibase(issuerDoc.verificationMethod[0]!.publicKeyMultibase)), { ok: true }, "it verifies under the issuer DID's key on chain");
});
