import t from 'tap';
import { ByteReader, ByteWriter } from '../../node/protocol/bytes.js';
import { keyPairFromSeed } from '../../node/crypto/ed25519.js';
import { didForPublicKey } from '../../node/protocol/did.js';
import { decodePayload, encodePayload, payloadFromJson, payloadToJson, type Payload, type PayloadOf } from '../../node/protocol/payloads.js';

const did = (b: number) => didForPublicKey('testnet', keyPairFromSeed(new Uint8Array(32).fill(b)).publicKey);
const request = {
  version: '1.0' as const,
  requestId: 'req-7',
  timestamp: 1_767_225_600_000,
  requester: { did: did(1), purpose: 'age check' },
  subject: { did: did(2) },
  requiredClaims: [{ type: 'KYCCredential', constraints: { minimumAge: 18 }, acceptZKProof: true }],
  fee: '100000',
  chainId: 'ledger-test',
  nonce: 3,
};

const roundTrip = (p: Payload) => {
  const w = new ByteWriter();
  encodePayload(w, p);
  const r = new ByteReader(w.finish());
  const back = decodePayload(r);
  r.end();
  return back;
};

t.test('VerificationRequest: JSON and binary forms round-trip; the binary form is the JCS text', async (t) => {
  const p = payloadFromJson({ VerificationRequest: { request } });
  t.same(roundTrip(p), p);
  t.same(payloadToJson(p), { VerificationRequest: { request } });
  const w = new ByteWriter();
  encodePayload(w, p);
  const text = new TextDecoder().decode(w.finish().subarray(3));
  t.ok(text.startsWith('{"chainId":"ledger-test","fee":"100000","nonce":3,'), 'keys sorted, no whitespace');
});

t.test('VerificationRequest refusals', async (t) => {
  const bad = (r: Record<string, unknown>, code: string, re: RegExp) => t.throws(() => payloadFromJson({ VerificationRequest: { request: r } }), { code, message: re });
  bad({ ...request, fee: '99999' }, 'FEE_TOO_LOW', /below the minimum verification fee 100000/);
  const { chainId: _c, ...noChain } = request;
  bad(noChain, 'MALFORMED_PAYLOAD', /must carry chainId and nonce/);
  bad({ ...request, requiredClaims: [{ type: 'X', constraints: { favouriteColour: 'red' }, acceptZKProof: false }] }, 'MALFORMED_PAYLOAD', /favouriteColour is not a supported constraint/);
  bad({ ...request, signature: 'ab' }, 'MALFORMED_PAYLOAD', /carries no signature: the transaction's signature is the request's/);
  // a non-canonical encoding of a valid request: same content, spaces added
  const spaced = JSON.stringify({ ...request }, null, 1);
  const w = new ByteWriter().u8(10).str(spaced);
  t.throws(() => decodePayload(new ByteReader(w.finish())), { code: 'MALFORMED_PAYLOAD', message: /canonical/ });
  t.throws(() => decodePayload(new ByteReader(new ByteWriter().u8(10).str('{not json').finish())), { message: /not JSON/ });
});

t.test('VerificationAnswer: round-trip, and each member checked', async (t) => {
  const body = {
    request_id: 'req-7',
    vrf_proof: 'ab'.repeat(80),
    presentation_hash: 'cd'.repeat(32),
    claims: [
      { type: 'KYCCredential', satisfied: true, issuer: 'did:ledger:testnet:x', issuanceDate: '2026-01-01T00:00:00Z', expirationDate: '2027-01-01T00:00:00Z', proofType: 'zk-snark', zkProofReference: 'bbs-bls12381-sha256:00' },
      { type: 'EmailVerificationCredential', satisfied: false, issuer: '', issuanceDate: '', expirationDate: '', proofType: 'direct', reason: 'not_presented' },
    ],
    signature: 'ef'.repeat(64),
  };
  const p = payloadFromJson({ VerificationAnswer: body });
  t.same(roundTrip(p), p);
  t.same(payloadToJson(p), { VerificationAnswer: body });
  const bad = (patch: Record<string, unknown>, re: RegExp) => t.throws(() => payloadFromJson({ VerificationAnswer: { ...body, ...patch } }), { code: 'MALFORMED_PAYLOAD', message: re });
  bad({ claims: [] }, /claims must hold 1 to 32/);
  bad({ claims: [{ ...body.claims[0], proofType: 'bulletproof' }] }, /proofType must be direct or zk-snark/);
  bad({ claims: [{ ...body.claims[0], satisfied: 'yes' }] }, /satisfied must be a boolean/);
  bad({ claims: [{ ...body.claims[0], extra: 1 }] }, /has no member "extra"/);
  bad({ request_id: '' }, /request_id/);
  bad({ vrf_proof: 'ab' }, /vrf_proof/);
});

t.test('VerificationAnswerBatch: round-trip; each answer checked as a VerificationAnswer is; 1 to 32 answers, one per request', async (t) => {
  const answer = (requestId: string) => ({
    request_id: requestId,
    presentation_hash: 'cd'.repeat(32),
    claims: [{ type: 'KYCCredential', satisfied: true, issuer: 'did:ledger:testnet:x', issuanceDate: '2026-01-01T00:00:00Z', expirationDate: '2027-01-01T00:00:00Z', proofType: 'zk-snark' }],
    signature: 'ef'.repeat(64),
  });
  const body = { answers: [answer('req-1'), { ...answer('req-2'), vrf_proof: 'ab'.repeat(80) }] };
  const p = payloadFromJson({ VerificationAnswerBatch: body });
  t.same(roundTrip(p), p);
  t.same(payloadToJson(p), { VerificationAnswerBatch: body });
  const bad = (b: unknown, re: RegExp) => t.throws(() => payloadFromJson({ VerificationAnswerBatch: b }), { code: 'MALFORMED_PAYLOAD', message: re });
  bad({ answers: [] }, /answers must hold 1 to 32 answers/);
  bad({ answers: Array.from({ length: 33 }, (_, i) => answer(`req-${i}`)) }, /answers must hold 1 to 32 answers/);
  bad({ answers: [answer('req-1'), answer('req-1')] }, /answers request "req-1" twice/);
  bad({ answers: [answer('req-1'), 'req-2'] }, /answers\[1\] must be an object/);
  bad({ answers: [answer('req-1'), { ...answer('req-2'), claims: [] }] }, /answers\[1\]\.claims must hold 1 to 32/);
  bad({ answers: [answer('req-1')], extra: true }, /has no field "extra"/);

  // the binary form refuses the same: a count of 0, a count past the limit, a request twice
  const binary = (count: number) => {
    const w = new ByteWriter();
    encodePayload(w, payloadFromJson({ VerificationAnswerBatch: { answers: [answer('req-1')] } }));
    const bytes = w.finish();
    bytes[1] = count;
    return bytes;
  };
  const decodes = (bytes: Uint8Array) => decodePayload(new ByteReader(bytes));
  t.throws(() => decodes(binary(0)), { message: /holds 1 to 32 answers, got 0/ });
  t.throws(() => decodes(binary(33)), { message: /holds 1 to 32 answers, got 33/ });
  const first = (p as PayloadOf<'VerificationAnswerBatch'>).answers[0]!;
  const twice = new ByteWriter();
  encodePayload(twice, { kind: 'VerificationAnswerBatch', answers: [first, first] });
  t.throws(() => decodes(twice.finish()), { message: /twice/ });
});
