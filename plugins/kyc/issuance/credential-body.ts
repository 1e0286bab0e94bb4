import { buildCredential, type CredentialBody } from '../../../node/protocol/credential-document.js';
import { sha256 } from '../../../node/crypto/hash.js';
import { utf8 } from '../../../node/protocol/bytes.js';
import { canonicalJson } from '../../../node/protocol/verification.js';
import type { VerificationSession } from '../types.js';

/**
 * The KYCCredential a passed session earns (docs/kyc.md, "Credentials"): its level is the
 * session's, its attributes are what that level checked, and the evidence digest on chain commits
 * to the session's evidence without revealing it.
 */

/** what each level verified: 1 the document, 2 and liveness, 3 and a proof of address */
export const ATTRIBUTES_BY_LEVEL: Record<1 | 2 | 3, string[]> = {
  1: ['governmentId'],
  2: ['governmentId', 'liveness'],
  3: ['governmentId', 'liveness', 'address'],
};

const ALPHA2 = /^[A-Z]{2}$/;

/** The document's nationality when it is an ISO 3166 alpha-2 code; else the configured jurisdiction. */
export function jurisdictionOf(session: Pick<VerificationSession, 'documents'>, fallback: string): string {
  for (const d of session.documents) {
    const n = d.extractedData.nationality?.toUpperCase();
    if (n && ALPHA2.test(n)) return n;
  }
  return fallback;
}

// YYYY-MM-DD, as the MRZ reader writes it (checks/mrz.ts), optionally with a time after it
const BIRTH_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:T[0-9:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/** One document's date of birth as YYYY-MM-DD; null when it is not a calendar date or is after the day of `issuedMs`. */
export function normalizeBirthDate(value: string | undefined, issuedMs: number): string | null {
  const m = value === undefined ? null : BIRTH_DATE.exec(value.trim());
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const at = Date.UTC(y, mo - 1, d);
  const check = new Date(at);
  if (check.getUTCFullYear() !== y || check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d) return null;
  // a birth after the day of issuance is a misread (the MRZ gives two digits of the year), not a fact to sign
  if (at > Math.floor(issuedMs / 86_400_000) * 86_400_000) return null;
  return `${m[1]}-${m[2]}-${m[3]}`;
}

/**
 * The date of birth for the credential's BBS form (bbs.ts), from the documents that were not
 * rejected; null when none gives one, or when they disagree: the credential states only what the
 * documents establish.
 */
export function birthDateOf(session: Pick<VerificationSession, 'documents'>, issuedMs: number): string | null {
  const dates = new Set<string>();
  for (const d of session.documents) {
    if (d.status === 'rejected') continue;
    const date = normalizeBirthDate(d.extractedData.dateOfBirth, issuedMs);
    if (date) dates.add(date);
  }
  return dates.size === 1 ? [...dates][0]! : null;
}

/** ISO 8601 UTC to the second, as the credential document requires */
export const isoSecond = (ms: number): string => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

export interface BodyInput {
  uuid: string;
  session: Pick<VerificationSession, 'level' | 'subjectDid' | 'documents'>;
  issuer: { did: string; name: string };
  jurisdiction: string;
  issuedMs: number;
  validityDays: number;
  /** the revocation list this credential's status points to */
  listUrl: string;
  index: number;
}

export function kycCredentialBody(i: BodyInput): CredentialBody {
  if (!i.session.subjectDid) throw new Error('a credential needs the session subjectDid');
  return buildCredential({
    uuid: i.uuid,
    type: 'KYCCredential',
    kycLevel: i.session.level,
    issuer: i.issuer,
    subject: { did: i.session.subjectDid, verifiedAttributes: [...ATTRIBUTES_BY_LEVEL[i.session.level]], jurisdiction: i.jurisdiction },
    issuanceDate: isoSecond(i.issuedMs),
    expirationDate: isoSecond(i.issuedMs + i.validityDays * 86_400_000),
    status: { listUrl: i.listUrl, index: i.index },
  });
}

/**
 * SHA-256 of the canonical JSON (sorted keys) of what the decision rested on: the documents'
 * hashes and check results, the liveness result, and whether it was a sandbox session.
 */
export function evidenceDigest(session: Pick<VerificationSession, 'id' | 'level' | 'sandbox' | 'documents' | 'liveness'>): Uint8Array {
  const evidence = {
    session: session.id,
    level: session.level,
    sandbox: session.sandbox,
    documents: session.documents.map((d) => ({ type: d.type, side: d.side, status: d.status, sha256: d.checks.sha256, mrzValid: d.checks.mrz?.valid ?? null })),
    liveness: session.liveness ? { status: session.liveness.status, score: session.liveness.score, frames: session.liveness.frames } : null,
  };
  return sha256(utf8(canonicalJson(evidence)));
}
