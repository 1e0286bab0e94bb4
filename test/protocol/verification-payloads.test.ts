import t from 'tap';
import { ByteReader, ByteWriter } from '../../node/protocol/bytes.js';
import { keyPairFromSeed } from '../../node/crypto/ed25519.js';
import { didForPublicKey } from '../../node/protocol/did.js';
import { decodePayload, encodePayload, payloadFromJson, payloadToJson, type Payload } from '../../node/protocol/payloads.js';

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
