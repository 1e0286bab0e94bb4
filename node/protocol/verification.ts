import { sign, verify } from '../crypto/ed25519.js';
import { invalid } from '../errors.js';
import { amountFromJson, UNIT } from './amount.js';
import { concatBytes, fromHex, toHex, utf8 } from './bytes.js';
import { parseDid } from './did.js';
import { MAX_JURISDICTIONS, MAX_MINIMUM_AGE, readConstraints, SUPPORTED_CONSTRAINT_KEYS } from './verification-constraints.js';

/**
 * Verification requests and responses (seed 002): a relying party asks whether a subject holds
 * claims, and the answer says per claim whether it is satisfied, with the validators' agreement.
 * Where the seed leaves a field's form open, the choice is in docs/protocol.md ("Verification
 * requests and responses"): `timestamp` is Unix milliseconds, `fee` a decimal string of smallest
 * units, and the requester signs the RFC 8785 (JCS) form of the request without `signature`.
 */

export interface RequiredClaim {
  type: string;
  /** e.g. {minimumAge: 18}; {} when there is none */
  constraints: Record<string, unknown>;
  acceptZKProof: boolean;
}

export interface VerificationRequest {
  version: '1.0';
  requestId: string;
  timestamp: number;
  requester: { did: string; purpose: string };
  subject: { did: string };
  requiredClaims: RequiredClaim[];
  /** hex, 64 bytes: the requester's Ed25519 signature (requestSigningBytes) */
  signature: string;
  /** smallest units, as a decimal string */
  fee: string;
  /**
   * Ledger members, signed with the rest, that make the request its own on-chain transaction
   * (docs/protocol.md, "Verification requests and responses"): the chain it is for, the
   * requester account's nonce, and how many blocks it stays open (default 300).
   */
  chainId?: string;
  nonce?: number;
  validForBlocks?: number;
}

export interface ClaimResult {
  type: string;
  satisfied: boolean;
  issuer: string;
  issuanceDate: string;
  expirationDate: string;
  proofType: 'zk-snark' | 'direct';
  zkProofReference?: string;
  /** ledger extension: why a claim is not satisfied, a stable code (docs/protocol.md) */
  reason?: string;
}

export interface ConsensusProof {
  totalValidators: number;
  agreedValidators: number;
  /** agreement needed: at least two thirds, ceil(2n / 3) (14 of 21, as seed 002's committees) */
  threshold: number;
  roundId: string;
}

export interface VerificationResponse {
  version: '1.0';
  requestId: string;
  timestamp: number;
  verified: boolean;
  claims: ClaimResult[];
  validatorSignatures: Array<{ validator: string; signature: string }>;
  consensusProof: ConsensusProof;
}

export const VERIFICATION_DOMAIN = 'ledger-verification-request-v1';
export const MAX_CLAIMS = 32;
/** the least `fee` a request may offer: 0.001, as a DidCreate; it pays the committee that answers */
export const MIN_VERIFICATION_FEE = UNIT / 1_000n;
const MAX_TEXT = 256;
/** how long a request stays open when it does not say, and the bounds of what it may say */
export const DEFAULT_VALID_FOR_BLOCKS = 300;
export const MIN_VALID_FOR_BLOCKS = 5;
export const MAX_VALID_FOR_BLOCKS = 10_000;
const REQUEST_KEYS = new Set(['version', 'requestId', 'timestamp', 'requester', 'subject', 'requiredClaims', 'signature', 'fee', 'chainId', 'nonce', 'validForBlocks']);

function bad(message: string) {
  return invalid('BAD_VERIFICATION_REQUEST', message);
}

function object(v: unknown, what: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw bad(`${what} must be an object`);
  return v as Record<string, unknown>;
}

function text(v: unknown, what: string): string {
  if (typeof v !== 'string' || v.length === 0 || v.length > MAX_TEXT) throw bad(`${what} must be a string of 1 to ${MAX_TEXT} characters`);
  return v;
}

function did(v: unknown, what: string): string {
  try {
    parseDid(v);
  } catch (err) {
    throw bad(`${what}: ${(err as Error).message}`);
  }
  return v as string;
}

function integer(v: unknown, min: number, max: number, what: string): number {
  if (!Number.isSafeInteger(v) || (v as number) < min || (v as number) > max) throw bad(`${what} must be an integer from ${min} to ${max}`);
  return v as number;
}

const CONSTRAINT_FORMS: Record<string, string> = {
  minimumAge: `an integer from 0 to ${MAX_MINIMUM_AGE}`,
  minimumLevel: 'an integer from 1 to 3',
  jurisdiction: `an ISO 3166 alpha-2 code or a list of 1 to ${MAX_JURISDICTIONS} of them`,
};

/** Each constraint checked for its form; a key no committee can check is refused. */
function constraints(v: unknown, what: string): Record<string, unknown> {
  if (v === undefined) return {};
  const c = object(v, what);
  const { problem } = readConstraints(c);
  if (problem?.startsWith('unsupported_constraint:')) {
    const key = problem.slice('unsupported_constraint:'.length);
    throw bad(`${what}.${key} is not a supported constraint; supported: ${SUPPORTED_CONSTRAINT_KEYS.join(', ')}`);
  }
  if (problem) {
    const key = problem.slice('invalid_constraint:'.length);
    throw bad(`${what}.${key} must be ${CONSTRAINT_FORMS[key]}`);
  }
  return c;
}

/** A request from JSON, checked field by field; throws BAD_VERIFICATION_REQUEST naming the field. */
export function parseVerificationRequest(json: unknown): VerificationRequest {
  const o = object(json, 'the request');
  const unknown = Object.keys(o).find((k) => !REQUEST_KEYS.has(k));
  if (unknown !== undefined) throw bad(`unknown request member ${JSON.stringify(unknown)}`);
  if (o.version !== '1.0' && o.version !== 1) throw bad('version must be "1.0"');
  if (!Number.isSafeInteger(o.timestamp) || (o.timestamp as number) < 0) throw bad('timestamp must be Unix milliseconds');
  const requester = object(o.requester, 'requester');
  const claims = o.requiredClaims;
  if (!Array.isArray(claims) || claims.length === 0 || claims.length > MAX_CLAIMS) throw bad(`requiredClaims must hold 1 to ${MAX_CLAIMS} claims`);
  if (typeof o.signature !== 'string' || !/^[0-9a-f]{128}$/.test(o.signature)) throw bad('signature must be 64 bytes of lowercase hex');
  if (typeof o.fee !== 'string' || !/^\d+$/.test(o.fee)) throw bad('fee must be a decimal string of smallest units');
  try {
    amountFromJson(o.fee, 'fee');
  } catch {
    throw bad('fee is out of range');
  }
  const request: VerificationRequest = {
    version: '1.0',
    requestId: text(o.requestId, 'requestId'),
    timestamp: o.timestamp as number,
    requester: { did: did(requester.did, 'requester.did'), purpose: text(requester.purpose, 'requester.purpose') },
    subject: { did: did(object(o.subject, 'subject').did, 'subject.did') },
    requiredClaims: claims.map((raw, i) => {
      const c = object(raw, `requiredClaims[${i}]`);
      if (typeof c.acceptZKProof !== 'boolean') throw bad(`requiredClaims[${i}].acceptZKProof must be a boolean`);
      return { type: text(c.type, `requiredClaims[${i}].type`), constraints: constraints(c.constraints, `requiredClaims[${i}].constraints`), acceptZKProof: c.acceptZKProof };
    }),
    signature: o.signature,
    fee: o.fee,
  };
  if (o.chainId !== undefined) request.chainId = text(o.chainId, 'chainId');
  if (o.nonce !== undefined) request.nonce = integer(o.nonce, 0, Number.MAX_SAFE_INTEGER, 'nonce');
  if (o.validForBlocks !== undefined) request.validForBlocks = integer(o.validForBlocks, MIN_VALID_FOR_BLOCKS, MAX_VALID_FOR_BLOCKS, 'validForBlocks');
  return request;
}

/** RFC 8785 (JCS): object keys sorted by UTF-16 code units, no whitespace, ECMAScript numbers and strings. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw bad('JSON numbers must be finite');
    return JSON.stringify(value);
  }
  // built by concatenation: the answers, requests and presentations a node checks are written out
  // here many times a second, and arrays of entries were a large share of what validators allocated
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + canonicalJson(value[i]);
    return out + ']';
  }
  if (typeof value === 'object') {
    const o = value as Record<string, unknown>;
    // sort() with no comparator orders strings by UTF-16 code units, as JCS asks, and so does <.
    // Objects read back from JCS text already have their keys in order, and V8's sort copies the
    // array even then.
    const keys = Object.keys(o);
    if (!inOrder(keys)) keys.sort();
    let out = '{';
    for (const k of keys) {
      const v = o[k];
      if (v === undefined) continue;
      out += (out.length === 1 ? '' : ',') + JSON.stringify(k) + ':' + canonicalJson(v);
    }
    return out + '}';
  }
  throw bad(`cannot put a ${typeof value} in JSON`);
}

function inOrder(keys: string[]): boolean {
  for (let i = 1; i < keys.length; i++) if (!(keys[i - 1]! < keys[i]!)) return false;
  return true;
}

/** "ledger-verification-request-v1" ‖ the JCS form of the request without `signature`. */
export function requestSigningBytes(request: Omit<VerificationRequest, 'signature'> & { signature?: string }): Uint8Array {
  const { signature: _ignored, ...unsigned } = request;
  return concatBytes(utf8(VERIFICATION_DOMAIN), utf8(canonicalJson(unsigned)));
}

export function signVerificationRequest(request: Omit<VerificationRequest, 'signature'>, requesterSeed: Uint8Array): VerificationRequest {
  return { ...request, signature: toHex(sign(requesterSeed, requestSigningBytes(request))) };
}

/** Whether the request carries a valid signature of `requesterPublicKey` (the requester DID's authentication key). */
export function verifyVerificationRequest(request: VerificationRequest, requesterPublicKey: Uint8Array): boolean {
  try {
    return verify(requesterPublicKey, requestSigningBytes(request), fromHex(request.signature, 64, 'signature'));
  } catch {
    return false;
  }
}

/** At least two thirds of `n`: 14 of 21, 3 of 4. */
export function agreementThreshold(n: number): number {
  return Math.ceil((2 * n) / 3);
}

/** Whether results satisfy every required claim: one satisfied result of its type, a zk-snark one only where ZK proofs are accepted. */
export function requestVerified(required: readonly RequiredClaim[], claims: readonly ClaimResult[]): boolean {
  return required.every((r) => claims.some((c) => c.type === r.type && c.satisfied && (c.proofType === 'direct' || r.acceptZKProof)));
}

/**
 * The response to `request`. `verified` is true only when every required claim has a satisfied
 * result of its type (a zk-snark result counts only where the claim accepts ZK proofs) and at
 * least two thirds of the validators agreed.
 */
export function buildVerificationResponse(args: {
  request: VerificationRequest;
  claims: ClaimResult[];
  validatorSignatures: Array<{ validator: string; signature: string }>;
  totalValidators: number;
  roundId: string;
  timestamp: number;
}): VerificationResponse {
  const { request, claims } = args;
  const threshold = agreementThreshold(args.totalValidators);
  const agreed = new Set(args.validatorSignatures.map((s) => s.validator)).size;
  return {
    version: '1.0',
    requestId: request.requestId,
    timestamp: args.timestamp,
    verified: requestVerified(request.requiredClaims, claims) && agreed >= threshold,
    claims,
    validatorSignatures: args.validatorSignatures,
    consensusProof: { totalValidators: args.totalValidators, agreedValidators: agreed, threshold, roundId: args.roundId },
  };
}
