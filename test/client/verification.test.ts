import t from 'tap';
import { randomUUID } from 'node:crypto';
import {
  buildVerificationRequest,
  didForPublicKey,
  generateSeed,
  keyPairFromSeed,
  MIN_VERIFICATION_FEE,
  presentForVerification,
  verifyVerificationResponse,
  type KycBbsForm,
  type LedgerVerificationResponse,
} from '../../node/client/index.js';
import { sha256 } from '../../node/crypto/hash.js';
import { toHex } from '../../node/protocol/bytes.js';
import { addressFromPublicKey } from '../../node/protocol/address.js';
import { KYC_BBS_HEADER, KYC_BBS_MESSAGE_COUNT } from '../../node/protocol/kyc-bbs.js';
import { signAnswer } from '../../node/protocol/verification-answer.js';
import { parseVerificationRequest, verifyVerificationRequest, type ClaimResult } from '../../node/protocol/verification.js';
import { CHAIN_ID, claimsOf, makeHolder, makeRequest, NETWORK, World, type Holder } from '../verification/harness.js';

/**
 * The client's verification helpers with real crypto: the dApp's signed request, the subject's
 * presentation judged by the committee's own check (node/verification/check.ts) over real records,
 * and the offline check of a response signed by real validator keys.
 */

const formOf = (h: Holder): KycBbsForm => ({
  publicKey: toHex(h.record.bbs!.publicKey),
  header: toHex(KYC_BBS_HEADER),
  messages: h.messages.map((m) => new TextDecoder().decode(m)),
  signature: toHex(h.bbsSignature),
  messageCount: KYC_BBS_MESSAGE_COUNT,
});

const fieldsOf = (p: { credentials: readonly object[] }, i = 0) => (p.credentials[i] as { disclosed: Array<{ message: string }> }).disclosed.map((d) => d.message.split('=')[0]);

t.test('buildVerificationRequest: a signed request the node parses, with the documented defaults', async (t) => {
  const seed = generateSeed();
  const { publicKey } = keyPairFromSeed(seed);
  const subject = didForPublicKey('testnet', keyPairFromSeed(generateSeed()).publicKey);
  const r = buildVerificationRequest({ requesterSeed: seed, subjectDid: subject, claims: [{ type: 'KYCCredential', constraints: { minimumAge: 18 } }], purpose: 'age check', chainId: 'ledger-test', nonce: 7n });
  t.same(parseVerificationRequest(JSON.parse(JSON.stringify(r))), r, 'parses back unchanged');
  t.ok(verifyVerificationRequest(r, publicKey), 'signed by the requester key');
  t.equal(r.requester.did, didForPublicKey('testnet', publicKey), "the requester DID defaults to the seed's, on the subject's network");
  t.equal(r.fee, String(MIN_VERIFICATION_FEE));
  t.same(r.requiredClaims, [{ type: 'KYCCredential', constraints: { minimumAge: 18 }, acceptZKProof: true }]);
  t.match(r, { chainId: 'ledger-test', nonce: 7, version: '1.0', requestId: /^[0-9a-f-]{36}$/ });
  t.notOk('validForBlocks' in r, 'validForBlocks only when given');
  t.ok(Math.abs(r.timestamp - Date.now()) < 5_000);
  t.not(buildVerificationRequest({ requesterSeed: seed, subjectDid: subject, claims: [{ type: 'KYCCredential' }], purpose: 'x', chainId: 'c', nonce: 0 }).requestId, r.requestId, 'a new UUID each time');

  const given = buildVerificationRequest({ requesterSeed: seed, requesterDid: 'did:ledger:testnet:3JQmMsGbVaLaZTtzMmPd41x8mrVb', subjectDid: subject, claims: [{ type: 'KYCCredential', acceptZKProof: false }], purpose: 'x', fee: 250_000n, requestId: 'req-7', timestamp: 1, chainId: 'c', nonce: 0, validForBlocks: 5 });
  t.match(given, { requestId: 'req-7', timestamp: 1, fee: '250000', validForBlocks: 5, requester: { did: 'did:ledger:testnet:3JQmMsGbVaLaZTtzMmPd41x8mrVb' }, requiredClaims: [{ constraints: {}, acceptZKProof: false }] });

  const base = { requesterSeed: seed, subjectDid: subject, claims: [{ type: 'KYCCredential' }], purpose: 'x', chainId: 'c', nonce: 0 };
  t.throws(() => buildVerificationRequest({ ...base, fee: 99_999n }), { code: 'FEE_TOO_LOW', data: { minimum: '100000' } });
  t.throws(() => buildVerificationRequest({ ...base, fee: '0.5' }), { code: 'BAD_VERIFICATION_REQUEST' });
  t.throws(() => buildVerificationRequest({ ...base, claims: [{ type: 'KYCCredential', constraints: { nationality: 'DE' } }] }), { code: 'BAD_VERIFICATION_REQUEST', message: /nationality is not a supported constraint/ });
  t.throws(() => buildVerificationRequest({ ...base, claims: [] }), { code: 'BAD_VERIFICATION_REQUEST', message: /requiredClaims/ });
  t.throws(() => buildVerificationRequest({ ...base, validForBlocks: 4 }), { code: 'BAD_VERIFICATION_REQUEST', message: /validForBlocks/ });
  t.throws(() => buildVerificationRequest({ ...base, purpose: '' }), { code: 'BAD_VERIFICATION_REQUEST', message: /purpose/ });
  t.throws(() => buildVerificationRequest({ ...base, nonce: 2n ** 60n }), { code: 'BAD_NONCE' });
  t.throws(() => buildVerificationRequest({ ...base, subjectDid: 'did:web:example.com' }), { code: 'INVALID_DID' });
  t.throws(() => buildVerificationRequest({ ...base, requesterSeed: new Uint8Array(31) }), { code: 'BAD_SEED' });
});

t.test('presentForVerification: BBS proofs that disclose exactly what each claim needs, accepted by the committee check', async (t) => {
  const adult = await makeHolder({ seedByte: 21, uuid: randomUUID(), birthDate: '1990-05-17' });
  const young = await makeHolder({ seedByte: 22, uuid: randomUUID(), birthDate: '2006-03-01' }); // 19 at issuance, 20 at the request
  const world = new World([adult, young]);
  const present = (h: Holder, request: ReturnType<typeof makeRequest>, credentials: Parameters<typeof presentForVerification>[0]['credentials']) =>
    presentForVerification({ request, holderSeed: h.keys.seed, holderDid: h.did, chainId: CHAIN_ID, credentials });

  const levelAndAge = makeRequest(adult.did, [{ type: 'KYCCredential', constraints: { minimumLevel: 2, minimumAge: 18 }, acceptZKProof: true }]);
  const p = await present(adult, levelAndAge, [{ claim: 0, bbs: formOf(adult) }]);
  t.same(fieldsOf(p), ['id', 'type', 'issuer', 'subject', 'issuanceDate', 'expirationDate', 'kycLevel', 'ageOver18']);
  t.match(claimsOf(await world.check(levelAndAge, p)), [{ satisfied: true, proofType: 'zk-snark' }]);

  const over21 = makeRequest(young.did, [{ type: 'KYCCredential', constraints: { minimumAge: 21, jurisdiction: ['DE', 'AT'] }, acceptZKProof: true }]);
  const q = await present(young, over21, [{ claim: 0, bbs: formOf(young) }]);
  t.same(fieldsOf(q), ['id', 'type', 'issuer', 'subject', 'issuanceDate', 'expirationDate', 'jurisdiction', 'birthDate'], 'ageOver21 is false: the birth date instead');
  t.match(claimsOf(await world.check(over21, q)), [{ satisfied: false, reason: 'constraint_not_met:minimumAge' }]);

  const over25 = makeRequest(adult.did, [{ type: 'KYCCredential', constraints: { minimumAge: 25 }, acceptZKProof: true }]);
  const r = await present(adult, over25, [{ claim: 0, bbs: formOf(adult) }]);
  t.same(fieldsOf(r).slice(6), ['birthDate'], 'no flag covers 25');
  t.match(claimsOf(await world.check(over25, r)), [{ satisfied: true }]);

  const two = makeRequest(adult.did, [
    { type: 'KYCCredential', constraints: { minimumAge: 21 }, acceptZKProof: true },
    { type: 'KYCCredential', constraints: { minimumLevel: 1 }, acceptZKProof: false },
  ]);
  const both = await present(adult, two, [
    { claim: 0, bbs: formOf(adult) },
    { claim: 1, direct: adult.credential },
  ]);
  t.same(fieldsOf(both).slice(6), ['ageOver21'], 'ageOver18 does not cover 21; ageOver21 does');
  t.match(both.credentials[1], { claim: 1, proofType: 'direct', credential: { id: adult.credentialId } });
  t.match(claimsOf(await world.check(two, both)), [{ satisfied: true, proofType: 'zk-snark' }, { satisfied: true, proofType: 'direct' }]);
  t.same([world.bbsCalls, world.directCalls], [4, 1], 'every proof was really checked');
});

t.test('presentForVerification refuses what could not meet its claims, before any call', async (t) => {
  const h = await makeHolder({ seedByte: 23, uuid: randomUUID(), birthDate: '1990-05-17' });
  const other = await makeHolder({ seedByte: 24, uuid: randomUUID(), birthDate: '1990-05-17' });
  const request = makeRequest(h.did, [{ type: 'KYCCredential', constraints: { minimumLevel: 2 }, acceptZKProof: true }]);
  const args = { request, holderSeed: h.keys.seed, holderDid: h.did, chainId: CHAIN_ID };
  const form = formOf(h);
  await t.rejects(presentForVerification({ ...args, credentials: [{ claim: 1, bbs: form }] }), { code: 'BAD_CLAIM_INDEX' });
  await t.rejects(presentForVerification({ ...args, credentials: [{ claim: 0, bbs: form }, { claim: 0, direct: h.credential }] }), { code: 'DUPLICATE_CLAIM' });
  await t.rejects(presentForVerification({ ...args, holderDid: other.did, credentials: [{ claim: 0, bbs: formOf(other) }] }), { code: 'WRONG_HOLDER' });
  await t.rejects(presentForVerification({ ...args, credentials: [{ claim: 0, bbs: formOf(other) }] }), { code: 'WRONG_SUBJECT' });
  await t.rejects(presentForVerification({ ...args, credentials: [{ claim: 0, direct: other.credential }] }), { code: 'WRONG_SUBJECT' });
  const email = makeRequest(h.did, [{ type: 'EmailCredential', constraints: {}, acceptZKProof: true }]);
  await t.rejects(presentForVerification({ ...args, request: email, credentials: [{ claim: 0, bbs: form }] }), { code: 'CLAIM_TYPE_MISMATCH' });
  await t.rejects(presentForVerification({ ...args, request: email, credentials: [{ claim: 0, direct: h.credential }] }), { code: 'CLAIM_TYPE_MISMATCH' });
  const noZk = makeRequest(h.did, [{ type: 'KYCCredential', constraints: {}, acceptZKProof: false }]);
  await t.rejects(presentForVerification({ ...args, request: noZk, credentials: [{ claim: 0, bbs: form }] }), { code: 'ZK_NOT_ACCEPTED' });
  await t.rejects(presentForVerification({ ...args, credentials: [{ claim: 0, bbs: { ...form, messages: form.messages.slice(1) } }] }), { code: 'BAD_BBS_FORM' });
  await t.rejects(presentForVerification({ ...args, credentials: [{ claim: 0, bbs: { ...form, header: '00' } }] }), { code: 'BAD_BBS_FORM' });
  await t.rejects(presentForVerification({ ...args, credentials: [{ claim: 0, bbs: { ...form, signature: 'ab' } }] }), { code: 'BAD_BBS_SIGNATURE' });
  await t.rejects(presentForVerification({ ...args, holderSeed: new Uint8Array(8), credentials: [] }), { code: 'BAD_SEED' });
  const empty = await presentForVerification({ ...args, credentials: [] });
  t.same(empty.credentials, [], 'an empty presentation is well formed (its claims are not_presented)');
});

t.test('verifyVerificationResponse: real validator signatures, checked against the set', async (t) => {
  const validators = [31, 32, 33].map((b) => keyPairFromSeed(new Uint8Array(32).fill(b)));
  const set = validators.map((v) => addressFromPublicKey(v.publicKey));
  const request = makeRequest(didForPublicKey(NETWORK, validators[0]!.publicKey), [{ type: 'KYCCredential', constraints: {}, acceptZKProof: true }], 'req-offline');
  const hash = sha256(new Uint8Array([1, 2, 3]));
  const claims: ClaimResult[] = [{ type: 'KYCCredential', satisfied: true, issuer: 'did:ledger:testnet:x', issuanceDate: '2026-01-01T00:00:00Z', expirationDate: '2027-01-01T00:00:00Z', proofType: 'zk-snark', zkProofReference: 'bbs-bls12381-sha256:' + '00'.repeat(32) }];
  const signers = validators.slice(0, 2);
  const response: LedgerVerificationResponse = {
    version: '1.0',
    requestId: 'req-offline',
    timestamp: 1,
    verified: true,
    claims,
    validatorSignatures: signers.map((v) => ({ validator: addressFromPublicKey(v.publicKey), publicKey: toHex(v.publicKey), signature: toHex(signAnswer(v.seed, CHAIN_ID, 'req-offline', hash, claims)) })),
    consensusProof: { totalValidators: 3, agreedValidators: 2, threshold: 2, roundId: '9' },
    status: 'final',
    chainId: CHAIN_ID,
    presentationHash: toHex(hash),
    finalHeight: 12,
  };
  t.same(verifyVerificationResponse({ response, request, validators: set, chainId: CHAIN_ID }), { valid: true, verified: true, signers: 2, threshold: 2, problems: [] });
  t.match(verifyVerificationResponse({ response, request, validators: set.slice(1), chainId: CHAIN_ID }), { valid: false, problems: [/is not in the validator set/, /1 valid signatures, 2 needed/] });
  t.match(verifyVerificationResponse({ response, request, validators: set, chainId: 'other-chain' }), { valid: false });
  t.match(verifyVerificationResponse({ response: { ...response, claims: [{ ...claims[0]!, satisfied: false }] }, request, validators: set, chainId: CHAIN_ID }), { valid: false, signers: 0 });
  t.match(verifyVerificationResponse({ response: { ...response, verified: false }, request, validators: set, chainId: CHAIN_ID }), { valid: false, problems: [/says verified: false/] });
  const strict = makeRequest(request.subject.did, [{ type: 'KYCCredential', constraints: {}, acceptZKProof: false }], 'req-offline');
  t.match(verifyVerificationResponse({ response: { ...response, verified: false }, request: strict, validators: set, chainId: CHAIN_ID }), { valid: true, verified: false }, 'verified is recomputed from the dApp’s own request');
});
