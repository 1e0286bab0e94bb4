import t from 'tap';
import { KYC_EVENTS } from '../../../../plugins/kyc/types.js';
import {
  EVENT_FIELDS,
  checkEventData,
  credentialIssued,
  credentialRevoked,
  sampleData,
  verificationCompleted,
  verificationExpired,
  verificationFailed,
} from '../../../../plugins/kyc/webhooks/payloads.js';

t.test('each builder gives exactly the seed\'s fields for its type, and the verification events the session\'s metadata', async (t) => {
  const metadata = { orderId: 12345, vip: true, tags: ['a', null], nested: { n: 1.5 } };
  const s = { id: 'ver_1', subjectDid: 'did:ledger:test:a', level: 3, metadata };
  t.same(verificationCompleted(s, 'urn:ledger:credential:1'), { verificationId: 'ver_1', status: 'completed', outcome: 'pass', subjectDid: 'did:ledger:test:a', level: 3, credentialId: 'urn:ledger:credential:1', metadata });
  t.same(verificationFailed(s, 'face_mismatch', 'no match'), { verificationId: 'ver_1', status: 'failed', outcome: 'fail', subjectDid: 'did:ledger:test:a', reason: 'face_mismatch', message: 'no match', metadata });
  t.same(verificationExpired({ id: 'ver_2', metadata: {} }, 'session_ttl'), { verificationId: 'ver_2', status: 'expired', subjectDid: null, reason: 'session_ttl', metadata: {} }, 'no subjectDid is null');
  const issued = { credentialId: 'c', type: ['VerifiableCredential', 'KYCCredential'], issuer: 'did:i', subjectDid: 'did:s', issuanceDate: 'a', expirationDate: 'b', txHash: 'ff', credentialOfferUri: 'https://x' };
  t.same(credentialIssued(issued), { credentialId: 'c', type: ['VerifiableCredential', 'KYCCredential'], issuer: 'did:i', subjectDid: 'did:s', issuanceDate: 'a', expirationDate: 'b', txHash: 'ff' }, 'the offer is not part of the event');
  t.same(credentialRevoked({ credentialId: 'c', subjectDid: 'did:s', revokedBy: 'did:i', reason: 'r', txHash: 'ff' }), { credentialId: 'c', subjectDid: 'did:s', revokedBy: 'did:i', reason: 'r', txHash: 'ff' });
  for (const [type, data] of [
    ['verification.completed', verificationCompleted(s, 'c')],
    ['verification.failed', verificationFailed(s, 'r', 'm')],
    ['verification.expired', verificationExpired(s, 'review_ttl')],
    ['credential.issued', credentialIssued(issued)],
  ] as const) t.same(Object.keys(data), EVENT_FIELDS[type], `${type} in field order`);
});

t.test('checkEventData names what is missing and what is unknown', async (t) => {
  t.throws(() => checkEventData('verification.completed', { verificationId: 'v', extra: 1 }), { code: 'KYC_EVENT_DATA_INVALID', message: /missing status, outcome, subjectDid, level, credentialId, metadata; unknown extra/ });
  t.throws(() => checkEventData('verification.failed', [] as any), { code: 'KYC_EVENT_DATA_INVALID' });
  t.throws(() => checkEventData('verification.nope' as any, {}), { code: 'KYC_EVENT_UNKNOWN' });
});

t.test('sample data of every type has that type\'s fields', async (t) => {
  for (const type of KYC_EVENTS) {
    const data = sampleData(type, Date.parse('2026-01-01T00:00:00Z')) as unknown as Record<string, unknown>;
    t.doesNotThrow(() => checkEventData(type, data), type);
    t.same(Object.keys(data), EVENT_FIELDS[type]);
  }
});
