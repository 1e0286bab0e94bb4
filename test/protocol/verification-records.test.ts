import t from 'tap';
import { decodeVerification, encodeVerification, type VerificationRecord } from '../../node/protocol/verification-records.js';
import { parseVerificationRequest } from '../../node/protocol/verification.js';

/** A verification record reads back as written: the request as execution parsed it, the answers, the outcome. */

const DID = 'did:ledger:testnet:2qxzFjpYXMFGbCquBTpYM7xqNTkA';

t.test('a record round-trips, and its request reads back as the request parser wrote it', async (t) => {
  const { signature: _s, ...request } = parseVerificationRequest({
    version: 1,
    requestId: 'req-1',
    timestamp: 1_767_225_600_000,
    requester: { did: DID, purpose: 'age check' },
    subject: { did: DID },
    requiredClaims: [
      { type: 'KYCCredential', constraints: { minimumAge: 18, minimumLevel: 2, jurisdiction: ['US', 'FR'] }, acceptZKProof: true },
      { type: 'EmailCredential', acceptZKProof: false },
    ],
    fee: '100000',
    chainId: 'ledger-test',
    nonce: 4,
    validForBlocks: 20,
    signature: '0'.repeat(128),
  });
  const v: VerificationRecord = {
    request: request as VerificationRecord['request'],
    signature: new Uint8Array(64).fill(1),
    requester: new Uint8Array(20).fill(2),
    subject: new Uint8Array(20).fill(3),
    fee: 100_000n,
    status: 'final',
    requestHeight: 5,
    requestMs: 1_767_225_600_000,
    deadlineHeight: 25,
    seed: new Uint8Array(32).fill(4),
    threshold: 3,
    committeeSize: 4,
    answers: [
      {
        publicKey: new Uint8Array(32).fill(5),
        presentationHash: new Uint8Array(32).fill(6),
        claims: [
          { type: 'KYCCredential', satisfied: true, issuer: DID, issuanceDate: '2026-01-01T00:00:00Z', expirationDate: '2027-01-01T00:00:00Z', proofType: 'zk-snark', zkProofReference: 'bbs-bls12381-sha256:ab' },
          { type: 'EmailCredential', satisfied: false, issuer: DID, issuanceDate: '2026-01-01T00:00:00Z', expirationDate: '2027-01-01T00:00:00Z', proofType: 'direct', reason: 'revoked' },
        ],
        signature: new Uint8Array(64).fill(7),
      },
    ],
    outcome: { verified: false, agreed: [0], height: 9, round: 11, finalMs: 1_767_225_660_000 },
    txHash: new Uint8Array(32).fill(8),
  };
  const back = decodeVerification(encodeVerification(v));
  t.same(back, v);
  t.same(back.request, request, 'the request as parsed: version "1.0", constraints as normalized');
  t.same(encodeVerification(back), encodeVerification(v), 'the same bytes again');

  // a record read back keeps its request's and answers' bytes: with another answer and a changed
  // status it writes what a record built from scratch writes
  const second = { ...v.answers[0]!, publicKey: new Uint8Array(32).fill(9), claims: v.answers[0]!.claims.map((c) => ({ ...c })) };
  back.answers.push(second);
  back.status = 'pending';
  delete back.outcome;
  const fresh: VerificationRecord = { ...v, request: structuredClone(v.request), answers: [structuredClone(v.answers[0]!), structuredClone(second)], status: 'pending' };
  delete fresh.outcome;
  t.same(encodeVerification(back), encodeVerification(fresh), 'copied bytes and fresh encoding agree');
  t.ok(Object.isFrozen(back.request) && Object.isFrozen(back.request.requiredClaims[0]), 'the request read back is frozen: its bytes stay true');
  t.ok(Object.isFrozen(back.answers[0]) && Object.isFrozen(back.answers[0]!.claims), 'and so are the answers read back');
});
