import t from 'tap';
import { sha256 } from '../../node/crypto/hash.js';
import { toHex } from '../../node/protocol/bytes.js';
import { presentationHash } from '../../node/verification/presentation.js';
import { bbsEntry, claimsOf, directEntry, EXPIRES, issuerDid, makeHolder, makeRequest, present, REQUEST_MS, World } from './harness.js';

/** The committee check's answers, claim by claim, with real Ed25519, BBS and W3C credentials. */

const adult = await makeHolder({ seedByte: 20, uuid: '11111111-1111-4111-8111-111111111111', birthDate: '1990-05-01' });
// 17 at issuance, 18 by the request: its ageOver18 says false, its birthDate proves the age
const newlyAdult = await makeHolder({ seedByte: 21, uuid: '22222222-2222-4222-8222-222222222222', birthDate: '2008-03-01' });
const minor = await makeHolder({ seedByte: 22, uuid: '33333333-3333-4333-8333-333333333333', birthDate: '2010-01-01' });
const californian = await makeHolder({ seedByte: 23, uuid: '44444444-4444-4444-8444-444444444444', birthDate: null, kycLevel: 3, jurisdiction: 'US-CA' });

const kyc = (constraints: Record<string, unknown>, acceptZKProof = true) => ({ type: 'KYCCredential', constraints, acceptZKProof });

t.test('BBS: minimumLevel 2 and minimumAge 18 through ageOver18', async (t) => {
  const w = new World([adult]);
  const request = makeRequest(adult.did, [kyc({ minimumLevel: 2, minimumAge: 18 })]);
  const entry = await bbsEntry(adult, 0, ['kycLevel', 'ageOver18']);
  const p = present(adult, [entry]);
  const outcome = await w.check(request, p);
  t.same(claimsOf(outcome), [
    {
      type: 'KYCCredential',
      satisfied: true,
      issuer: issuerDid,
      issuanceDate: '2026-01-01T00:00:00Z',
      expirationDate: EXPIRES,
      proofType: 'zk-snark',
      zkProofReference: `bbs-bls12381-sha256:${toHex(sha256(Buffer.from(entry.proof, 'hex')))}`,
    },
  ]);
  t.notOk('reason' in claimsOf(outcome)[0]!, 'a met claim has no reason');
  t.equal(toHex((outcome as { presentationHash: Uint8Array }).presentationHash), toHex(presentationHash(p)));
  t.equal(w.bbsCalls, 1, 'the proof was verified');
});

t.test('BBS: minimumAge through birthDate, judged at the request time, not at issuance', async (t) => {
  const w = new World([newlyAdult]);
  const request = makeRequest(newlyAdult.did, [kyc({ minimumAge: 18 })]);
  const byDate = present(newlyAdult, [await bbsEntry(newlyAdult, 0, ['birthDate'])]);
  t.hasStrict(claimsOf(await w.check(request, byDate)), [{ satisfied: true, proofType: 'zk-snark' }]);
  const dayBefore = Date.parse('2026-02-28T23:59:59Z');
  t.hasStrict(claimsOf(await w.check(request, byDate, { requestMs: dayBefore })), [{ satisfied: false, reason: 'constraint_not_met:minimumAge' }], 'the day before the birthday');
  const byFlag = present(newlyAdult, [await bbsEntry(newlyAdult, 0, ['ageOver18'])]);
  t.hasStrict(claimsOf(await w.check(request, byFlag)), [{ satisfied: false, reason: 'constraint_not_met:minimumAge' }], 'ageOver18=false (at issuance) is not enough');
});

t.test('under age: by birthDate and by the flag', async (t) => {
  const w = new World([minor]);
  const request = makeRequest(minor.did, [kyc({ minimumAge: 18 })]);
  for (const field of ['birthDate', 'ageOver18'] as const) {
    const r = claimsOf(await w.check(request, present(minor, [await bbsEntry(minor, 0, [field])])));
    t.hasStrict(r, [{ satisfied: false, reason: 'constraint_not_met:minimumAge', issuer: issuerDid }], field);
  }
  const younger = makeRequest(minor.did, [kyc({ minimumAge: 16 })]);
  t.hasStrict(claimsOf(await w.check(younger, present(minor, [await bbsEntry(minor, 0, ['birthDate'])]))), [{ satisfied: true }], 'old enough for 16');
});

t.test('BBS: a level above the credential, jurisdiction by country, no birth date', async (t) => {
  const w = new World([adult, californian]);
  const high = makeRequest(adult.did, [kyc({ minimumLevel: 3 })]);
  t.hasStrict(claimsOf(await w.check(high, present(adult, [await bbsEntry(adult, 0, ['kycLevel'])]))), [{ satisfied: false, reason: 'constraint_not_met:minimumLevel' }]);
  const us = makeRequest(californian.did, [kyc({ jurisdiction: ['CA', 'US'], minimumLevel: 3 })]);
  t.hasStrict(claimsOf(await w.check(us, present(californian, [await bbsEntry(californian, 0, ['kycLevel', 'jurisdiction'])]))), [{ satisfied: true }], 'US-CA is in US');
  const de = makeRequest(californian.did, [kyc({ jurisdiction: 'DE' })]);
  t.hasStrict(claimsOf(await w.check(de, present(californian, [await bbsEntry(californian, 0, ['jurisdiction'])]))), [{ satisfied: false, reason: 'constraint_not_met:jurisdiction' }]);
  const age = makeRequest(californian.did, [kyc({ minimumAge: 21 })]);
  t.hasStrict(claimsOf(await w.check(age, present(californian, [await bbsEntry(californian, 0, ['birthDate'])]))), [{ satisfied: false, reason: 'attribute_missing' }], 'the issuer had no birth date');
  const missing = makeRequest(adult.did, [kyc({ minimumLevel: 1 })]);
  t.hasStrict(claimsOf(await w.check(missing, present(adult, [await bbsEntry(adult, 0, [])]))), [{ satisfied: false, reason: 'attribute_missing' }], 'kycLevel not disclosed');
});

t.test('direct: minimumLevel from the W3C credential', async (t) => {
  const w = new World([adult]);
  const request = makeRequest(adult.did, [kyc({ minimumLevel: 2 }, false)]);
  const r = claimsOf(await w.check(request, present(adult, [directEntry(adult, 0)])));
  t.same(r, [{ type: 'KYCCredential', satisfied: true, issuer: issuerDid, issuanceDate: '2026-01-01T00:00:00Z', expirationDate: EXPIRES, proofType: 'direct' }]);
  t.equal(w.directCalls, 1, 'the issuer proof was verified');
  const high = makeRequest(adult.did, [kyc({ minimumLevel: 3 }, false)]);
  t.hasStrict(claimsOf(await w.check(high, present(adult, [directEntry(adult, 0)]))), [{ satisfied: false, reason: 'constraint_not_met:minimumLevel' }]);
  const age = makeRequest(adult.did, [kyc({ minimumAge: 18 }, false)]);
  t.hasStrict(claimsOf(await w.check(age, present(adult, [directEntry(adult, 0)]))), [{ satisfied: false, reason: 'attribute_missing', proofType: 'direct' }], 'a direct credential has no birth date');
});

t.test('direct: hash, proof, record and issuer', async (t) => {
  const request = makeRequest(adult.did, [kyc({ minimumLevel: 2 }, false)]);
  const w = new World([adult]);
  w.record(adult).hash = sha256(Buffer.from('another body'));
  t.hasStrict(claimsOf(await w.check(request, present(adult, [directEntry(adult, 0)]))), [{ satisfied: false, reason: 'hash_mismatch' }]);

  const forged = new World([adult]);
  forged.issuerKeys.set(issuerDid, adult.keys.publicKey);
  t.hasStrict(claimsOf(await forged.check(request, present(adult, [directEntry(adult, 0)]))), [{ satisfied: false, reason: 'proof_invalid' }], 'the proof is not the issuer key’s');

  const cheaper = new World([adult]);
  cheaper.record(adult).kycLevel = 1;
  t.hasStrict(claimsOf(await cheaper.check(request, present(adult, [directEntry(adult, 0)]))), [{ satisfied: false, reason: 'record_mismatch' }], 'a level 2 body registered (and paid) as level 1');

  const gone = new World([adult]);
  gone.dids.set(issuerDid, { active: false, authenticationKeys: [] });
  gone.issuerKeys.delete(issuerDid);
  t.hasStrict(claimsOf(await gone.check(request, present(adult, [directEntry(adult, 0)]))), [{ satisfied: true }], 'a deactivated issuer: the registered hash still binds the body');
  t.equal(gone.directCalls, 0, 'no key, no proof check');

  const keyless = new World([adult]);
  keyless.issuerKeys.delete(issuerDid);
  t.hasStrict(claimsOf(await keyless.check(request, present(adult, [directEntry(adult, 0)]))), [{ satisfied: false, reason: 'proof_invalid' }], 'an active issuer whose key cannot be found');

  const never = new World([adult]);
  never.dids.delete(issuerDid);
  t.hasStrict(claimsOf(await never.check(request, present(adult, [directEntry(adult, 0)]))), [{ satisfied: false, reason: 'unknown_issuer' }]);
});

t.test('revoked, now', async (t) => {
  const request = makeRequest(adult.did, [kyc({ minimumLevel: 2 })]);
  const p = present(adult, [await bbsEntry(adult, 0, ['kycLevel'])]);
  const w = new World([adult]);
  w.record(adult).revokedMs = REQUEST_MS - 1_000;
  t.hasStrict(claimsOf(await w.check(request, p)), [{ satisfied: false, reason: 'revoked', proofType: 'zk-snark' }]);
  t.equal(w.bbsCalls, 0, 'no proof work for a revoked credential');
  w.record(adult).revokedMs = REQUEST_MS + 1_000;
  t.hasStrict(claimsOf(await w.check(request, p)), [{ satisfied: false, reason: 'revoked' }], 'revoked after the request still counts: never vouch for a revoked credential');
});

t.test('expired, not yet registered, not registered', async (t) => {
  const request = makeRequest(adult.did, [kyc({ minimumLevel: 2 })]);
  const p = present(adult, [await bbsEntry(adult, 0, ['kycLevel'])]);
  const w = new World([adult]);
  t.hasStrict(claimsOf(await w.check(request, p, { requestMs: Date.parse(EXPIRES) })), [{ satisfied: false, reason: 'expired', expirationDate: EXPIRES }]);
  t.hasStrict(claimsOf(await w.check(request, p, { requestMs: Date.parse(EXPIRES) - 1 })), [{ satisfied: true }], 'valid until the last millisecond');
  w.record(adult).issuedMs = REQUEST_MS + 1;
  t.hasStrict(claimsOf(await w.check(request, p)), [{ satisfied: true }], 'registered after the request, before the presentation: it stands');
  w.record(adult).issuedMs = REQUEST_MS;
  w.record(adult).status = 'pending';
  t.hasStrict(claimsOf(await w.check(request, p)), [{ satisfied: false, reason: 'not_registered' }], 'still pending');
  w.credentials.clear();
  t.hasStrict(claimsOf(await w.check(request, p)), [{ satisfied: false, reason: 'not_registered' }], 'no record');
});

t.test('replay: a proof bound to another request or chain does not verify', async (t) => {
  const w = new World([adult]);
  const request = makeRequest(adult.did, [kyc({ minimumLevel: 2 })]);
  const replayed = await bbsEntry(adult, 0, ['kycLevel'], { requestId: 'req-0' });
  // the holder signs the new presentation: only the proof's binding is stale
  t.hasStrict(claimsOf(await w.check(request, present(adult, [replayed]))), [{ satisfied: false, reason: 'proof_invalid' }]);
  const otherChain = await bbsEntry(adult, 0, ['kycLevel'], { chainId: 'ledger-other' });
  t.hasStrict(claimsOf(await w.check(request, present(adult, [otherChain]))), [{ satisfied: false, reason: 'proof_invalid' }]);
  t.equal(w.bbsCalls, 2, 'both reached the pairing check');
});

t.test('BBS: the disclosed values must be the record’s, under its key', async (t) => {
  const request = makeRequest(adult.did, [kyc({ minimumLevel: 2 })]);
  const entry = await bbsEntry(adult, 0, ['kycLevel']);
  const w = new World([adult]);
  const lifted = structuredClone(entry);
  lifted.disclosed[6] = { index: 6, message: 'kycLevel=3' };
  w.record(adult).kycLevel = 3;
  t.hasStrict(claimsOf(await w.check(request, present(adult, [lifted]))), [{ satisfied: false, reason: 'proof_invalid' }], 'a changed message breaks the proof');
  t.hasStrict(claimsOf(await w.check(request, present(adult, [entry]))), [{ satisfied: false, reason: 'record_mismatch' }], 'a signed level that is not the registered one');
  w.record(adult).kycLevel = 2;
  const otherIssuer = structuredClone(entry);
  otherIssuer.disclosed[2] = { index: 2, message: `issuer=${adult.did}` };
  t.hasStrict(claimsOf(await w.check(request, present(adult, [otherIssuer]))), [{ satisfied: false, reason: 'record_mismatch' }]);
  const truncated = { ...entry, proof: entry.proof.slice(0, -64) };
  const before = w.bbsCalls;
  t.hasStrict(claimsOf(await w.check(request, present(adult, [truncated]))), [{ satisfied: false, reason: 'proof_invalid' }]);
  t.equal(w.bbsCalls, before, 'a proof of the wrong length costs no pairing');
  delete w.record(adult).bbs;
  t.hasStrict(claimsOf(await w.check(request, present(adult, [entry]))), [{ satisfied: false, reason: 'not_bbs' }]);
});

t.test('wrong subject and wrong type', async (t) => {
  const w = new World([adult, minor]);
  // the adult presents the minor's credential (a proof it could only have if the minor handed it over)
  const request = makeRequest(adult.did, [kyc({ minimumLevel: 2 })]);
  const theirs = await bbsEntry(minor, 0, ['kycLevel']);
  t.hasStrict(claimsOf(await w.check(request, present(adult, [theirs]))), [{ satisfied: false, reason: 'wrong_subject' }]);
  t.hasStrict(claimsOf(await w.check(request, present(adult, [directEntry(minor, 0)]))), [{ satisfied: false, reason: 'wrong_subject' }]);
  const misnamed = await makeHolder({ seedByte: 24, uuid: '66666666-6666-4666-8666-666666666666', birthDate: '1990-05-01', bbsSubject: minor.did });
  w.credentials.set(Buffer.from(misnamed.record.id).toString('hex'), misnamed.record);
  w.dids.set(misnamed.did, { active: true, authenticationKeys: [misnamed.keys.publicKey] });
  const forMisnamed = makeRequest(misnamed.did, [kyc({ minimumLevel: 2 })]);
  t.hasStrict(claimsOf(await w.check(forMisnamed, present(misnamed, [await bbsEntry(misnamed, 0, ['kycLevel'])]))), [{ satisfied: false, reason: 'wrong_subject' }], 'the BBS form names another subject than the record');
  t.hasStrict(claimsOf(await w.check(forMisnamed, present(misnamed, [directEntry(misnamed, 0)]))), [{ satisfied: true }], 'while its W3C form is the holder’s');
  const age = makeRequest(adult.did, [{ type: 'AgeVerificationCredential', constraints: { minimumAge: 18 }, acceptZKProof: true }]);
  t.hasStrict(claimsOf(await w.check(age, present(adult, [await bbsEntry(adult, 0, ['ageOver18'])]))), [{ satisfied: false, reason: 'wrong_type' }]);
});

t.test('unsupported or malformed constraints are never ignored', async (t) => {
  const w = new World([adult]);
  const request = makeRequest(adult.did, [kyc({ minimumLevel: 2, residency: 'EU' })]);
  t.hasStrict(claimsOf(await w.check(request, present(adult, [await bbsEntry(adult, 0, ['kycLevel'])]))), [{ satisfied: false, reason: 'unsupported_constraint:residency' }]);
  t.equal(w.bbsCalls, 0, 'no proof work for a claim nobody can meet');
  const bad = makeRequest(adult.did, [kyc({ minimumAge: 200 })]);
  t.hasStrict(claimsOf(await w.check(bad, present(adult, [await bbsEntry(adult, 0, [])]))), [{ satisfied: false, reason: 'invalid_constraint:minimumAge' }]);
  t.hasStrict(claimsOf(await w.check(request, present(adult, []))), [{ satisfied: false, reason: 'unsupported_constraint:residency' }], 'also when nothing is presented');
});

t.test('not presented, zk not accepted, results in request order', async (t) => {
  const w = new World([adult]);
  const request = makeRequest(adult.did, [kyc({ minimumLevel: 2 }, false), kyc({ minimumAge: 18 }), { type: 'EmailVerificationCredential', constraints: {}, acceptZKProof: true }]);
  const p = present(adult, [await bbsEntry(adult, 1, ['ageOver18']), await bbsEntry(adult, 0, ['kycLevel'])]);
  const r = claimsOf(await w.check(request, p));
  t.equal(r.length, 3);
  t.hasStrict(r[0], { type: 'KYCCredential', satisfied: false, reason: 'zk_not_accepted', proofType: 'zk-snark' });
  t.hasStrict(r[1], { type: 'KYCCredential', satisfied: true });
  t.same(r[2], { type: 'EmailVerificationCredential', satisfied: false, issuer: '', issuanceDate: '', expirationDate: '', proofType: 'direct', reason: 'not_presented' });
  t.equal(w.bbsCalls, 1, 'only the accepted proof was verified');
});

t.test('refused: not this request, not the subject, not signed by it', async (t) => {
  const w = new World([adult, minor]);
  const request = makeRequest(adult.did, [kyc({ minimumLevel: 2 })]);
  const entry = await bbsEntry(adult, 0, ['kycLevel']);
  const refusal = async (p: ReturnType<typeof present>) => {
    const outcome = await w.check(request, p);
    return 'refused' in outcome ? outcome.refused.code : 'answered';
  };
  t.equal(await refusal(present(adult, [entry])), 'answered', 'the untouched presentation is answered');
  t.equal(await refusal(present(adult, [entry], 'req-2')), 'WRONG_REQUEST');
  t.equal(await refusal(present(minor, [await bbsEntry(minor, 0, ['kycLevel'])])), 'WRONG_HOLDER');
  t.equal(await refusal(present(adult, [entry], 'req-1', minor.keys)), 'BAD_PRESENTATION_SIGNATURE', 'signed by another DID');
  const tampered = present(adult, [entry]);
  tampered.credentials = [];
  t.equal(await refusal(tampered), 'BAD_PRESENTATION_SIGNATURE', 'changed after signing');
  w.dids.set(adult.did, { active: true, authenticationKeys: [minor.keys.publicKey, adult.keys.publicKey] });
  t.equal(await refusal(present(adult, [entry])), 'answered', 'any authentication key of the DID');
  w.dids.set(adult.did, { active: false, authenticationKeys: [] });
  t.equal(await refusal(present(adult, [entry])), 'HOLDER_DEACTIVATED');
  w.dids.delete(adult.did);
  t.equal(await refusal(present(adult, [entry])), 'UNKNOWN_HOLDER');
  t.equal(w.bbsCalls, 2, 'proofs verified only for the two answered presentations');
});

t.test('refused: claim indexes out of range or repeated', async (t) => {
  const w = new World([adult]);
  const request = makeRequest(adult.did, [kyc({ minimumLevel: 2 })]);
  const out = await w.check(request, present(adult, [await bbsEntry(adult, 1, ['kycLevel'])]));
  t.hasStrict(out, { refused: { code: 'BAD_CLAIM_INDEX' } });
  const twice = await w.check(request, present(adult, [await bbsEntry(adult, 0, ['kycLevel']), directEntry(adult, 0)]));
  t.hasStrict(twice, { refused: { code: 'DUPLICATE_CLAIM' } });
  t.equal(w.bbsCalls + w.directCalls, 0);
});

t.test('refused: over-disclosure, before any proof is verified', async (t) => {
  const w = new World([adult]);
  const cases: Array<[string, Record<string, unknown>, Parameters<typeof bbsEntry>[2]]> = [
    ['a field no constraint needs', { minimumLevel: 2 }, ['kycLevel', 'jurisdiction']],
    ['the level for an age claim', { minimumAge: 18 }, ['ageOver18', 'kycLevel']],
    ['two answers to one age question', { minimumAge: 18 }, ['ageOver18', 'birthDate']],
    ['ageOver18 cannot answer minimumAge 21', { minimumAge: 21 }, ['ageOver18']],
    ['any flag for minimumAge 25', { minimumAge: 25 }, ['ageOver21']],
    ['anything for no constraints', {}, ['verifiedAttributes']],
  ];
  for (const [name, constraints, extra] of cases) {
    const request = makeRequest(adult.did, [kyc(constraints)]);
    const outcome = await w.check(request, present(adult, [await bbsEntry(adult, 0, extra)]));
    t.hasStrict(outcome, { refused: { code: 'OVER_DISCLOSURE' } }, name);
  }
  t.equal(w.bbsCalls, 0);
  const fine = makeRequest(adult.did, [kyc({ minimumAge: 21 })]);
  t.hasStrict(claimsOf(await w.check(fine, present(adult, [await bbsEntry(adult, 0, ['ageOver21'])]))), [{ satisfied: true }], 'ageOver21 for 21 is allowed');
  // the holder presents a claim the request's unknown constraint blocks: still judged on the known ones
  const unknown = makeRequest(adult.did, [kyc({ minimumLevel: 2, residency: 'EU' })]);
  t.hasStrict(await w.check(unknown, present(adult, [await bbsEntry(adult, 0, ['kycLevel', 'birthDate'])])), { refused: { code: 'OVER_DISCLOSURE' } });
});
