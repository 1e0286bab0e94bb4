import { LedgerError } from '../../../node/errors.js';

/**
 * Cheap checks on a raw envelope before any crypto: it must be a DIDComm encrypted message (JWE
 * in general JSON serialization) addressed to one of the mediator's keys. Garbage and envelopes
 * for someone else are refused here, so they never reach the codec pool.
 */

export interface EnvelopeHeader {
  /** the sender's key id for authcrypt (`skid`, or the `apu` it is carried in) */
  skid: string | undefined;
  /** the recipients' key ids */
  kids: string[];
  alg: string;
  enc: string;
}

const MAX_RECIPIENTS = 64;
const MAX_KID = 4096;

function bad(message: string): LedgerError {
  return new LedgerError('ENVELOPE_MALFORMED', message, 'invalid');
}

function b64urlJson(text: unknown, what: string): Record<string, unknown> {
  if (typeof text !== 'string' || !/^[A-Za-z0-9_-]*$/.test(text)) throw bad(`${what} is not base64url`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw bad(`${what} is not base64url-encoded JSON`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw bad(`${what} is not a JSON object`);
  return parsed as Record<string, unknown>;
}

function isB64url(v: unknown): v is string {
  return typeof v === 'string' && /^[A-Za-z0-9_-]*$/.test(v);
}

/** Parses the envelope's JSON and protected header; throws ENVELOPE_MALFORMED with what is wrong. */
export function inspectEnvelope(text: string): EnvelopeHeader {
  let jwe: unknown;
  try {
    jwe = JSON.parse(text);
  } catch {
    throw bad('the body is not JSON');
  }
  if (jwe === null || typeof jwe !== 'object' || Array.isArray(jwe)) throw bad('the body is not a JSON object');
  const o = jwe as Record<string, unknown>;
  if (o.signatures !== undefined || o.payload !== undefined) throw bad('a signed or plaintext message must be encrypted to the mediator (application/didcomm-encrypted+json)');
  for (const field of ['iv', 'ciphertext', 'tag'] as const) {
    if (!isB64url(o[field])) throw bad(`the JWE has no base64url \`${field}\``);
  }
  const header = b64urlJson(o.protected, 'the JWE protected header');
  if (!Array.isArray(o.recipients) || o.recipients.length === 0) throw bad('the JWE has no recipients');
  if (o.recipients.length > MAX_RECIPIENTS) throw bad(`the JWE has more than ${MAX_RECIPIENTS} recipients`);
  const kids: string[] = [];
  for (const r of o.recipients as unknown[]) {
    const kid = (r as { header?: { kid?: unknown } } | null)?.header?.kid;
    if (typeof kid !== 'string' || kid.length === 0 || kid.length > MAX_KID) throw bad('a JWE recipient has no key id (header.kid)');
    if (!isB64url((r as { encrypted_key?: unknown }).encrypted_key)) throw bad('a JWE recipient has no base64url encrypted_key');
    kids.push(kid);
  }
  const alg = typeof header.alg === 'string' ? header.alg : '';
  const enc = typeof header.enc === 'string' ? header.enc : '';
  if (!alg.startsWith('ECDH-')) throw bad(`unsupported JWE alg ${JSON.stringify(alg).slice(0, 40)}: DIDComm v2 uses ECDH-ES or ECDH-1PU key wrapping`);
  let skid = typeof header.skid === 'string' ? header.skid : undefined;
  if (skid === undefined && alg.startsWith('ECDH-1PU') && typeof header.apu === 'string') {
    skid = Buffer.from(header.apu, 'base64url').toString('utf8');
  }
  if (alg.startsWith('ECDH-1PU') && (skid === undefined || skid.length === 0 || skid.length > MAX_KID)) throw bad('an authcrypt JWE must name its sender key (skid or apu)');
  return { skid, kids, alg, enc };
}

/** The DID of a DID URL (`did:x:y#key-1` → `did:x:y`). */
export function didOf(didUrl: string): string {
  const cut = didUrl.search(/[#?]/);
  return cut === -1 ? didUrl : didUrl.slice(0, cut);
}
