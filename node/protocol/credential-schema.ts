import { CREDENTIAL_URN_PREFIX as CREDENTIAL_ID_PREFIX } from './credential-id.js';
import { SIGNATURE_LENGTH } from '../crypto/ed25519.js';
import { fromBase58btcMultibase } from '../crypto/multibase.js';
import { invalid, LedgerError } from '../errors.js';
import { parseAddress } from './address.js';
import { CREDENTIAL_TYPES, isCredentialType, type CredentialType, type KycLevel } from './credential-types.js';
import { parseDid } from './did.js';
import { CREDENTIAL_CONTEXT, ED25519_SIGNATURE_2020 } from './credential-context.js';
import type { Ed25519Signature2020Proof } from './ed25519-signature-2020.js';
import { MAX_ACTIVE_VALIDATORS } from './params.js';
import { REVOCATION_LIST_ENTRIES } from './revocation-list.js';

/**
 * The shape of our W3C credential (docs/protocol.md, "W3C credential document") and its strict
 * checks: every field present, none unexpected, each in its one accepted form. Strictness matters
 * beyond tidiness: JSON-LD reads the document as RDF, so a field it cannot map would escape the
 * signature (safe mode refuses those too), and a set it reads without order must not repeat.
 */

export interface CredentialSubject {
  id: string;
  /** KYCCredential only */
  kycLevel?: KycLevel;
  verifiedAttributes: string[];
  jurisdiction: string;
}

export interface CredentialStatus {
  id: string;
  type: 'RevocationList2020Status';
  /** a decimal string, as in RevocationList2020 */
  revocationListIndex: string;
  revocationListCredential: string;
}

export interface CredentialBody {
  '@context': string[];
  id: string;
  type: ['VerifiableCredential', CredentialType];
  issuer: { id: string; name: string };
  issuanceDate: string;
  expirationDate: string;
  credentialSubject: CredentialSubject;
  credentialStatus: CredentialStatus;
}

export interface ValidatorSignature {
  /** base58 address */
  validator: string;
  /** hex */
  signature: string;
}

export interface LedgerExtensions {
  /** hex SHA-256 of the canonical body (credentialHash) */
  onChainHash: string;
  validatorSignatures: ValidatorSignature[];
  consensusRound: number;
}

export interface ExtendedCredential extends CredentialBody {
  ledgerExtensions: LedgerExtensions;
}

export interface Credential extends ExtendedCredential {
  proof: Ed25519Signature2020Proof;
}

export interface CredentialParts {
  uuid: string;
  type: CredentialType;
  kycLevel?: KycLevel;
  issuer: { did: string; name: string };
  subject: { did: string; verifiedAttributes: string[]; jurisdiction: string };
  issuanceDate: string;
  expirationDate: string;
  status: { listUrl: string; index: number };
}

export { CREDENTIAL_ID_PREFIX };
export const MAX_CREDENTIAL_BYTES = 64 * 1024;
const MAX_NAME = 256;
const MAX_URL = 512;
const MAX_ATTRIBUTES = 32;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const DATE_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const ATTRIBUTE_RE = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
/** ISO 3166-1 alpha-2, optionally with an ISO 3166-2 subdivision: "DE", "US-CA" */
const JURISDICTION_RE = /^[A-Z]{2}(-[A-Z0-9]{1,3})?$/;
const INDEX_RE = /^(0|[1-9]\d{0,5})$/;
export const BODY_KEYS = ['@context', 'id', 'type', 'issuer', 'issuanceDate', 'expirationDate', 'credentialSubject', 'credentialStatus'];

/** The verification method an issuer signs with: key 1 of its DID document (did-document.ts). */
export function issuerKeyId(issuerDid: string): string {
  return `${issuerDid}#key-1`;
}

/**
 * A complete credential (body, ledgerExtensions, proof) from JSON text or a parsed value, checked
 * strictly: no field missing, none unexpected. Throws BAD_CREDENTIAL naming the field, or
 * CREDENTIAL_TOO_LARGE past 64 KiB of JSON.
 */
export function parseCredential(json: unknown): Credential {
  const o = object(fromJson(json), 'a credential');
  exactKeys(o, 'the credential', [...BODY_KEYS, 'ledgerExtensions', 'proof']);
  const body = readBody(o);
  const ledgerExtensions = readExtensions(o.ledgerExtensions);
  const p = object(o.proof, 'proof');
  exactKeys(p, 'proof', ['type', 'created', 'verificationMethod', 'proofPurpose', 'proofValue']);
  if (p.type !== ED25519_SIGNATURE_2020) throw badCredential(`proof.type must be "${ED25519_SIGNATURE_2020}", got ${show(p.type)}`);
  if (p.verificationMethod !== issuerKeyId(body.issuer.id)) throw badCredential(`proof.verificationMethod must be the issuer's key ${issuerKeyId(body.issuer.id)}, got ${show(p.verificationMethod)}`);
  if (p.proofPurpose !== 'assertionMethod') throw badCredential(`proof.proofPurpose must be "assertionMethod", got ${show(p.proofPurpose)}`);
  if (!isSignatureMultibase(p.proofValue)) throw badCredential(`proof.proofValue must be "z" + base58btc of a ${SIGNATURE_LENGTH}-byte signature`);
  const proof: Ed25519Signature2020Proof = {
    type: ED25519_SIGNATURE_2020,
    created: readDate(p.created, 'proof.created'),
    verificationMethod: p.verificationMethod,
    proofPurpose: 'assertionMethod',
    proofValue: p.proofValue as string,
  };
  return { ...body, ledgerExtensions, proof };
}

function isSignatureMultibase(v: unknown): boolean {
  try {
    return fromBase58btcMultibase(v as string).length === SIGNATURE_LENGTH;
  } catch {
    return false;
  }
}

function fromJson(json: unknown): unknown {
  let text: string | undefined;
  try {
    text = typeof json === 'string' ? json : JSON.stringify(json);
  } catch (err) {
    throw badCredential(`a credential must be JSON: ${(err as Error).message}`);
  }
  if (text === undefined) throw badCredential('a credential must be a JSON object');
  const size = Buffer.byteLength(text, 'utf8');
  if (size > MAX_CREDENTIAL_BYTES) {
    throw new LedgerError('CREDENTIAL_TOO_LARGE', `a credential is at most ${MAX_CREDENTIAL_BYTES} bytes of JSON, got ${size}`, 'limit', { size, limit: MAX_CREDENTIAL_BYTES });
  }
  if (typeof json !== 'string') return json;
  try {
    return JSON.parse(text);
  } catch {
    throw badCredential('a credential must be JSON: the text does not parse');
  }
}

export function readBody(input: object): CredentialBody {
  const o = input as Record<string, unknown>;
  const context = o['@context'];
  if (!Array.isArray(context) || context.length !== CREDENTIAL_CONTEXT.length || context.some((c, i) => c !== CREDENTIAL_CONTEXT[i])) {
    throw badCredential(`@context must be exactly ${JSON.stringify(CREDENTIAL_CONTEXT)}`);
  }
  const id = o.id;
  if (typeof id !== 'string' || !id.startsWith(CREDENTIAL_ID_PREFIX) || !UUID_RE.test(id.slice(CREDENTIAL_ID_PREFIX.length))) {
    throw badCredential(`id must be ${CREDENTIAL_ID_PREFIX}<uuid> with a lowercase RFC 9562 UUID, got ${show(id)}`);
  }
  const type = o.type;
  if (!Array.isArray(type) || type.length !== 2 || type[0] !== 'VerifiableCredential' || !isCredentialType(type[1])) {
    throw badCredential(`type must be ["VerifiableCredential", <one of ${CREDENTIAL_TYPES.join(', ')}>], got ${show(type)}`);
  }
  const issuer = object(o.issuer, 'issuer');
  exactKeys(issuer, 'issuer', ['id', 'name']);
  const issuanceDate = readDate(o.issuanceDate, 'issuanceDate');
  const expirationDate = readDate(o.expirationDate, 'expirationDate');
  if (expirationDate <= issuanceDate) throw badCredential('expirationDate must be later than issuanceDate');
  return {
    '@context': [...CREDENTIAL_CONTEXT],
    id,
    type: ['VerifiableCredential', type[1]],
    issuer: { id: did(issuer.id, 'issuer.id'), name: text(issuer.name, 'issuer.name', MAX_NAME) },
    issuanceDate,
    expirationDate,
    credentialSubject: readSubject(o.credentialSubject, type[1]),
    credentialStatus: readStatus(o.credentialStatus),
  };
}

function readSubject(v: unknown, type: CredentialType): CredentialSubject {
  const s = object(v, 'credentialSubject');
  const kyc = type === 'KYCCredential';
  exactKeys(s, 'credentialSubject', kyc ? ['id', 'kycLevel', 'verifiedAttributes', 'jurisdiction'] : ['id', 'verifiedAttributes', 'jurisdiction']);
  const attributes = s.verifiedAttributes;
  if (!Array.isArray(attributes) || attributes.length === 0 || attributes.length > MAX_ATTRIBUTES || !attributes.every((a) => typeof a === 'string' && ATTRIBUTE_RE.test(a))) {
    throw badCredential(`credentialSubject.verifiedAttributes must hold 1 to ${MAX_ATTRIBUTES} attribute names (a letter, then up to 63 letters, digits or _)`);
  }
  // The context makes it an RDF set: order and repeats would not be signed, so repeats are refused.
  if (new Set(attributes).size !== attributes.length) throw badCredential('credentialSubject.verifiedAttributes must not repeat a name');
  if (typeof s.jurisdiction !== 'string' || !JURISDICTION_RE.test(s.jurisdiction)) {
    throw badCredential(`credentialSubject.jurisdiction must be an ISO 3166 code such as "DE" or "US-CA", got ${show(s.jurisdiction)}`);
  }
  const subject: CredentialSubject = { id: did(s.id, 'credentialSubject.id'), verifiedAttributes: [...(attributes as string[])], jurisdiction: s.jurisdiction };
  if (kyc) {
    if (s.kycLevel !== 1 && s.kycLevel !== 2 && s.kycLevel !== 3) throw badCredential(`credentialSubject.kycLevel must be 1, 2 or 3, got ${show(s.kycLevel)}`);
    return { id: subject.id, kycLevel: s.kycLevel, verifiedAttributes: subject.verifiedAttributes, jurisdiction: subject.jurisdiction };
  }
  return subject;
}

function readStatus(v: unknown): CredentialStatus {
  const s = object(v, 'credentialStatus');
  exactKeys(s, 'credentialStatus', ['id', 'type', 'revocationListIndex', 'revocationListCredential']);
  if (s.type !== 'RevocationList2020Status') throw badCredential(`credentialStatus.type must be "RevocationList2020Status", got ${show(s.type)}`);
  const index = s.revocationListIndex;
  if (typeof index !== 'string' || !INDEX_RE.test(index) || Number(index) >= REVOCATION_LIST_ENTRIES) {
    throw badCredential(`credentialStatus.revocationListIndex must be a decimal string from 0 to ${REVOCATION_LIST_ENTRIES - 1}, got ${show(index)}`);
  }
  const list = s.revocationListCredential;
  if (typeof list !== 'string' || list.length > MAX_URL || !URL.canParse(list) || /[\s#]/.test(list)) {
    throw badCredential(`credentialStatus.revocationListCredential must be an absolute URL of at most ${MAX_URL} characters with no fragment, got ${show(list)}`);
  }
  if (s.id !== `${list}#${index}`) throw badCredential(`credentialStatus.id must be ${list}#${index} (the list URL and the index), got ${show(s.id)}`);
  return { id: s.id, type: 'RevocationList2020Status', revocationListIndex: index, revocationListCredential: list };
}

export function readExtensions(v: unknown): LedgerExtensions {
  const e = object(v, 'ledgerExtensions');
  exactKeys(e, 'ledgerExtensions', ['onChainHash', 'validatorSignatures', 'consensusRound']);
  if (typeof e.onChainHash !== 'string' || !/^[0-9a-f]{64}$/.test(e.onChainHash)) throw badCredential('ledgerExtensions.onChainHash must be a SHA-256 hash in lowercase hex');
  if (!Number.isSafeInteger(e.consensusRound) || (e.consensusRound as number) < 0) throw badCredential(`ledgerExtensions.consensusRound must be a non-negative integer, got ${show(e.consensusRound)}`);
  const sigs = e.validatorSignatures;
  if (!Array.isArray(sigs) || sigs.length === 0 || sigs.length > MAX_ACTIVE_VALIDATORS) {
    throw badCredential(`ledgerExtensions.validatorSignatures must hold 1 to ${MAX_ACTIVE_VALIDATORS} signatures`);
  }
  const seen = new Set<string>();
  const validatorSignatures = sigs.map((raw, i) => {
    const what = `ledgerExtensions.validatorSignatures[${i}]`;
    const s = object(raw, what);
    exactKeys(s, what, ['validator', 'signature']);
    try {
      parseAddress(s.validator);
    } catch {
      throw badCredential(`${what}.validator must be a base58 address, got ${show(s.validator)}`);
    }
    if (typeof s.signature !== 'string' || !/^(?:[0-9a-f]{128}|[0-9a-f]{192})$/.test(s.signature)) {
      throw badCredential(`${what}.signature must be lowercase hex of a 64-byte (Ed25519) or 96-byte (BLS) signature`);
    }
    if (seen.has(s.validator as string)) throw badCredential(`${what}.validator repeats ${s.validator as string}`);
    seen.add(s.validator as string);
    return { validator: s.validator as string, signature: s.signature };
  });
  return { onChainHash: e.onChainHash, validatorSignatures, consensusRound: e.consensusRound as number };
}

export function badCredential(message: string): LedgerError {
  return invalid('BAD_CREDENTIAL', message);
}

function show(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

function object(v: unknown, what: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw badCredential(`${what} must be a JSON object`);
  return v as Record<string, unknown>;
}

export function exactKeys(input: object, what: string, keys: readonly string[]): void {
  const o = input as Record<string, unknown>;
  for (const k of keys) if (o[k] === undefined) throw badCredential(`${what} has no ${k}`);
  for (const k of Object.keys(o)) if (!keys.includes(k)) throw badCredential(`${what} has an unexpected field ${JSON.stringify(k)}`);
}

function text(v: unknown, what: string, max: number): string {
  if (typeof v !== 'string' || v.length === 0 || v.length > max) throw badCredential(`${what} must be a string of 1 to ${max} characters`);
  return v;
}

function did(v: unknown, what: string): string {
  try {
    return parseDid(v).did;
  } catch (err) {
    throw badCredential(`${what}: ${(err as Error).message}`);
  }
}

/** ISO 8601 UTC to the second ("2026-01-01T00:00:00Z"), a real calendar date; compares as text. */
export function readDate(v: unknown, what: string): string {
  if (typeof v !== 'string' || !DATE_RE.test(v) || Number.isNaN(Date.parse(v)) || new Date(v).toISOString() !== `${v.slice(0, -1)}.000Z`) {
    throw badCredential(`${what} must be an ISO 8601 UTC time to the second such as "2026-01-01T00:00:00Z", got ${show(v)}`);
  }
  return v;
}
