import { invalid } from '../errors.js';
import { utf8 } from './bytes.js';

/**
 * The BBS form of a KYCCredential (docs/protocol.md, "Verification requests and responses"): the
 * same credential id, signed a second time by the issuer's BBS key over one message per attribute,
 * so that a holder can disclose its level or its age without the rest. The issuer registers the
 * BBS key and KYC_BBS_MESSAGE_COUNT with the credential request.
 *
 * Each message is the UTF-8 text `name=value`, in KYC_BBS_FIELDS order. The BBS header is
 * KYC_BBS_HEADER, which names this layout; a change of layout is a new header.
 */

export const KYC_BBS_FIELDS = [
  'id',
  'type',
  'issuer',
  'subject',
  'issuanceDate',
  'expirationDate',
  'kycLevel',
  'jurisdiction',
  'birthDate',
  'verifiedAttributes',
  'ageOver18',
  'ageOver21',
] as const;

export type KycBbsField = (typeof KYC_BBS_FIELDS)[number];

export const KYC_BBS_MESSAGE_COUNT = KYC_BBS_FIELDS.length;
export const KYC_BBS_LAYOUT = 'ledger-kyc-bbs-v1';
export const KYC_BBS_HEADER = utf8(KYC_BBS_LAYOUT);

/** Disclosed by every presentation: what a committee needs to find the credential and check it. */
export const KYC_BBS_STRUCTURAL: readonly KycBbsField[] = ['id', 'type', 'issuer', 'subject', 'issuanceDate', 'expirationDate'];

export function kycBbsIndex(field: KycBbsField): number {
  return KYC_BBS_FIELDS.indexOf(field);
}

export interface KycBbsAttributes {
  /** urn:ledger:credential:<uuid> */
  id: string;
  issuer: string;
  subject: string;
  /** ISO 8601, as in the W3C credential */
  issuanceDate: string;
  expirationDate: string;
  kycLevel: number;
  jurisdiction: string;
  /** YYYY-MM-DD, or null when the document gave none */
  birthDate: string | null;
  verifiedAttributes: readonly string[];
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Whole years from `birthDate` (YYYY-MM-DD) to the UTC day of `atMs`; throws on a malformed date. */
export function ageAt(birthDate: string, atMs: number): number {
  const m = DATE.exec(birthDate);
  if (!m) throw invalid('BAD_BIRTH_DATE', `birthDate must be YYYY-MM-DD, got ${JSON.stringify(birthDate.slice(0, 40))}`);
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const check = new Date(Date.UTC(y, mo - 1, d));
  if (check.getUTCFullYear() !== y || check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d) {
    throw invalid('BAD_BIRTH_DATE', `birthDate ${birthDate} is not a calendar date`);
  }
  const at = new Date(atMs);
  const [ay, am, ad] = [at.getUTCFullYear(), at.getUTCMonth() + 1, at.getUTCDate()];
  return ay - y - (am < mo || (am === mo && ad < d) ? 1 : 0);
}

/**
 * The field values, in layout order. `ageOver18` and `ageOver21` are the holder's age at issuance,
 * which can only grow: `true` stays true, and a holder who has since come of age discloses
 * `birthDate` instead.
 */
export function kycBbsValues(a: KycBbsAttributes): Record<KycBbsField, string> {
  const age = a.birthDate === null ? -1 : ageAt(a.birthDate, Date.parse(a.issuanceDate));
  const comma = a.verifiedAttributes.find((x) => x.includes(','));
  if (comma !== undefined) throw invalid('BAD_CREDENTIAL', `a verified attribute cannot contain a comma: ${comma}`);
  if (!Number.isFinite(Date.parse(a.issuanceDate)) || !Number.isFinite(Date.parse(a.expirationDate))) throw invalid('BAD_CREDENTIAL', 'issuanceDate and expirationDate must be ISO 8601 dates');
  return {
    id: a.id,
    type: 'KYCCredential',
    issuer: a.issuer,
    subject: a.subject,
    issuanceDate: a.issuanceDate,
    expirationDate: a.expirationDate,
    kycLevel: String(a.kycLevel),
    jurisdiction: a.jurisdiction,
    birthDate: a.birthDate ?? '',
    verifiedAttributes: a.verifiedAttributes.join(','),
    ageOver18: String(age >= 18),
    ageOver21: String(age >= 21),
  };
}

/** The messages the issuer signs, in layout order. */
export function kycBbsMessages(a: KycBbsAttributes): Uint8Array[] {
  const values = kycBbsValues(a);
  return KYC_BBS_FIELDS.map((f) => utf8(`${f}=${values[f]}`));
}

/** The value of a disclosed message, checked to be the field its index names. */
export function readKycBbsMessage(index: number, message: Uint8Array): { field: KycBbsField; value: string } {
  const field = KYC_BBS_FIELDS[index];
  if (field === undefined) throw invalid('BAD_PRESENTATION', `message index ${index} is outside the KYC layout (0 to ${KYC_BBS_MESSAGE_COUNT - 1})`);
  const text = new TextDecoder('utf-8', { fatal: false }).decode(message);
  if (!text.startsWith(`${field}=`)) throw invalid('BAD_PRESENTATION', `message ${index} must be ${field}=…`);
  return { field, value: text.slice(field.length + 1) };
}

/** What the holder receives next to the W3C credential (the KYC plugin's OpenID4VCI answer): bytes as hex, messages as their UTF-8 text. */
export interface KycBbsForm {
  /** the BBS public key the credential request registered (96 bytes) */
  publicKey: string;
  /** the BBS header, KYC_BBS_HEADER */
  header: string;
  /** `name=value`, in layout order */
  messages: string[];
  signature: string;
  messageCount: number;
}
