import t from 'tap';
import { keyPairFromSeed } from '../../node/crypto/ed25519.js';
import { didForPublicKey } from '../../node/protocol/did.js';
import {
  agreementThreshold,
  buildVerificationResponse,
  canonicalJson,
  parseVerificationRequest,
  signVerificationRequest,
  verifyVerificationRequest,
  type ClaimResult,
} from '../../node/protocol/verification.js';

const requester = keyPairFromSeed(new Uint8Array(32).fill(5));
const subject = keyPairFromSeed(new Uint8Array(32).fill(6));
const unsigned = {
  version: '1.0' as const,
  requestId: 'req-1',
  timestamp: 1_767_225_600_000,
  requester: { did: didForPublicKey('testnet', requester.publicKey), purpose: 'age check at checkout' },
  subject: { did: didForPublicKey('testnet', subject.publicKey) },
  requiredClaims: [
    { type: 'AgeVerificationCredential', constraints: { minimumAge: 18 }, acceptZKProof: true },
    { type: 'KYCCredential', constraints: { minimumLevel: 2 }, acceptZKProof: false },
  ],
  fee: '5000000',
};
const request = signVerificationRequest(unsigned, requester.seed);

const claim = (type: string, o: Partial<ClaimResult> = {}): ClaimResult => ({
  type,
  satisfied: true,
  issuer: 'did:ledger:testnet:issuer',
  issuanceDate: '2026-01-01T00:00:00Z',
  expirationDate: '2027-01-01T00:00:00Z',
  proofType: 'direct',
  ...o,
});
const sigs = (n: number) => Array.from({ length: n }, (_, i) => ({ validator: `v${i}`, signature: 'aa' }));

t.test('JCS: sorted keys, no whitespace, ECMAScript numbers', async (t) => {
  t.equal(canonicalJson({ b: [1, 1.5, 'x'], a: { d: null, c: true } }), '{"a":{"c":true,"d":null},"b":[1,1.5,"x"]}');
  t.equal(canonicalJson({ '\u00e9': 1, z: 2, A: 3 }), '{"A":3,"z":2,"\u00e9":1}', 'UTF-16 code unit order');
  t.equal(canonicalJson(1e21), '1e+21');
  t.throws(() => canonicalJson(Number.NaN), { code: 'BAD_VERIFICATION_REQUEST' });
  t.equal(canonicalJson({ '\uffff': 1, '\ud83d\ude00': 2 }), '{"\ud83d\ude00":2,"\uffff":1}', 'code units, not code points: a surrogate pair sorts before U+FFFF');
  t.equal(canonicalJson({ a: undefined, b: 1, c: undefined }), '{"b":1}', 'undefined members are left out');
  t.equal(canonicalJson({ a: [], b: {}, c: [{}] }), '{"a":[],"b":{},"c":[{}]}');
  t.equal(canonicalJson({ '9': 1, '10': 2, a: 3 }), '{"10":2,"9":1,"a":3}', 'index-like keys, which Object.keys lists in numeric order');
  t.equal(canonicalJson(JSON.parse('{"a":1,"b":{"c":2,"d":3}}')), '{"a":1,"b":{"c":2,"d":3}}', 'keys already in order');

  // against the plain definition (sorted entries, joined), on random values
  const plain = (v: unknown): string => {
    if (Array.isArray(v)) return `[${v.map(plain).join(',')}]`;
    if (typeof v === 'object' && v !== null) {
      const entries = Object.entries(v).filter(([, x]) => x !== undefined);
      return `{${entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, x]) => `${JSON.stringify(k)}:${plain(x)}`).join(',')}}`;
    }
    return JSON.stringify(v);
  };
  let seed = 7;
  const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  const value = (depth: number): unknown => {
    const kind = rand(depth > 3 ? 4 : 6);
    if (kind === 0) return rand(2) === 0;
    if (kind === 1) return rand(1000) / 7;
    if (kind === 2) return String.fromCharCode(...Array.from({ length: rand(4) }, () => 32 + rand(0xffdf)));
    if (kind === 3) return null;
    if (kind === 4) return Array.from({ length: rand(4) }, () => value(depth + 1));
    return Object.fromEntries(Array.from({ length: rand(5) }, () => [String.fromCharCode(...Array.from({ length: 1 + rand(3) }, () => 32 + rand(0xffdf))), value(depth + 1)]));
  };
  let same = 0;
  for (let i = 0; i < 500; i++) {
    const v = value(0);
    if (canonicalJson(v) === plain(v)) same++;
  }
  t.equal(same, 500, 'the same text as the plain definition on 500 random values');
});

t.test('a signed request parses back and verifies under the requester key only', async (t) => {
  const parsed = parseVerificationRequest(JSON.parse(JSON.stringify(request)));
  t.same(parsed, request);
  t.ok(verifyVerificationRequest(parsed, requester.publicKey));
  t.notOk(verifyVerificationRequest(parsed, subject.publicKey), 'another key');
  t.notOk(verifyVerificationRequest({ ...parsed, fee: '1' }, requester.publicKey), 'a changed field');
  const reordered = { ...parsed, requiredClaims: [...parsed.requiredClaims].reverse() };
  t.notOk(verifyVerificationRequest(reordered, requester.publicKey), 'claim order is signed');
  t.equal(parseVerificationRequest({ ...request, version: 1 }).version, '1.0', 'version 1.0 as a JSON number is accepted');
});

t.test('bad requests name the field', async (t) => {
  const bad = (patch: Record<string, unknown>, re: RegExp) =>
    t.throws(() => parseVerificationRequest({ ...request, ...patch }), { code: 'BAD_VERIFICATION_REQUEST', message: re });
  bad({ version: '2.0' }, /version/);
  bad({ timestamp: '2026-01-01' }, /timestamp/);
  bad({ requester: { did: 'did:web:x', purpose: 'p' } }, /requester\.did/);
  bad({ requester: { did: request.requester.did, purpose: '' } }, /requester\.purpose/);
  bad({ subject: null }, /subject/);
  bad({ requiredClaims: [] }, /requiredClaims/);
  bad({ requiredClaims: Array(33).fill(request.requiredClaims[0]) }, /requiredClaims/);
  bad({ requiredClaims: [{ type: 'X', acceptZKProof: 'yes' }] }, /requiredClaims\[0\]\.acceptZKProof/);
  bad({ requiredClaims: [{ type: 'X', constraints: [1], acceptZKProof: true }] }, /requiredClaims\[0\]\.constraints/);
  bad({ requiredClaims: [{ type: 'X', constraints: { kycLevel: 2 }, acceptZKProof: true }] }, /kycLevel is not a supported constraint/);
  bad({ requiredClaims: [{ type: 'X', constraints: { minimumAge: 18.5 }, acceptZKProof: true }] }, /minimumAge must be an integer from 0 to 150/);
  bad({ requiredClaims: [{ type: 'X', constraints: { jurisdiction: ['de'] }, acceptZKProof: true }] }, /jurisdiction/);
  bad({ extra: 1 }, /unknown request member "extra"/);
  bad({ validForBlocks: 2 }, /validForBlocks must be an integer from 5/);
  bad({ nonce: -1 }, /nonce/);
  bad({ signature: 'ab' }, /signature/);
  bad({ fee: 5 }, /fee/);
  bad({ fee: '1'.repeat(50) }, /fee is out of range/);
  t.throws(() => parseVerificationRequest('x'), { code: 'BAD_VERIFICATION_REQUEST' });
});

t.test('verified only when every required claim is satisfied and two thirds agree', async (t) => {
  const build = (claims: ClaimResult[], agreed = 21) =>
    buildVerificationResponse({ request, claims, validatorSignatures: sigs(agreed), totalValidators: 21, roundId: '812', timestamp: 1 });
  const ok = build([claim('AgeVerificationCredential', { proofType: 'zk-snark', zkProofReference: 'ref' }), claim('KYCCredential')]);
  t.equal(ok.verified, true);
  t.same(ok.consensusProof, { totalValidators: 21, agreedValidators: 21, threshold: 14, roundId: '812' });
  t.equal(build([claim('AgeVerificationCredential')]).verified, false, 'a required claim missing');
  t.equal(build([claim('AgeVerificationCredential'), claim('KYCCredential', { satisfied: false })]).verified, false, 'one unsatisfied');
  t.equal(build([claim('AgeVerificationCredential'), claim('KYCCredential', { proofType: 'zk-snark' })]).verified, false, 'a ZK proof where none is accepted');
  t.equal(build([claim('AgeVerificationCredential'), claim('KYCCredential')], 13).verified, false, '13 of 21 agree');
  t.equal(build([claim('AgeVerificationCredential'), claim('KYCCredential')], 14).verified, true, '14 of 21 agree');
  const dup = buildVerificationResponse({ request, claims: [claim('AgeVerificationCredential'), claim('KYCCredential')], validatorSignatures: [...sigs(13), ...sigs(13)], totalValidators: 21, roundId: '1', timestamp: 1 });
  t.equal(dup.consensusProof.agreedValidators, 13, 'a validator counts once');
  t.same([21, 4, 3, 1].map(agreementThreshold), [14, 3, 2, 1]);
});
