import { sign, verify } from '../crypto/ed25519.js';
import { invalid } from '../errors.js';
import { ByteReader, ByteWriter, concatBytes, toHex, utf8 } from './bytes.js';
import { canonicalJson, type ClaimResult } from './verification.js';

/**
 * A committee member's answer to a verification request (docs/protocol.md, "Verification requests
 * and responses"): the claim results it found and its signature over them. Members that found the
 * same results sign the same bytes, so agreement is equality of those bytes, and anyone holding
 * the validator set can check a response offline.
 *
 *   answer message = "ledger-verification-answer-v1" ‖ JCS({chainId, requestId, presentationHash, claims})
 */

export const ANSWER_DOMAIN = 'ledger-verification-answer-v1';
export const PROOF_TYPES = ['direct', 'zk-snark'] as const;
const MAX_FIELD = 256;

/** The claim results as signed: optional members only when set, so JSON and binary forms agree. */
export function normalizeClaims(claims: readonly ClaimResult[]): ClaimResult[] {
  return claims.map((c) => {
    const out: ClaimResult = { type: c.type, satisfied: c.satisfied, issuer: c.issuer, issuanceDate: c.issuanceDate, expirationDate: c.expirationDate, proofType: c.proofType };
    if (c.zkProofReference) out.zkProofReference = c.zkProofReference;
    if (c.reason) out.reason = c.reason;
    return out;
  });
}

export function answerSigningBytes(chainId: string, requestId: string, presentationHash: Uint8Array, claims: readonly ClaimResult[]): Uint8Array {
  return concatBytes(utf8(ANSWER_DOMAIN), utf8(canonicalJson({ chainId, requestId, presentationHash: toHex(presentationHash), claims: normalizeClaims(claims) })));
}

export function signAnswer(seed: Uint8Array, chainId: string, requestId: string, presentationHash: Uint8Array, claims: readonly ClaimResult[]): Uint8Array {
  return sign(seed, answerSigningBytes(chainId, requestId, presentationHash, claims));
}

export function verifyAnswer(publicKey: Uint8Array, signature: Uint8Array, chainId: string, requestId: string, presentationHash: Uint8Array, claims: readonly ClaimResult[]): boolean {
  try {
    return verify(publicKey, answerSigningBytes(chainId, requestId, presentationHash, claims), signature);
  } catch {
    return false;
  }
}

function field(v: unknown, what: string, allowEmpty = true): string {
  if (typeof v !== 'string' || v.length > MAX_FIELD || (!allowEmpty && v.length === 0)) throw invalid('MALFORMED_PAYLOAD', `${what} must be a string of at most ${MAX_FIELD} characters`);
  return v;
}

/** One claim result from JSON, each member checked. */
export function claimFromJson(v: unknown, what: string): ClaimResult {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw invalid('MALFORMED_PAYLOAD', `${what} must be an object`);
  const o = v as Record<string, unknown>;
  const allowed = ['type', 'satisfied', 'issuer', 'issuanceDate', 'expirationDate', 'proofType', 'zkProofReference', 'reason'];
  const extra = Object.keys(o).find((k) => !allowed.includes(k));
  if (extra) throw invalid('MALFORMED_PAYLOAD', `${what} has no member ${JSON.stringify(extra)}`);
  if (typeof o.satisfied !== 'boolean') throw invalid('MALFORMED_PAYLOAD', `${what}.satisfied must be a boolean`);
  if (!PROOF_TYPES.includes(o.proofType as (typeof PROOF_TYPES)[number])) throw invalid('MALFORMED_PAYLOAD', `${what}.proofType must be ${PROOF_TYPES.join(' or ')}`);
  return normalizeClaims([
    {
      type: field(o.type, `${what}.type`, false),
      satisfied: o.satisfied,
      issuer: field(o.issuer, `${what}.issuer`),
      issuanceDate: field(o.issuanceDate, `${what}.issuanceDate`),
      expirationDate: field(o.expirationDate, `${what}.expirationDate`),
      proofType: o.proofType as ClaimResult['proofType'],
      ...(o.zkProofReference === undefined ? {} : { zkProofReference: field(o.zkProofReference, `${what}.zkProofReference`) }),
      ...(o.reason === undefined ? {} : { reason: field(o.reason, `${what}.reason`) }),
    },
  ])[0]!;
}

/** u8 n ‖ n × (str type ‖ u8 satisfied ‖ u8 proof type ‖ str issuer ‖ str issuance ‖ str expiration ‖ str zk reference ‖ str reason) */
export function writeClaims(w: ByteWriter, claims: readonly ClaimResult[]): ByteWriter {
  w.u8(claims.length);
  for (const c of claims) {
    w.str(c.type).u8(c.satisfied ? 1 : 0).u8(PROOF_TYPES.indexOf(c.proofType)).str(c.issuer).str(c.issuanceDate).str(c.expirationDate);
    w.str(c.zkProofReference ?? '').str(c.reason ?? '');
  }
  return w;
}

export function readClaims(r: ByteReader, max: number): ClaimResult[] {
  const n = r.u8();
  if (n === 0 || n > max) throw invalid('MALFORMED_PAYLOAD', `an answer holds 1 to ${max} claim results, got ${n}`);
  const out: unknown[] = [];
  for (let i = 0; i < n; i++) {
    const type = r.str();
    const satisfied = r.u8();
    const proof = r.u8();
    if (satisfied > 1) throw invalid('MALFORMED_PAYLOAD', 'claim result: bad satisfied flag');
    const c: Record<string, unknown> = { type, satisfied: satisfied === 1, proofType: PROOF_TYPES[proof] ?? 'unknown', issuer: r.str(), issuanceDate: r.str(), expirationDate: r.str() };
    const zk = r.str();
    const reason = r.str();
    if (zk) c.zkProofReference = zk;
    if (reason) c.reason = reason;
    out.push(c);
  }
  return out.map((c, i) => claimFromJson(c, `claims[${i}]`));
}

export function encodeClaims(claims: readonly ClaimResult[]): Uint8Array {
  return writeClaims(new ByteWriter(), claims).finish();
}

export function decodeClaims(bytes: Uint8Array, max: number): ClaimResult[] {
  const r = new ByteReader(bytes);
  const claims = readClaims(r, max);
  r.end();
  return claims;
}
