import t from 'tap';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { importJWK, SignJWT } from 'jose';
import { buildDidDeactivate, generateSeed, RpcClient, signAndEncode, waitForReceipt } from '../../../../node/client/index.js';
import { sign } from '../../../../node/crypto/ed25519.js';
import { toHex } from '../../../../node/protocol/bytes.js';
import { KYC_BBS_HEADER, kycBbsIndex } from '../../../../node/protocol/kyc-bbs.js';
import { HttpProblem } from '../../../../plugins/common/http/problems.js';
import { serviceKeyOf } from '../../../fixtures/real-node.js';
import { ERRORS_BASE } from '../harness.js';
import { startKycWallet, type Holder, type KycWallet } from './kyc-wallet.js';

/**
 * A KYC credential redeemed through the wallet from the real KYC plugin on a real node (its
 * offers ask for a PIN here): the wallet runs the OpenID4VCI pre-authorized code flow with the
 * library's client, the proof is signed by the holder's key in the test as a phone would, and the
 * cached credential's status follows the chain and the issuer's revocation list when the KYC
 * API revokes it.
 */

const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url');
const decode = (part: string): Record<string, unknown> => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;

/** the phone's part: sign the signing input with the holder's key */
const proofSignature = (h: Holder, signingInput: string): string => b64(sign(h.seed, Buffer.from(signingInput, 'ascii')));

async function redeem(k: KycWallet, h: Holder, offer: string, txCode?: string) {
  const first = await k.req('POST', '/v1/oid4vci/redeem', { cookie: h.cookie, body: { credentialOffer: offer, ...(txCode !== undefined ? { txCode } : {}) } });
  if (first.status !== 200) throw new Error(`redeem: HTTP ${first.status} ${first.text}`);
  return first.body as { redeemId: string; signingInput: string; proofJwtHeader: Record<string, unknown>; proofJwtPayload: Record<string, unknown>; kid: string };
}

t.test('redeem with the holder proof, list, revoke; PIN, replay and proof failures', async (t) => {
  const k = await startKycWallet(t, { oid4vci: { txCode: true } });
  const rpc = new RpcClient(k.node.url);
  const alice = await k.holder();

  await t.test('a new user has no credentials: []', async (t) => {
    const list = await k.req('GET', '/v1/credentials', { cookie: alice.cookie });
    t.equal(list.status, 200);
    t.same(list.body, []);
    t.same((await k.req('GET', '/v1/credentials')).body, { error: 'Unauthorized' }, 'a session is required');
  });

  const { sessionId, offer, txCode } = await k.verified(alice.user.did);
  t.match(offer, /^openid-credential-offer:\/\/\?credential_offer_uri=/);
  t.match(txCode, /^\d{6}$/, 'the issuer asks for a PIN');

  await t.test('the PIN: missing is 400, wrong is 400 and does not spend the offer', async (t) => {
    const none = await k.req('POST', '/v1/oid4vci/redeem', { cookie: alice.cookie, body: { credentialOffer: offer } });
    t.equal(none.status, 400);
    t.match(none.body, { type: `${ERRORS_BASE}/400`, code: 'TX_CODE_REQUIRED', field: 'txCode', detail: /6 digits/ });
    const wrong = await k.req('POST', '/v1/oid4vci/redeem', { cookie: alice.cookie, body: { credentialOffer: offer, txCode: txCode === '000000' ? '111111' : '000000' } });
    t.equal(wrong.status, 400);
    t.match(wrong.body, { code: 'TX_CODE_INVALID', detail: /refused the PIN.*tx_code/ });
  });

  let credentialId = '';
  await t.test('two calls: the proof to sign, then the credential', async (t) => {
    const first = await k.req('POST', '/v1/oid4vci/redeem', { cookie: alice.cookie, body: { credentialOffer: offer, txCode } });
    t.equal(first.status, 200, first.status === 200 ? 'a proof to sign' : first.text);
    const p = first.body;
    t.match(p, { status: 'proof_required', redeemId: /^rdm_[0-9a-f]{32}$/, alg: 'EdDSA', kid: `${alice.user.did}#key-1`, expiresAt: /Z$/ });
    t.same(p.proofJwtHeader, { alg: 'EdDSA', kid: `${alice.user.did}#key-1`, typ: 'openid4vci-proof+jwt' });
    t.match(p.proofJwtPayload, { aud: k.kycUrl, nonce: /^[\w-]{10,}$/, iat: Number });
    const [h, pl] = (p.signingInput as string).split('.');
    t.same([decode(h!), decode(pl!)], [p.proofJwtHeader, p.proofJwtPayload], 'signingInput is base64url(header).base64url(payload)');

    const stranger = generateSeed();
    const forged = await k.req('POST', '/v1/oid4vci/redeem', { cookie: alice.cookie, body: { redeemId: p.redeemId, proofSignature: b64(sign(stranger, Buffer.from(p.signingInput, 'ascii'))) } });
    t.equal(forged.status, 403, "another key's signature is refused here");
    t.match(forged.body, { code: 'BAD_PROOF_SIGNATURE' });
    const bob = await k.holder({ onChain: false });
    const foreign = await k.req('POST', '/v1/oid4vci/redeem', { cookie: bob.cookie, body: { redeemId: p.redeemId, proofSignature: proofSignature(alice, p.signingInput) } });
    t.equal(foreign.status, 404, "another user's redeem is not found");

    const done = await k.req('POST', '/v1/oid4vci/redeem', { cookie: alice.cookie, body: { redeemId: p.redeemId, proofSignature: proofSignature(alice, p.signingInput) } });
    t.equal(done.status, 201, done.status === 201 ? 'created' : done.text);
    const record = done.body;
    const session = (await k.api.getSession(sessionId)).session;
    credentialId = session.credentialId;
    t.match(record, {
      id: credentialId,
      userId: alice.user.id,
      format: 'ldp_vc',
      issuer: /^did:ledger:/,
      types: ['VerifiableCredential', 'KYCCredential'],
      subjectDid: alice.user.did,
      issuanceDate: /Z$/,
      expirationDate: /Z$/,
      offerIssuer: k.kycUrl,
      status: { valid: true, revoked: false, issuerActive: true, registered: true, expired: false, source: 'chain' },
      credential: { id: credentialId, credentialSubject: { id: alice.user.did, kycLevel: 2 }, proof: { type: 'Ed25519Signature2020' } },
    });
    t.match(await rpc.credentialVerify(credentialId), { valid: true, credential: { issuer_did: record.issuer } });
    const registered = ((await rpc.credentialVerify(credentialId)) as unknown as { credential: Record<string, unknown> }).credential;
    t.match(record.bbs, { publicKey: registered['bbs_public_key'], header: toHex(KYC_BBS_HEADER), messageCount: registered['bbs_message_count'], signature: /^[0-9a-f]+$/ }, 'the BBS form is kept with the credential, under the key the chain registered');
    t.equal(record.bbs.messages[kycBbsIndex('id')], `id=${credentialId}`);
    t.equal(record.bbs.messages[kycBbsIndex('subject')], `subject=${alice.user.did}`);
    t.match(record.bbs.messages[kycBbsIndex('birthDate')], /^birthDate=/, 'with the date of birth: for its holder only');
    t.notOk('bbsRefused' in record);
    t.equal(done.headers.get('cache-control'), 'no-store', 'personal data stays out of caches');

    const again = await k.req('POST', '/v1/oid4vci/redeem', { cookie: alice.cookie, body: { redeemId: p.redeemId, proofSignature: proofSignature(alice, p.signingInput) } });
    t.equal(again.status, 404, 'a completed redeem is gone');
    const twice = await k.req('POST', '/v1/oid4vci/redeem', { cookie: alice.cookie, body: { credentialOffer: offer, txCode } });
    t.equal(twice.status, 409);
    t.match(twice.body, { type: `${ERRORS_BASE}/409`, code: 'OFFER_ALREADY_REDEEMED' });
  });

  await t.test('the list: the chain and the issuer revocation list; revoked through the KYC API', async (t) => {
    const list = await k.req('GET', '/v1/credentials', { cookie: alice.cookie });
    t.equal(list.status, 200);
    t.equal(list.body.length, 1);
    t.equal(list.headers.get('cache-control'), 'no-store');
    t.same(list.body[0].bbs, (await k.wallet.store.get(alice.user.id, credentialId))!.bbs, 'the BBS form is served to its holder');
    t.match(list.body[0].bbs, { messages: Array, signature: /^[0-9a-f]+$/ });
    t.match(list.body[0], {
      id: credentialId,
      status: { valid: true, revoked: false, issuerActive: true },
      kycStatus: { reachable: true, via: 'status-list', url: `${k.kycUrl}/v1/revocation-lists/0`, revoked: false },
    });

    const revoked = await k.api.call('POST', `/v1/verifications/${sessionId}/revoke`, { body: { reason: 'document reported stolen' }, auth: 'key' });
    t.match(revoked, { credentialId, revoked: true });
    const after = await k.req('GET', '/v1/credentials', { cookie: alice.cookie });
    t.match(after.body, [{ id: credentialId, status: { valid: false, revoked: true, issuerActive: true }, kycStatus: { reachable: true, revoked: true } }]);
    t.match(await k.wallet.store.get(alice.user.id, credentialId), { status: { revoked: true } }, 'the refreshed status is stored');

    const carol = await k.holder({ onChain: false });
    t.same((await k.req('GET', '/v1/credentials', { cookie: carol.cookie })).body, [], "another user's list is empty");
  });

  await t.test('a credential that is not the caller\'s, or altered, is not cached', async (t) => {
    const vc = (await k.wallet.store.get(alice.user.id, credentialId))!.credential as Record<string, any>;
    const dave = await k.holder({ onChain: false });
    const caller = { userId: dave.user.id, did: dave.user.did, publicKey: dave.user.publicKey };
    const notYours = await k.wallet.redeemer.accept(caller, vc, k.kycUrl).catch((e: unknown) => e);
    t.ok(notYours instanceof HttpProblem && notYours.slug === 'forbidden' && notYours.extra.code === 'CREDENTIAL_NOT_YOURS', 'another DID: 403');
    const owner = { userId: alice.user.id, did: alice.user.did, publicKey: alice.user.publicKey };
    const altered = { ...vc, credentialSubject: { ...vc.credentialSubject, kycLevel: 3 } };
    const bad = await k.wallet.redeemer.accept(owner, altered, k.kycUrl).catch((e: unknown) => e);
    t.ok(bad instanceof HttpProblem && bad.slug === 'bad-gateway' && bad.extra.code === 'CREDENTIAL_PROOF_INVALID', `an altered credential fails its proof: ${(bad as Error).message}`);
    t.same(await k.wallet.store.list(dave.user.id), [], 'nothing was cached for the other user');
  });
});

t.test('offers: JSON text, a phone-built proof JWT, bad offers, a DID not on chain, a foreign holder', async (t) => {
  const k = await startKycWallet(t);
  const erin = await k.holder();
  const { offer } = await k.verified(erin.user.did);
  const offerUri = decodeURIComponent(offer.split('credential_offer_uri=')[1]!);

  await t.test('bad offers and bodies are 400', async (t) => {
    const post = (body: unknown) => k.req('POST', '/v1/oid4vci/redeem', { cookie: erin.cookie, body });
    const cases: Array<[unknown, RegExp | string]> = [
      [{}, /credentialOffer is required/],
      [{ credentialOffer: 'hello' }, /offer link .*, the offer URI, or the offer JSON/],
      [{ credentialOffer: 'ftp://example.com/offer' }, /exactly one credential_offer or credential_offer_uri/],
      [{ credentialOffer: 'http://example.com/offer' }, /the offer URI: .*only https/],
      [{ credentialOffer: 'openid-credential-offer://?foo=1' }, /exactly one credential_offer or credential_offer_uri/],
      [{ credentialOffer: `openid-credential-offer://?credential_offer=%7B%7D&credential_offer_uri=${encodeURIComponent(offerUri)}` }, /exactly one/],
      [{ credentialOffer: '{"credential_issuer": 5}' }, /no credential_issuer/],
      [{ credentialOffer: '{not json' }, /not JSON/],
      [{ credentialOffer: JSON.stringify({ credential_issuer: 'http://issuer.example.com', credential_configuration_ids: ['KYCCredential'] }) }, /only https URLs are/],
      [{ credentialOffer: JSON.stringify({ credential_issuer: k.kycUrl, credential_configuration_ids: ['KYCCredential'] }) }, /no pre-authorized code grant/],
      [{ credentialOffer: JSON.stringify({ credential_issuer: k.kycUrl }) }, /not valid/],
      [{ credentialOffer: `openid-credential-offer://?credential_offer_uri=${encodeURIComponent('http://example.com/offer')}` }, /credential_offer_uri: .*only https/],
      [{ credentialOffer: `openid-credential-offer://?credential_offer_uri=${encodeURIComponent(`${k.kycUrl}/v1/oid4vci/offers/ofr_nothing_here_at_all`)}` }, /does not know this offer \(HTTP 404/],
      [{ credentialOffer: offer, seed: 'abandon abandon' }, /never accepts private keys/],
      [{ credentialOffer: offer, extra: 1 }, /unknown field extra/],
      [{ credentialOffer: offer, redeemId: 'rdm_00000000000000000000000000000000' }, /unknown field credentialOffer/],
      [{ redeemId: 'rdm_00000000000000000000000000000000' }, /exactly one of proofSignature and proofJwt/],
      [{ redeemId: 'rdm_0', proofSignature: 'x'.repeat(86) }, /redeemId must be/],
      [{ redeemId: 'rdm_00000000000000000000000000000000', proofSignature: 'short' }, /base64url \(86 characters\)/],
      [{ credentialOffer: 'x'.repeat(9000) }, /at most 8192/],
    ];
    for (const [body, detail] of cases) {
      const res = await post(body);
      t.equal(res.status, 400, `${JSON.stringify(body).slice(0, 100)}: ${res.text.slice(0, 200)}`);
      t.match(res.body.detail, detail);
    }
    const unknown = await post({ redeemId: 'rdm_00000000000000000000000000000000', proofSignature: 'A'.repeat(86) });
    t.equal(unknown.status, 404, 'an unknown redeem');
  });

  await t.test('an unreachable issuer is 502', async (t) => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const res = await k.req('POST', '/v1/oid4vci/redeem', { cookie: erin.cookie, body: { credentialOffer: `openid-credential-offer://?credential_offer_uri=${encodeURIComponent(`http://127.0.0.1:${port}/offer`)}` } });
    t.equal(res.status, 502);
    t.match(res.body, { type: `${ERRORS_BASE}/502`, code: 'ISSUER_UNREACHABLE', detail: /fetching the credential offer: 127\.0\.0\.1:\d+ is unreachable/ });
  });

  await t.test('a user whose DID is not on chain is refused before the offer is spent', async (t) => {
    const frank = await k.holder({ onChain: false });
    const res = await k.req('POST', '/v1/oid4vci/redeem', { cookie: frank.cookie, body: { credentialOffer: offer } });
    t.equal(res.status, 409);
    t.match(res.body, { code: 'DID_NOT_ON_CHAIN' });
  });

  await t.test('the offer JSON (pretty-printed) or the bare offer URI, and a proof JWT built on the phone', async (t) => {
    const json = JSON.stringify(await (await fetch(offerUri)).json(), null, 2);
    const other = await k.holder();
    const { sessionId } = await k.verified(other.user.did);
    const uri = (await k.api.getSession(sessionId)).session.credentialOfferUri as string;
    t.match(uri, new RegExp(`^${k.kycUrl}/v1/oid4vci/offers/ofr_`), 'the KYC API hands out the bare offer URI');
    const byUri = await redeem(k, other, uri);
    const issued = await k.req('POST', '/v1/oid4vci/redeem', { cookie: other.cookie, body: { redeemId: byUri.redeemId, proofSignature: proofSignature(other, byUri.signingInput) } });
    t.match([issued.status, issued.body], [201, { subjectDid: other.user.did }], 'redeemed from the bare offer URI');
    const p = await redeem(k, erin, json);
    const key = await importJWK({ kty: 'OKP', crv: 'Ed25519', x: b64(erin.publicKey), d: b64(erin.seed) }, 'EdDSA');
    const wrongKid = await new SignJWT(p.proofJwtPayload).setProtectedHeader({ ...(p.proofJwtHeader as { alg: string }), kid: `${erin.user.did}#key-2` }).sign(key);
    const refused = await k.req('POST', '/v1/oid4vci/redeem', { cookie: erin.cookie, body: { redeemId: p.redeemId, proofJwt: wrongKid } });
    t.equal(refused.status, 400);
    t.match(refused.body, { code: 'BAD_PROOF', detail: /kid/ });
    const jwt = await new SignJWT({ ...p.proofJwtPayload, iat: Math.floor(Date.now() / 1000) }).setProtectedHeader(p.proofJwtHeader as { alg: string }).sign(key);
    const done = await k.req('POST', '/v1/oid4vci/redeem', { cookie: erin.cookie, body: { redeemId: p.redeemId, proofJwt: jwt } });
    t.equal(done.status, 201, done.status === 201 ? 'created' : done.text);
    t.match(done.body, { subjectDid: erin.user.did, status: { valid: true } });
  });

  await t.test("another holder's proof is refused by the issuer", async (t) => {
    const grace = await k.holder();
    const heidi = await k.holder();
    const { offer: graceOffer } = await k.verified(grace.user.did);
    const p = await redeem(k, heidi, graceOffer);
    t.equal(p.kid, `${heidi.user.did}#key-1`, "the proof names the caller's own key");
    const res = await k.req('POST', '/v1/oid4vci/redeem', { cookie: heidi.cookie, body: { redeemId: p.redeemId, proofSignature: proofSignature(heidi, p.signingInput) } });
    t.equal(res.status, 400);
    t.match(res.body, { code: 'PROOF_REJECTED', detail: `the issuer refused the proof (invalid_proof: the proof is signed by ${heidi.user.did}, not by the credential's subject ${grace.user.did})` });
    t.same(await k.wallet.store.list(heidi.user.id), []);
  });

  await t.test('the issuer DID deactivated on chain: its credentials are no longer valid', async (t) => {
    const [cached] = await k.wallet.store.list(erin.user.id);
    const issuer = await serviceKeyOf(k.node.dir, 'kyc');
    t.equal(cached!.issuer, issuer.did, 'the KYC plugin issues with its genesis-funded service key');
    const rpc = new RpcClient(k.node.url);
    const signed = signAndEncode(k.node.chainId, buildDidDeactivate({ senderPubkey: issuer.publicKey, nonce: await rpc.getNonce(issuer.address), did: issuer.did }), issuer.seed);
    await rpc.sendTransaction(signed.json);
    t.equal((await waitForReceipt(rpc, signed.hash, { timeoutMs: 30_000 })).status, 'success');
    t.match(await rpc.credentialVerify(cached!.id), { valid: true, revoked: false }, 'the chain itself still calls it valid');
    const list = await k.req('GET', '/v1/credentials', { cookie: erin.cookie });
    t.match(list.body, [{ id: cached!.id, status: { valid: false, revoked: false, issuerActive: false, registered: true } }], 'the wallet shows it not valid, and why');
  });
});
