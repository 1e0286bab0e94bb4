import t from 'tap';
import { contexts as credentialsContexts } from '@digitalbazaar/credentials-context';
import { keyPairFromSeed } from '../../node/crypto/ed25519.js';
import { sha256 } from '../../node/crypto/hash.js';
import { base58btcMultibase } from '../../node/crypto/multibase.js';
import { addressFromPublicKey } from '../../node/protocol/address.js';
import { fromHex, toHex, utf8 } from '../../node/protocol/bytes.js';
import {
  buildCredential,
  credentialHash,
  MAX_CREDENTIAL_BYTES,
  onChainHashMatches,
  parseCredential,
  signCredential,
  verifyCredentialProof,
  withExtensions,
  type Credential,
  type CredentialParts,
} from '../../node/protocol/credential-document.js';
import { didForPublicKey } from '../../node/protocol/did.js';
import { addProof, verifyProof, type ProofOptions } from '../../node/protocol/ed25519-signature-2020.js';
import { BUNDLED_CONTEXTS, canonicalNQuads, CREDENTIAL_CONTEXT, documentLoader, staticDocumentLoader } from '../../node/protocol/jsonld-loader.js';
import { loadVectors } from '../fixtures/vectors.js';

const issuer = keyPairFromSeed(new Uint8Array(32).fill(1));
const subject = keyPairFromSeed(new Uint8Array(32).fill(2));
const validators = [3, 4, 5].map((b) => keyPairFromSeed(new Uint8Array(32).fill(b)));
const issuerDid = didForPublicKey('testnet', issuer.publicKey);
const parts: CredentialParts = {
  uuid: '3ac02c07-65ac-42ed-8fc7-519a14d95d4a',
  type: 'KYCCredential',
  kycLevel: 2,
  issuer: { did: issuerDid, name: 'Acme KYC' },
  subject: { did: didForPublicKey('testnet', subject.publicKey), verifiedAttributes: ['name', 'dateOfBirth'], jurisdiction: 'DE' },
  issuanceDate: '2026-01-01T00:00:00Z',
  expirationDate: '2027-01-01T00:00:00Z',
  status: { listUrl: 'https://issuer.example/revocation/1', index: 42 },
};
const attestation = { validatorSignatures: validators.map((v) => ({ validator: addressFromPublicKey(v.publicKey), signature: 'ab'.repeat(96) })), consensusRound: 7 };
const body = buildCredential(parts);
const signed = await signCredential(await withExtensions(body, attestation), issuer.seed, '2026-01-01T00:05:00Z');
const copy = (): Credential => structuredClone(signed);

/** The same JSON with every object's keys in reverse order. */
function reversed(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reversed);
  if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).reverse().map(([k, x]) => [k, reversed(x)]));
  return v;
}

t.test('build, hash, attest, sign, verify', async (t) => {
  t.same(body['@context'], CREDENTIAL_CONTEXT);
  t.equal(body.id, `urn:ledger:credential:${parts.uuid}`);
  t.same(body.credentialStatus, {
    id: 'https://issuer.example/revocation/1#42',
    type: 'RevocationList2020Status',
    revocationListIndex: '42',
    revocationListCredential: 'https://issuer.example/revocation/1',
  });
  t.equal(signed.ledgerExtensions.onChainHash, toHex(await credentialHash(body)));
  t.match(signed.proof, { type: 'Ed25519Signature2020', created: '2026-01-01T00:05:00Z', verificationMethod: `${issuerDid}#key-1`, proofPurpose: 'assertionMethod', proofValue: /^z[1-9A-HJ-NP-Za-km-z]+$/ });
  t.ok(await onChainHashMatches(signed));
  t.same(await verifyCredentialProof(signed, issuer.publicKey), { ok: true });
  const text = JSON.stringify(signed);
  t.same(parseCredential(text), signed, 'parses back from JSON text');
  t.same(await verifyCredentialProof(text, issuer.publicKey), { ok: true }, 'and verifies from it');
  t.same(await verifyCredentialProof(reversed(signed), issuer.publicKey), { ok: true }, 'key order is not signed');
  const email = buildCredential({ ...parts, type: 'EmailVerificationCredential', kycLevel: undefined, subject: { ...parts.subject, verifiedAttributes: ['email'] } });
  const emailSigned = await signCredential(await withExtensions(email, attestation), issuer.seed, '2026-01-01T00:05:00Z');
  t.same(await verifyCredentialProof(emailSigned, issuer.publicKey), { ok: true }, 'a type without kycLevel');
});

t.test('onChainHash: SHA-256 of the canonical N-Quads of the body alone', async (t) => {
  const hash = await credentialHash(body);
  t.equal(toHex(hash), toHex(sha256(utf8(await canonicalNQuads(body)))));
  t.equal(toHex(await credentialHash(signed)), toHex(hash), 'proof and ledgerExtensions are left out');
  t.equal(toHex(await credentialHash(reversed(body) as typeof body)), toHex(hash), 'key order does not change it');
  const swapped = { ...body, credentialSubject: { ...body.credentialSubject, verifiedAttributes: ['dateOfBirth', 'name'] } };
  t.equal(toHex(await credentialHash(swapped)), toHex(hash), 'verifiedAttributes is a set');
  const other = { ...body, credentialSubject: { ...body.credentialSubject, jurisdiction: 'FR' } };
  t.not(toHex(await credentialHash(other)), toHex(hash), 'a changed claim changes it');
  const nquads = await canonicalNQuads(body);
  t.match(nquads, '<https://ledger.network/vocab#kycLevel> "2"^^<http://www.w3.org/2001/XMLSchema#integer>');
  t.match(nquads, '<https://w3id.org/vc-revocation-list-2020#revocationListIndex> "42"');
});

t.test('tampering fails the proof', async (t) => {
  const cases: Array<[string, (c: Credential) => void]> = [
    ['a subject claim', (c) => (c.credentialSubject.jurisdiction = 'FR')],
    ['the KYC level', (c) => (c.credentialSubject.kycLevel = 3)],
    ['the expiry', (c) => (c.expirationDate = '2030-01-01T00:00:00Z')],
    ['the consensus round (the proof covers ledgerExtensions)', (c) => (c.ledgerExtensions.consensusRound = 8)],
    ['a validator signature', (c) => (c.ledgerExtensions.validatorSignatures[0]!.signature = 'cd'.repeat(96))],
    ['a dropped validator signature', (c) => c.ledgerExtensions.validatorSignatures.pop()],
    ['the proof date', (c) => (c.proof.created = '2026-01-02T00:00:00Z')],
  ];
  for (const [what, change] of cases) {
    const c = copy();
    change(c);
    t.same(await verifyCredentialProof(c, issuer.publicKey), { ok: false, reason: 'the signature does not verify under this key' }, what);
  }
  t.same(await verifyCredentialProof(signed, subject.publicKey), { ok: false, reason: 'the signature does not verify under this key' }, 'another key');
  t.same(await verifyCredentialProof(signed, issuer.publicKey.subarray(1)), { ok: false, reason: 'the signature does not verify under this key' }, 'a short key');
});

t.test('onChainHashMatches and signCredential check the registered hash', async (t) => {
  const body2 = copy();
  body2.credentialSubject.jurisdiction = 'FR';
  t.notOk(await onChainHashMatches(body2), 'the body changed after registration');
  const hash2 = copy();
  hash2.ledgerExtensions.onChainHash = '00'.repeat(32);
  t.notOk(await onChainHashMatches(hash2), 'another hash');
  t.notOk(await onChainHashMatches({ ...body } as never), 'no extensions at all');
  const { proof: _proof, ...unsigned } = hash2;
  await t.rejects(signCredential(unsigned, issuer.seed, '2026-01-01T00:05:00Z'), { code: 'BAD_CREDENTIAL', message: /onChainHash is not the hash of this credential/ });
  const { proof: _p, ...good } = copy();
  await t.rejects(signCredential(good, issuer.seed, '2026-01-01 00:05'), { code: 'BAD_CREDENTIAL', message: /^created must be an ISO 8601 UTC time/ });
});

t.test('a malformed proof gives ok:false, never a throw', async (t) => {
  const withValue = (proofValue: unknown) => ({ ...copy(), proof: { ...signed.proof, proofValue } });
  const cases: Array<[string, unknown, RegExp]> = [
    ['not multibase', withValue('3MvGcVxzRzzpK'), /proofValue must be "z" \+ base58btc/],
    ['not base58', withValue('z0OIl'), /proofValue must be "z"/],
    ['empty', withValue(''), /proofValue/],
    ['a number', withValue(123), /proofValue/],
    ['63 bytes', withValue(base58btcMultibase(new Uint8Array(63).fill(7))), /64-byte signature/],
    ['another proof type', { ...copy(), proof: { ...signed.proof, type: 'Ed25519Signature2018' } }, /proof.type must be "Ed25519Signature2020", got "Ed25519Signature2018"/],
    ['no proof', (({ proof: _p, ...rest }) => rest)(copy()), /the credential has no proof/],
    ['null', null, /a credential must be a JSON object/],
    ['not JSON text', '{"id":', /the text does not parse/],
    ['a cycle', (() => { const o: Record<string, unknown> = {}; o.self = o; return o; })(), /a credential must be JSON/],
  ];
  for (const [what, input, reason] of cases) {
    const result = await verifyCredentialProof(input, issuer.publicKey);
    t.equal(result.ok, false, what);
    if (!result.ok) t.match(result.reason, reason, what);
  }
  const zeroSignature = withValue(base58btcMultibase(new Uint8Array(64)));
  t.same(await verifyCredentialProof(zeroSignature, issuer.publicKey), { ok: false, reason: 'the signature does not verify under this key' });
  const generic: Array<[unknown, RegExp]> = [
    [null, /not a JSON object/],
    [body, /has no proof object/],
    [{ ...signed, proof: { ...signed.proof, type: 'Ed25519Signature2018' } }, /proof.type is not Ed25519Signature2020/],
    [{ ...signed, proof: { ...signed.proof, proofValue: 42 } }, /proofValue must start with z/],
    [{ ...signed, proof: { ...signed.proof, proofValue: 'z0' } }, /not valid base58/],
    [{ ...signed, nickname: 'x' }, /safe mode/],
  ];
  for (const [input, reason] of generic) t.match(await verifyProof(input, issuer.publicKey), { ok: false, reason }, `the suite alone: ${reason.source}`);
});

t.test('the loader is offline: bundled contexts only', async (t) => {
  t.same([...BUNDLED_CONTEXTS.keys()], CREDENTIAL_CONTEXT, 'exactly the four contexts a credential names');
  await t.rejects(documentLoader('https://example.com/contexts/v1'), { code: 'UNKNOWN_CONTEXT', message: /https:\/\/example\.com\/contexts\/v1 is not bundled; documents are never fetched/ });
  const foreign = { ...body, '@context': [...CREDENTIAL_CONTEXT, 'https://example.com/contexts/v1'] };
  await t.rejects(canonicalNQuads(foreign), { code: 'UNKNOWN_CONTEXT', message: /example\.com\/contexts\/v1 is not bundled/ });
  await t.rejects(credentialHash(foreign), { code: 'BAD_CREDENTIAL', message: /^@context must be exactly \["https:\/\/www.w3.org\/2018\/credentials\/v1",/ });
  t.throws(() => {
    (BUNDLED_CONTEXTS.get(CREDENTIAL_CONTEXT[3]) as { '@context': Record<string, unknown> })['@context'].kycLevel = 'https://evil.example/kyc';
  }, TypeError, 'the bundled contexts are frozen');
});

t.test('safe mode: a term no context defines is an error, not dropped', async (t) => {
  await t.rejects(canonicalNQuads({ ...body, nickname: 'x' }), { code: 'BAD_JSONLD', message: /did not expand into an absolute IRI.*"property":"nickname"/ });
  const subjectExtra = { ...body, credentialSubject: { ...body.credentialSubject, score: 9 } };
  await t.rejects(canonicalNQuads(subjectExtra), { code: 'BAD_JSONLD', message: /"property":"score"/ });
  await t.rejects(canonicalNQuads({ ...body, type: ['VerifiableCredential', 'DegreeCredential'] }), { code: 'BAD_JSONLD', message: /Relative @type reference.*DegreeCredential/ });
  await t.rejects(credentialHash(subjectExtra), { code: 'BAD_CREDENTIAL', message: 'credentialSubject has an unexpected field "score"' }, 'the shape check refuses it first');
});

t.test('malformed credentials: precise errors', async (t) => {
  const bad = (change: (c: Record<string, any>) => void, message: RegExp | string, code = 'BAD_CREDENTIAL') => {
    const c = copy() as unknown as Record<string, any>;
    change(c);
    t.throws(() => parseCredential(c), { code, message });
  };
  bad((c) => (c.id = 'urn:uuid:3ac02c07-65ac-42ed-8fc7-519a14d95d4a'), /^id must be urn:ledger:credential:<uuid> .*got "urn:uuid:/);
  bad((c) => (c.id = 'urn:ledger:credential:3AC02C07-65AC-42ED-8FC7-519A14D95D4A'), /^id must be urn:ledger:credential:<uuid> with a lowercase/);
  bad((c) => (c.credentialStatus.type = 'StatusList2021Entry'), 'credentialStatus.type must be "RevocationList2020Status", got "StatusList2021Entry"');
  bad((c) => (c.credentialStatus.revocationListIndex = '131072'), /revocationListIndex must be a decimal string from 0 to 131071, got "131072"/);
  bad((c) => (c.credentialStatus.revocationListIndex = '-1'), /from 0 to 131071, got "-1"/);
  bad((c) => (c.credentialStatus.revocationListIndex = '042'), /got "042"/);
  bad((c) => (c.credentialStatus.revocationListIndex = 42), /a decimal string .* got 42/);
  bad((c) => (c.credentialStatus.id = 'https://issuer.example/revocation/1#43'), /credentialStatus.id must be https:\/\/issuer.example\/revocation\/1#42/);
  bad((c) => (c.credentialStatus.revocationListCredential = 'not a url'), /revocationListCredential must be an absolute URL/);
  bad((c) => delete c.expirationDate, 'the credential has no expirationDate');
  bad((c) => (c.holder = 'did:ledger:testnet:x'), 'the credential has an unexpected field "holder"');
  bad((c) => (c.type = ['VerifiableCredential', 'DegreeCredential']), /^type must be \["VerifiableCredential", <one of EmailVerificationCredential/);
  bad((c) => (c.issuer = issuerDid), 'issuer must be a JSON object');
  bad((c) => (c.issuer.id = 'did:web:issuer.example'), /^issuer.id: not a did:ledger DID/);
  bad((c) => (c.issuanceDate = '2026-02-30T00:00:00Z'), /^issuanceDate must be an ISO 8601 UTC time to the second/);
  bad((c) => (c.expirationDate = '2025-01-01T00:00:00Z'), 'expirationDate must be later than issuanceDate');
  bad((c) => delete c.credentialSubject.kycLevel, 'credentialSubject has no kycLevel');
  bad((c) => (c.credentialSubject.kycLevel = 4), 'credentialSubject.kycLevel must be 1, 2 or 3, got 4');
  bad((c) => (c.credentialSubject.verifiedAttributes = ['name', 'name']), 'credentialSubject.verifiedAttributes must not repeat a name');
  bad((c) => (c.credentialSubject.jurisdiction = 'Germany'), /jurisdiction must be an ISO 3166 code/);
  bad((c) => (c.proof.type = 'DataIntegrityProof'), 'proof.type must be "Ed25519Signature2020", got "DataIntegrityProof"');
  bad((c) => (c.proof.verificationMethod = `${issuerDid}#key-2`), /^proof.verificationMethod must be the issuer's key .*#key-1/);
  bad((c) => (c.proof.proofPurpose = 'authentication'), 'proof.proofPurpose must be "assertionMethod", got "authentication"');
  bad((c) => (c.ledgerExtensions.onChainHash = 'AB'.repeat(32)), 'ledgerExtensions.onChainHash must be a SHA-256 hash in lowercase hex');
  bad((c) => (c.ledgerExtensions.consensusRound = 1.5), 'ledgerExtensions.consensusRound must be a non-negative integer, got 1.5');
  bad((c) => (c.ledgerExtensions.validatorSignatures[1].validator = c.ledgerExtensions.validatorSignatures[0].validator), /validatorSignatures\[1\].validator repeats/);
  bad((c) => (c.ledgerExtensions.validatorSignatures[0].validator = '0xabc'), /validatorSignatures\[0\].validator must be a base58 address/);
  bad((c) => (c.ledgerExtensions.validatorSignatures = []), 'ledgerExtensions.validatorSignatures must hold 1 to 100 signatures');
  bad((c) => (c.issuer.name = 'x'.repeat(MAX_CREDENTIAL_BYTES)), /^a credential is at most 65536 bytes of JSON, got 6\d{4}$/, 'CREDENTIAL_TOO_LARGE');
  t.throws(() => parseCredential(' '.repeat(MAX_CREDENTIAL_BYTES + 1)), { code: 'CREDENTIAL_TOO_LARGE' }, 'oversize text is refused before parsing');
  for (const input of [[], 42, 'null', '[]', undefined]) t.throws(() => parseCredential(input), { code: 'BAD_CREDENTIAL', message: /must be a JSON object/ }, JSON.stringify(input) ?? 'undefined');
});

t.test('buildCredential checks its parts', async (t) => {
  const build = (p: Partial<CredentialParts>) => () => buildCredential({ ...parts, ...p });
  t.throws(build({ uuid: 'not-a-uuid' }), { code: 'BAD_CREDENTIAL', message: /^id must be urn:ledger:credential:<uuid>/ });
  t.throws(build({ status: { ...parts.status, index: 131_072 } }), { message: /got "131072"/ });
  t.throws(build({ status: { ...parts.status, index: -1 } }), { message: /got "-1"/ });
  t.throws(build({ status: { ...parts.status, index: 1.5 } }), { message: /got "1.5"/ });
  t.throws(build({ kycLevel: undefined }), { message: 'credentialSubject has no kycLevel' });
  t.throws(build({ type: 'AgeVerificationCredential' }), { message: 'credentialSubject has an unexpected field "kycLevel"' });
  t.equal(buildCredential({ ...parts, status: { ...parts.status, index: 131_071 } }).credentialStatus.revocationListIndex, '131071', 'the last index of a list');
});

interface Vector {
  name: string;
  seed: string;
  publicKey: string;
  publicKeyMultibase: string;
  extraContexts: Record<string, unknown>;
  signed: Record<string, unknown> & { proof: ProofOptions & { proofValue: string } };
}
const V = loadVectors<{ vectors: Vector[] }>('ed25519-signature-2020.json');

for (const v of V.vectors) {
  t.test(`published Ed25519Signature2020 vector: ${v.name}`, async (t) => {
    const key = keyPairFromSeed(fromHex(v.seed));
    t.equal(toHex(key.publicKey), v.publicKey, 'the seed gives the published key');
    const loader = staticDocumentLoader(new Map([...BUNDLED_CONTEXTS, ['https://www.w3.org/ns/credentials/v2', credentialsContexts.get('https://www.w3.org/ns/credentials/v2')], ...Object.entries(v.extraContexts)]));
    t.same(await verifyProof(v.signed, key.publicKey, loader), { ok: true }, 'the published proof verifies');
    const { proof, ...unsigned } = v.signed;
    const { proofValue, ...options } = proof;
    t.equal((await addProof(unsigned, key.seed, options, loader)).proof.proofValue, proofValue, 'signing reproduces proofValue');
    const changed = { ...v.signed, credentialSubject: { ...(v.signed.credentialSubject as object), id: 'did:example:mallory' } };
    t.equal((await verifyProof(changed, key.publicKey, loader)).ok, false, 'a changed subject does not verify');
    const offline = await verifyProof(v.signed, key.publicKey);
    if (Object.keys(v.extraContexts).length === 0) t.same(offline, { ok: true }, 'our own loader serves all its contexts');
    else t.match(offline, { ok: false, reason: /https:\/\/www\.w3\.org\/ns\/credentials\/v2 is not bundled/ }, 'our own loader refuses a context it does not bundle');
  });
}
