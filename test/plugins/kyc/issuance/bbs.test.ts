import t from 'tap';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bbsDeriveProof, bbsKeyPair, verifyBbsProof } from '../../../../node/crypto/bbs.js';
import { generateSeed } from '../../../../node/crypto/ed25519.js';
import { fromHex, toHex, utf8 } from '../../../../node/protocol/bytes.js';
import { KYC_BBS_FIELDS, KYC_BBS_HEADER, KYC_BBS_MESSAGE_COUNT, KYC_BBS_STRUCTURAL, kycBbsIndex } from '../../../../node/protocol/kyc-bbs.js';
import { openDatabase } from '../../../../node/state/db.js';
import { loadServiceKey } from '../../../../plugins/common/chain/service-key.js';
import { PluginDb } from '../../../../plugins/common/store/tables.js';
import { kycBbsForm, loadBbsKey, type KycBbsForm } from '../../../../plugins/kyc/issuance/bbs.js';
import { birthDateOf, kycCredentialBody, normalizeBirthDate } from '../../../../plugins/kyc/issuance/credential-body.js';
import { ISSUER_BBS_ROW, ISSUER_KEY_TABLE, ISSUER_SEED_ROW } from '../../../../plugins/kyc/issuance/tables.js';
import { keySource, testSecret } from '../../common/secrets/fixtures.js';
import type { VerificationSession } from '../../../../plugins/kyc/types.js';
import { passedSession } from './harness.js';

/** The BBS form of the KYCCredential: the issuer's BBS key, the date of birth, and the signed messages. */

const ISSUER = 'did:ledger:testnet:3JQmMsGbVaLaZTtzMmPd41x8mrVb';
const SUBJECT = 'did:ledger:testnet:4KRnNtHcWbMbAUuAnNqe52y9nsWc';
const ISSUED = Date.UTC(2026, 0, 2, 3, 4, 5);

function withBirthDate(session: VerificationSession, dateOfBirth: string | undefined, status: 'verified' | 'rejected' = 'verified'): VerificationSession['documents'][number] {
  const doc = session.documents[0]!;
  return { ...doc, id: `doc_${dateOfBirth ?? 'none'}_${status}`, status, extractedData: { ...doc.extractedData, ...(dateOfBirth !== undefined ? { dateOfBirth } : {}) } };
}

function body(session: VerificationSession) {
  return kycCredentialBody({ uuid: '6f1c2a3b-0000-4000-8000-000000000001', session, issuer: { did: ISSUER, name: 'Test KYC' }, jurisdiction: 'DE', issuedMs: ISSUED, validityDays: 365, listUrl: 'http://kyc.example/v1/revocation-lists/0', index: 7 });
}

const message = (form: KycBbsForm, field: (typeof KYC_BBS_FIELDS)[number]) => form.messages[kycBbsIndex(field)];

t.test('the BBS key is made once, stored beside the Ed25519 seed, and survives a restart of the store', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'kyc-bbs-key-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const open = async () => {
    const db = await openDatabase(join(dir, 'db'));
    return { db, kyc: new PluginDb(db.pluginStore('kyc')) };
  };
  const first = await open();
  const keys = keySource(await testSecret(), generateSeed());
  const ed25519 = await loadServiceKey(first.kyc, ISSUER_SEED_ROW, 'testnet', keys);
  const key = await loadBbsKey(first.kyc, ISSUER_BBS_ROW, keys);
  t.equal(key.publicKey.length, 96);
  t.same(await loadBbsKey(first.kyc, ISSUER_BBS_ROW, keys), key, 'a second load gives the stored key');
  await first.db.close();

  const second = await open();
  t.teardown(() => second.db.close());
  t.same(await loadBbsKey(second.kyc, ISSUER_BBS_ROW, keys), key, 'the same key after a restart');
  t.same((await loadServiceKey(second.kyc, ISSUER_SEED_ROW, 'testnet', keys)).seed, ed25519.seed, 'the Ed25519 seed is untouched');
  t.match(await second.kyc.json(ISSUER_KEY_TABLE).get('bbs'), { publicKey: toHex(key.publicKey) });
});

t.test('the date of birth: YYYY-MM-DD from documents that were not rejected, null when unknown or doubtful', async (t) => {
  t.equal(normalizeBirthDate('1990-05-17', ISSUED), '1990-05-17');
  t.equal(normalizeBirthDate(' 1990-05-17T00:00:00Z ', ISSUED), '1990-05-17', 'a date-time gives its date');
  t.equal(normalizeBirthDate('1990-02-30', ISSUED), null, 'not a calendar date');
  t.equal(normalizeBirthDate('900517', ISSUED), null, 'the raw MRZ form: its century is unknown');
  t.equal(normalizeBirthDate('17.05.1990', ISSUED), null);
  t.equal(normalizeBirthDate('2026-01-02', ISSUED), '2026-01-02', 'the day of issuance');
  t.equal(normalizeBirthDate('2026-01-03', ISSUED), null, 'after the issuance: a misread century');
  t.equal(normalizeBirthDate(undefined, ISSUED), null);

  const s = passedSession('ver_b', 'org_A', SUBJECT);
  t.equal(birthDateOf({ documents: [withBirthDate(s, '1990-05-17')] }, ISSUED), '1990-05-17');
  t.equal(birthDateOf({ documents: [withBirthDate(s, '1990-05-17'), withBirthDate(s, undefined)] }, ISSUED), '1990-05-17', 'a document without one adds nothing');
  t.equal(birthDateOf({ documents: [withBirthDate(s, '1980-01-01', 'rejected'), withBirthDate(s, '1990-05-17')] }, ISSUED), '1990-05-17', 'a rejected document is not evidence');
  t.equal(birthDateOf({ documents: [withBirthDate(s, '1990-05-17'), withBirthDate(s, '1991-05-17')] }, ISSUED), null, 'documents that disagree');
  t.equal(birthDateOf(s, ISSUED), null, 'no document gives one');
});

t.test('the BBS form: the W3C body’s ids and dates, a signature a derived proof verifies with', async (t) => {
  const db = await openDatabase('memory');
  t.teardown(() => db.close());
  const key = await loadBbsKey(new PluginDb(db.pluginStore('kyc')), ISSUER_BBS_ROW, keySource(await testSecret()));
  const s = passedSession('ver_b', 'org_A', SUBJECT, 2);
  const session = { ...s, documents: [withBirthDate(s, '2005-06-30')] };
  const b = body(session);
  const form = await kycBbsForm(key, b, birthDateOf(session, ISSUED));

  t.equal(form.messageCount, KYC_BBS_MESSAGE_COUNT);
  t.equal(form.messages.length, 12);
  t.equal(form.publicKey, toHex(key.publicKey));
  t.equal(form.header, toHex(KYC_BBS_HEADER));
  t.same(form.messages, [
    `id=${b.id}`,
    'type=KYCCredential',
    `issuer=${ISSUER}`,
    `subject=${SUBJECT}`,
    `issuanceDate=${b.issuanceDate}`,
    `expirationDate=${b.expirationDate}`,
    'kycLevel=2',
    'jurisdiction=DE',
    'birthDate=2005-06-30',
    'verifiedAttributes=governmentId,liveness',
    'ageOver18=true',
    'ageOver21=false',
  ]);
  t.equal(b.issuanceDate, '2026-01-02T03:04:05Z', 'the same issuance date as the W3C body');
  t.notMatch(JSON.stringify(b), /2005-06-30/, 'the W3C credential (and so its on-chain hash) has no date of birth');

  const disclosedIndexes = [...KYC_BBS_STRUCTURAL, 'kycLevel', 'ageOver18'].map((f) => kycBbsIndex(f as (typeof KYC_BBS_FIELDS)[number]));
  const messages = form.messages.map(utf8);
  const presentationHeader = utf8('verifier-nonce-42');
  const proof = await bbsDeriveProof({ publicKey: fromHex(form.publicKey), signature: fromHex(form.signature), header: fromHex(form.header), messages, presentationHeader, disclosedIndexes });
  const input = { proof, publicKey: key.publicKey, header: KYC_BBS_HEADER, presentationHeader, totalMessageCount: form.messageCount };
  const disclosed = disclosedIndexes.map((index) => ({ index, message: messages[index]! }));
  t.equal(await verifyBbsProof({ ...input, disclosed }), true, 'id, type, issuer, subject, dates, level and ageOver18 disclosed; the date of birth hidden');
  const lie = disclosed.map((d) => (d.index === kycBbsIndex('ageOver18') ? { ...d, message: utf8('ageOver18=false') } : d));
  t.equal(await verifyBbsProof({ ...input, disclosed: lie }), false, 'a changed disclosed message does not verify');
  t.equal(await verifyBbsProof({ ...input, publicKey: (await bbsKeyPair()).publicKey, disclosed }), false, 'nor under another issuer’s key');
});

t.test('a session without a date of birth: birthDate= and no age claims', async (t) => {
  const db = await openDatabase('memory');
  t.teardown(() => db.close());
  const key = await loadBbsKey(new PluginDb(db.pluginStore('kyc')), ISSUER_BBS_ROW, keySource(await testSecret()));
  const session = passedSession('ver_c', 'org_A', SUBJECT, 1);
  const form = await kycBbsForm(key, body(session), birthDateOf(session, ISSUED));
  t.equal(message(form, 'birthDate'), 'birthDate=');
  t.equal(message(form, 'ageOver18'), 'ageOver18=false');
  t.equal(message(form, 'ageOver21'), 'ageOver21=false');
  t.equal(message(form, 'verifiedAttributes'), 'verifiedAttributes=governmentId');
});
