import t from 'tap';
import { getGlobalConfig } from '@openid4vc/openid4vci';
import {
  didForPublicKey,
  generateSeed,
  keyPairFromSeed,
  onChainHashMatches,
  RevocationList,
  RpcClient,
  verifyCredentialProof,
  type Credential,
} from '../../node/client/index.js';
import { serviceKeyPath } from '../../node/config/datadir.js';
import { readServiceKeyPublic } from '../../node/config/service-key-file.js';
import { startTestNode } from '../fixtures/real-node.js';
import { refusedBy, startOutsideWallet } from './kyc/wallet.js';
import { fundedSubject, IssuancePlugin, passedSession } from '../plugins/kyc/issuance/harness.js';

/**
 * Credentials on chain and their OpenID4VCI redemption, on a real single-validator node: the
 * issuer DID is created from the service key `ledger init` funded at genesis, a passed session's
 * KYCCredential is requested, attested by the validator's VRF attester and registered, verifies
 * over JSON-RPC and as a W3C document, is redeemed by the @openid4vc client in a process of its
 * own while this process (the issuer's) keeps the library's plain-http switch off (with and
 * without a PIN, with no proof, with the subject's proof; a foreign key's proof is refused with
 * its reason), is revoked over the API, and a job cut off between storing and submitting its
 * request resumes after a restart of the issuer with the very same transaction.
 */

t.test('issuer DID, credential on chain, OpenID4VCI redemption, revocation and a resumed job', async (t) => {
  const plugin = new IssuancePlugin();
  const node = await startTestNode(t, { plugins: [plugin] });
  const rpc = new RpcClient(node.url);
  const kycUrl = plugin.base.publicUrl();

  const serviceKey = await readServiceKeyPublic(serviceKeyPath(node.dir, 'kyc'));
  t.equal(plugin.key.origin, 'service-key', 'the issuer adopted the genesis-funded service key');
  t.equal(plugin.key.address, serviceKey.address);
  const deadline = Date.now() + 30_000;
  while (!(await plugin.did.status()).didActive) {
    if (Date.now() > deadline) throw new Error(`the issuer DID was not created: ${JSON.stringify(await plugin.did.status())}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  t.match(await plugin.did.status(), { did: plugin.key.did, address: serviceKey.address, didActive: true, funded: true, pendingJobs: 0 });
  t.match(await rpc.call('ledger_didResolve', [plugin.key.did]), { id: plugin.key.did }, 'the issuer DID resolves over JSON-RPC');

  // the subject: a funded account with its own DID
  const { seed: subjectSeed, key: subject, did: subjectDid } = await fundedSubject(node, rpc);

  await t.test('a passed session gets a registered, verifiable KYCCredential', async (t) => {
    const session = passedSession('ver_one', 'org_A', subjectDid);
    plugin.sessions.set(session.id, session);
    await plugin.issuance.requestCredential(session);
    await plugin.issuance.requestCredential(session);
    await plugin.issuedCount(1);
    t.equal(plugin.issued.length, 1, 'requesting twice makes one credential');
    const issued = plugin.issued[0]!.credential;
    t.match(issued, { type: ['VerifiableCredential', 'KYCCredential'], issuer: plugin.key.did, subjectDid, credentialOfferUri: new RegExp(`^${kycUrl}/v1/oid4vci/offers/ofr_`) });
    t.match(await rpc.credentialVerify(issued.credentialId), { valid: true, revoked: false, credential: { id: issued.credentialId, issuer_did: plugin.key.did, subject_did: subjectDid, kyc_level: 2, status: 'registered' } });
    const receipt = await rpc.getReceipt(issued.txHash);
    t.equal(receipt?.status, 'success', 'txHash is the request transaction');

    const stored = (await plugin.issuance.credentialOfSession(session.id))!;
    const vc = stored.credential;
    t.same(await verifyCredentialProof(vc, plugin.key.publicKey), { ok: true }, 'the W3C credential verifies with the issuer key');
    t.ok(await onChainHashMatches(vc), 'onChainHash is the hash registered on chain');
    t.match(vc.credentialSubject, { id: subjectDid, kycLevel: 2, verifiedAttributes: ['governmentId', 'liveness'], jurisdiction: 'DE' });
    t.ok(vc.ledgerExtensions.validatorSignatures.length >= 1, 'it carries the validators’ attestations');
    t.equal(vc.credentialStatus.revocationListCredential, `${kycUrl}/v1/revocation-lists/0`);
    const list = (await (await fetch(vc.credentialStatus.revocationListCredential)).json()) as { credentialSubject: { encodedList: string } };
    t.notOk(RevocationList.fromEncodedList(list.credentialSubject.encodedList).isRevoked(Number(vc.credentialStatus.revocationListIndex)));
    t.equal((await fetch(`${kycUrl}/v1/revocation-lists/7`)).status, 404, 'a list with no allocated position is 404');
  });

  await t.test('OpenID4VCI: a wallet in its own process redeems the offer', async (t) => {
    t.equal(getGlobalConfig().allowInsecureUrls, false, "the issuer's process has the library's plain-http switch off");
    const session = plugin.sessions.get('ver_one')!;
    const wallet = await startOutsideWallet(t);
    const link = (await plugin.offers.ofSession(session.id))!.deepLink;
    t.match(link, /^openid-credential-offer:\/\/\?credential_offer_uri=/);
    t.equal((await wallet.resolve(link)).credentialIssuer, kycUrl);
    const token = await wallet.token();
    t.ok(token.c_nonce, 'the token response carries a c_nonce');
    const stored = (await plugin.issuance.credentialOfSession(session.id))!;

    const noProof = await wallet.credential();
    t.same(noProof.credential, stored.credential, 'a request without proof gets the stored credential');

    t.match(await refusedBy(wallet.token()), { status: 400, body: { error: 'invalid_grant', error_description: /already used/ } }, 'the code is single-use');

    const nonce = noProof.c_nonce!;
    const stranger = generateSeed();
    const refused = (what: string, proof: Parameters<typeof wallet.credential>[0], description: string) =>
      refusedBy(wallet.credential(proof)).then((e) => t.match(e, { status: 400, body: { error: 'invalid_proof', error_description: description } }, what));
    await refused('a proof by a foreign key', { seed: stranger, nonce }, `the proof's jwk is not a key of the credential's subject ${subjectDid} on chain`);
    const strangerDid = didForPublicKey(node.dev.network, keyPairFromSeed(stranger).publicKey);
    await refused('a proof naming another DID', { seed: stranger, didUrl: `${strangerDid}#key-1`, nonce }, `the proof is signed by ${strangerDid}, not by the credential's subject ${subjectDid}`);
    await refused('a proof without the current c_nonce', { seed: subjectSeed, didUrl: `${subjectDid}#key-1`, nonce: 'not-the-c-nonce' }, "the proof's nonce is not the current c_nonce");

    const nonceAnswer = await fetch(`${kycUrl}/v1/oid4vci/credential`, { method: 'POST', headers: { authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json' }, body: JSON.stringify({ format: 'ldp_vc', credential_definition: { '@context': stored.credential['@context'], type: stored.credential.type } }) });
    const fresh = ((await nonceAnswer.json()) as { c_nonce: string }).c_nonce;
    const withProof = await wallet.credential({ seed: subjectSeed, didUrl: `${subjectDid}#key-1`, nonce: fresh });
    t.same(withProof.credential, stored.credential, "a proof by the subject DID's key is accepted");

    const bad = await fetch(`${kycUrl}/v1/oid4vci/credential`, { method: 'POST', headers: { authorization: 'Bearer nope-nope-nope-nope-nope', 'content-type': 'application/json' }, body: '{}' });
    t.equal(bad.status, 401);
    t.match(await bad.json(), { error: 'invalid_token' });
  });

  await t.test('OpenID4VCI with a tx_code (PIN)', async (t) => {
    plugin.base.config.oid4vci.txCode = true;
    t.teardown(() => {
      plugin.base.config.oid4vci.txCode = false;
    });
    const session = passedSession('ver_pin', 'org_A', subjectDid, 1);
    plugin.sessions.set(session.id, session);
    await plugin.issuance.requestCredential(session);
    await plugin.issuedCount(2);
    const { offer: stored, deepLink } = (await plugin.offers.ofSession(session.id))!;
    t.match(stored.txCode, /^\d{6}$/);
    const wallet = await startOutsideWallet(t);
    const { offer } = await wallet.resolve(deepLink);
    t.match(offer.grants?.['urn:ietf:params:oauth:grant-type:pre-authorized_code'], { tx_code: { input_mode: 'numeric', length: 6 } });
    t.match(await refusedBy(wallet.token()), { message: /tx_code/ }, 'no PIN, no token');
    const wrong = stored.txCode === '000000' ? '111111' : '000000';
    t.match(await refusedBy(wallet.token(wrong)), { status: 400, body: { error: 'invalid_grant', error_description: /Invalid 'tx_code'/ } }, 'a wrong PIN is refused');
    await wallet.token(stored.txCode!);
    const got = await wallet.credential();
    t.match(got.credential as Credential, { credentialSubject: { id: subjectDid, kycLevel: 1, verifiedAttributes: ['governmentId'] } });
  });

  await t.test('revocation over the API', async (t) => {
    const session = plugin.sessions.get('ver_one')!;
    const post = (id: string, key: string, body: unknown) =>
      fetch(`${kycUrl}/v1/verifications/${id}/revoke`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    t.equal((await post(session.id, 'key-B', { reason: 'fraud' })).status, 404, "another organization's session is not found");
    plugin.sessions.set('ver_none', { ...passedSession('ver_none', 'org_A', subjectDid), status: 'failed' });
    t.equal((await post('ver_none', 'key-A', { reason: 'fraud' })).status, 409, 'a session without a credential');
    t.equal((await post(session.id, 'key-A', {})).status, 400, 'the reason is required');
    const res = await post(session.id, 'key-A', { reason: 'document reported stolen' });
    t.equal(res.status, 200);
    const body = (await res.json()) as { credentialId: string; revoked: boolean; txHash: string };
    t.match(body, { credentialId: session.credentialId, revoked: true, txHash: /^[0-9a-f]{64}$/ });
    t.match(await rpc.credentialVerify(session.credentialId!), { valid: false, revoked: true });
    t.match(plugin.events.at(-1), { organizationId: 'org_A', type: 'credential.revoked', data: { credentialId: session.credentialId, subjectDid, revokedBy: plugin.key.did, reason: 'document reported stolen', txHash: body.txHash } });
    const again = await post(session.id, 'key-A', { reason: 'again' });
    t.equal(again.status, 409, 'already revoked');
    const vc = (await plugin.issuance.credentialOfSession(session.id))!.credential;
    const list = (await (await fetch(vc.credentialStatus.revocationListCredential)).json()) as { credentialSubject: { encodedList: string } };
    t.ok(RevocationList.fromEncodedList(list.credentialSubject.encodedList).isRevoked(Number(vc.credentialStatus.revocationListIndex)), 'the served list has the bit');
  });

  await t.test('a job cut off before its request reached the mempool resumes after a restart', async (t) => {
    plugin.dropSubmissions = true;
    const session = passedSession('ver_restart', 'org_A', subjectDid, 3);
    plugin.sessions.set(session.id, session);
    await plugin.issuance.requestCredential(session);
    const until = Date.now() + 20_000;
    let job = await plugin.issuance.store.get(session.id);
    while (job?.state !== 'submitted') {
      if (Date.now() > until) throw new Error(`the job did not reach submitted: ${JSON.stringify(job?.state)}`);
      await new Promise((r) => setTimeout(r, 50));
      job = await plugin.issuance.store.get(session.id);
    }
    await plugin.stopIssuance();
    t.equal(plugin.dropped.length, 1, 'the request never reached the mempool');
    t.equal(await rpc.getReceipt(job.prepared!.txHash), null);
    plugin.dropSubmissions = false;
    await plugin.startIssuance();
    await plugin.issuedCount(3);
    const issued = plugin.issued.at(-1)!.credential;
    t.equal(issued.txHash, job.prepared!.txHash, 'the stored transaction itself was submitted again');
    t.equal(issued.credentialId, job.prepared!.credentialId);
    t.match(await rpc.credentialVerify(issued.credentialId), { valid: true, credential: { kyc_level: 3 } });
    // the job is marked done just after the report (a crash between the two repeats the report):
    // stopping waits for the worker's pass, so the count is read after it
    await plugin.stopIssuance();
    t.equal((await plugin.did.status()).pendingJobs, 0);
  });
});
