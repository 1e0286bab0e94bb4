import t from 'tap';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyCredentialProof } from '../../node/client/index.js';
import { ed25519PublicKeyFromMultibase } from '../../node/crypto/multibase.js';
import { KycClient } from '../../bench/lib/kyc/client.js';
import { testJpeg } from '../../bench/lib/kyc/images.js';
import { WebhookReceiver } from '../../bench/lib/kyc/receiver.js';
import { chromiumMissing, launchChromium } from './browser.js';
import { startKycNode, subjectOnChain } from './kyc/setup.js';
import { startOutsideWallet } from './kyc/wallet.js';
import { contrastProblems } from './contrast.js';
import { agree, PHONE, shot, testLogo } from '../plugins/kyc/hosted/page-helpers.js';

/**
 * The "done": on a real node, a sandbox session created with the API key is completed
 * through the hosted page in headless Chromium with a fake camera (the consent notice, with the
 * organization's logo and colour set through PATCH /v1/organization; document photo, liveness
 * frames; a photo too small to read is first refused, in words for people), which then shows the
 * credential offer as a QR code and returns to redirectUrl. The organization gets signed webhooks; the credential is valid through JSON-RPC; a wallet redeems
 * it with the OpenID4VCI library's client in its own process, with a proof signed by the
 * subject's key, and it verifies under the issuer's key.
 */

t.test('a sandbox session completed through the hosted page in a real browser', { skip: chromiumMissing() }, async (t) => {
  const n = await startKycNode(t);
  const receiver = new WebhookReceiver();
  const hookUrl = await receiver.start();
  t.teardown(() => receiver.close());
  const back = createServer((req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><link rel="icon" href="data:,"><title>back</title><h1>${req.url}</h1>`));
  await new Promise<void>((r) => back.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => back.close(() => r())));
  const redirectUrl = `http://127.0.0.1:${(back.address() as AddressInfo).port}/done?ref=42`;

  const api = new KycClient(n.kyc);
  await api.register('web@example.org', 'a long enough passphrase', 'Web Owner');
  await api.createKey('sandbox');
  receiver.secret = (await api.addWebhook(hookUrl)).secret;
  await api.call('PATCH', '/v1/organization', { body: { branding: { color: '#6B1FA8', logo: testLogo() } }, auth: 'jwt' });
  const subject = await subjectOnChain(n, 0);
  const { session, sessionUrl } = await api.createSession({ level: 2, sandbox: true, sandboxOutcome: 'pass', subjectDid: subject.did, redirectUrl });

  const browser = await launchChromium(t);
  const context = await browser.newContext(PHONE);
  await context.grantPermissions(['camera'], { origin: n.kyc });
  const page = await context.newPage();
  await page.goto(sessionUrl);
  await page.getByRole('heading', { level: 2, name: 'Before you start' }).waitFor();
  t.equal(await page.locator('#org-name').textContent(), "Web Owner's organization");
  t.match(await page.locator('#consent-intro').textContent(), /^Web Owner's organization asks you to verify your identity\./);
  await page.getByRole('img', { name: "Web Owner's organization logo" }).waitFor();
  t.equal(await page.evaluate("getComputedStyle(document.querySelector('#consent-agree')).backgroundColor"), 'rgb(107, 31, 168)', 'the organization\'s colour');
  t.same(await contrastProblems(page), [], 'with AA contrast');
  await shot(page, 'e2e-consent');
  await agree(page);
  await page.getByRole('heading', { level: 2, name: 'Photograph your identity document' }).waitFor();
  await page.getByLabel('Passport').check();

  // the server refuses a photo too small to read (IMAGE_TOO_SMALL): the page says so in words for people
  await page.getByLabel(/Or choose a photo/).setInputFiles({ name: 'tiny.jpg', mimeType: 'image/jpeg', buffer: testJpeg(120, 90, 9) });
  await page.getByRole('button', { name: 'Upload photo' }).click();
  const refused = page.getByRole('alert').filter({ hasText: 'This photo is too small to read. Move closer so that the document fills the picture, or choose a larger photo.' });
  await refused.waitFor();
  t.notMatch(await refused.textContent(), /120x90|file:|pixels/, 'not the server\'s text');
  t.equal((await api.getSession(session.id)).session.documents.length, 0, 'nothing was stored');

  await page.getByRole('button', { name: 'Retake' }).click();
  await page.getByRole('button', { name: 'Take photo' }).click();
  await page.getByRole('img', { name: 'Your photo of the front of the document' }).waitFor();
  await shot(page, 'e2e-document');
  await page.getByRole('button', { name: 'Upload photo' }).click();
  await page.getByRole('heading', { level: 2, name: 'Liveness check' }).waitFor();
  await page.getByRole('button', { name: 'Start the check' }).click();
  await page.getByRole('heading', { level: 2, name: 'Verification complete' }).waitFor({ timeout: 60_000 });
  const qr = page.getByRole('img', { name: 'QR code of your credential offer' });
  await qr.waitFor();
  await shot(page, 'e2e-complete');
  const offerLink = await page.getByRole('link', { name: 'Open in your wallet' }).getAttribute('href');
  t.match(offerLink, /^openid-credential-offer:\/\/\?credential_offer_uri=/);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForURL(redirectUrl);

  const full = (await api.getSession(session.id)).session;
  t.match(full, { status: 'completed', credentialId: /^urn:ledger:credential:/, documents: [{ type: 'passport', status: 'verified' }], liveness: { status: 'passed' } });
  const completed = await receiver.waitFor((e) => e.type === 'verification.completed' && e.data.verificationId === session.id);
  const issued = await receiver.waitFor((e) => e.type === 'credential.issued' && e.data.credentialId === full.credentialId);
  t.equal(completed.data.credentialId, full.credentialId);
  t.match(await n.rpc.credentialVerify(full.credentialId), { valid: true, revoked: false, credential: { subject_did: subject.did, kyc_level: 2 } });

  const wallet = await startOutsideWallet(t);
  await wallet.resolve(offerLink!);
  const { c_nonce: nonce } = await wallet.token();
  const got = await wallet.credential({ seed: subject.seed, didUrl: `${subject.did}#key-1`, nonce: nonce! });
  const credential = got.credential as { id: string; issuer: { id: string }; credentialSubject: { id: string } };
  t.equal(credential.id, full.credentialId);
  t.equal(credential.credentialSubject.id, subject.did);
  t.equal(credential.issuer.id, issued.data.issuer);
  const issuerDoc = (await n.rpc.didResolve(credential.issuer.id))!;
  const issuerKey = ed25519PublicKeyFromMultibase(issuerDoc.verificationMethod[0]!.publicKeyMultibase);
  t.same(await verifyCredentialProof(credential, issuerKey), { ok: true }, 'the W3C credential verifies under the issuer DID\'s key on chain');
  t.equal(receiver.rejected, 0, 'every webhook verified');
});
