import { LedgerError } from '../../../node/errors.js';
import type { IssuedCredential } from '../services.js';
import type { KycEvent, Metadata } from '../types.js';

/**
 * The `data` object of each event (seed 001 part A, "Events"), built here and only here, so the
 * parts that emit and the test route send exactly the seed's fields. `verification.expired` is
 * not shown by the seed: it carries `verificationId`, `status` (`expired`), `subjectDid` and
 * `reason` (a machine code: `session_ttl` when the session's lifetime ran out before it was
 * completed, `review_ttl` when it waited in `processing` past its review deadline, `timeout` for
 * the sandbox outcome `timeout`). A session without a `subjectDid` sends `null`, and a pass
 * without a credential (no `subjectDid` to issue to) sends `credentialId: null`. The three
 * verification events also carry the session's `metadata`, as the organization gave it, so a
 * receiver can match the event to its own records (an order id) without a lookup.
 */

/** What the verification events read of a session. */
export interface SessionFacts {
  id: string;
  subjectDid?: string;
  metadata: Metadata;
}

export interface VerificationCompletedData {
  verificationId: string;
  status: 'completed';
  outcome: 'pass';
  subjectDid: string | null;
  level: number;
  credentialId: string | null;
  metadata: Metadata;
}

export interface VerificationFailedData {
  verificationId: string;
  status: 'failed';
  outcome: 'fail';
  subjectDid: string | null;
  reason: string;
  message: string;
  metadata: Metadata;
}

export interface VerificationExpiredData {
  verificationId: string;
  status: 'expired';
  subjectDid: string | null;
  reason: string;
  metadata: Metadata;
}

export type CredentialIssuedData = Omit<IssuedCredential, 'credentialOfferUri'>;

export interface CredentialRevokedData {
  credentialId: string;
  subjectDid: string;
  revokedBy: string;
  reason: string;
  txHash: string;
}

export interface EventData {
  'verification.completed': VerificationCompletedData;
  'verification.failed': VerificationFailedData;
  'verification.expired': VerificationExpiredData;
  'credential.issued': CredentialIssuedData;
  'credential.revoked': CredentialRevokedData;
}

/** The exact field list of each type, in the order they are sent. */
export const EVENT_FIELDS: { readonly [T in KycEvent]: readonly (keyof EventData[T])[] } = {
  'verification.completed': ['verificationId', 'status', 'outcome', 'subjectDid', 'level', 'credentialId', 'metadata'],
  'verification.failed': ['verificationId', 'status', 'outcome', 'subjectDid', 'reason', 'message', 'metadata'],
  'verification.expired': ['verificationId', 'status', 'subjectDid', 'reason', 'metadata'],
  'credential.issued': ['credentialId', 'type', 'issuer', 'subjectDid', 'issuanceDate', 'expirationDate', 'txHash'],
  'credential.revoked': ['credentialId', 'subjectDid', 'revokedBy', 'reason', 'txHash'],
};

export function verificationCompleted(s: SessionFacts & { level: number }, credentialId: string | null): VerificationCompletedData {
  return { verificationId: s.id, status: 'completed', outcome: 'pass', subjectDid: s.subjectDid ?? null, level: s.level, credentialId, metadata: s.metadata };
}

export function verificationFailed(s: SessionFacts, reason: string, message: string): VerificationFailedData {
  return { verificationId: s.id, status: 'failed', outcome: 'fail', subjectDid: s.subjectDid ?? null, reason, message, metadata: s.metadata };
}

export function verificationExpired(s: SessionFacts, reason: 'session_ttl' | 'review_ttl' | 'timeout'): VerificationExpiredData {
  return { verificationId: s.id, status: 'expired', subjectDid: s.subjectDid ?? null, reason, metadata: s.metadata };
}

export function credentialIssued(c: CredentialIssuedData): CredentialIssuedData {
  return { credentialId: c.credentialId, type: [...c.type], issuer: c.issuer, subjectDid: c.subjectDid, issuanceDate: c.issuanceDate, expirationDate: c.expirationDate, txHash: c.txHash };
}

export function credentialRevoked(c: CredentialRevokedData): CredentialRevokedData {
  return { credentialId: c.credentialId, subjectDid: c.subjectDid, revokedBy: c.revokedBy, reason: c.reason, txHash: c.txHash };
}

/**
 * Throws when `data` does not have exactly the fields of `type`: an emitter that drifts from the
 * seed's tables is a bug, and is caught where it happens rather than by a receiver.
 */
export function checkEventData(type: KycEvent, data: Record<string, unknown>): void {
  const fields = EVENT_FIELDS[type] as readonly string[];
  if (!fields) throw new LedgerError('KYC_EVENT_UNKNOWN', `unknown event type ${String(type).slice(0, 60)}`, 'internal');
  if (data === null || typeof data !== 'object' || Array.isArray(data)) throw new LedgerError('KYC_EVENT_DATA_INVALID', `${type} data must be an object`, 'internal');
  const keys = Object.keys(data);
  const missing = fields.filter((f) => !(f in data));
  const extra = keys.filter((k) => !fields.includes(k));
  if (missing.length > 0 || extra.length > 0) {
    throw new LedgerError('KYC_EVENT_DATA_INVALID', `${type} data must have exactly ${fields.join(', ')}${missing.length ? `; missing ${missing.join(', ')}` : ''}${extra.length ? `; unknown ${extra.join(', ')}` : ''}`, 'internal');
  }
}

const SAMPLE_VERIFICATION = { id: 'ver_test_0000000000000000', subjectDid: 'did:example:test-subject', level: 2, metadata: { orderId: 'sample-order' } };
const SAMPLE_CREDENTIAL = 'urn:ledger:credential:00000000-0000-4000-8000-000000000000';

/** Sample data of each type, for test deliveries: the real shape, with values that are clearly samples. */
export function sampleData(type: KycEvent, now: number): EventData[KycEvent] {
  const at = new Date(now).toISOString();
  switch (type) {
    case 'verification.completed':
      return verificationCompleted(SAMPLE_VERIFICATION, SAMPLE_CREDENTIAL);
    case 'verification.failed':
      return verificationFailed(SAMPLE_VERIFICATION, 'face_mismatch', 'the face in the liveness frames does not match the document photo (sample)');
    case 'verification.expired':
      return verificationExpired(SAMPLE_VERIFICATION, 'session_ttl');
    case 'credential.issued':
      return credentialIssued({
        credentialId: SAMPLE_CREDENTIAL,
        type: ['VerifiableCredential', 'KYCCredential'],
        issuer: 'did:example:test-issuer',
        subjectDid: SAMPLE_VERIFICATION.subjectDid,
        issuanceDate: at,
        expirationDate: new Date(now + 365 * 86_400_000).toISOString(),
        txHash: '0'.repeat(64),
      });
    case 'credential.revoked':
      return credentialRevoked({ credentialId: SAMPLE_CREDENTIAL, subjectDid: SAMPLE_VERIFICATION.subjectDid, revokedBy: 'did:example:test-issuer', reason: 'sample revocation', txHash: '0'.repeat(64) });
  }
}
