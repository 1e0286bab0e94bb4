import { blake3 } from '../crypto/hash.js';
import { ADDRESS_LENGTH } from './address.js';
import { ByteReader, ByteWriter, concatBytes, utf8 } from './bytes.js';
import { deepFreeze } from './deep-freeze.js';
import type { UnsignedVerificationRequest } from './payload-types.js';
import { STATE_PREFIX } from './records.js';
import { readClaims, writeClaims } from './verification-answer.js';
import { canonicalJson, MAX_CLAIMS, type ClaimResult } from './verification.js';

/**
 * Verification state (docs/protocol.md, "Verification state"): a request, the answers of its
 * committee and its outcome are one record under `0x0c ‖ BLAKE3(requestId)`; the subject's index
 * is `0x0d ‖ subject[20] ‖ BLAKE3(requestId)`, listed by the node (execution never lists).
 * Only the request (which names DIDs and claim types, no personal data), hashes, claim outcomes
 * and signatures are stored.
 */

export type VerificationStatus = 'pending' | 'final' | 'expired';
const STATUSES: readonly VerificationStatus[] = ['pending', 'final', 'expired'];

export interface StoredAnswer {
  /** the member's Ed25519 key: its address derives from it, and an offline check needs it */
  publicKey: Uint8Array;
  presentationHash: Uint8Array;
  claims: ClaimResult[];
  signature: Uint8Array;
}

export interface VerificationOutcome {
  verified: boolean;
  /** the answers that agreed, by index in `answers` */
  agreed: number[];
  /** the block that made the response final */
  height: number;
  round: number;
  finalMs: number;
}

export interface VerificationRecord {
  request: UnsignedVerificationRequest;
  signature: Uint8Array;
  requester: Uint8Array;
  subject: Uint8Array;
  /** the request's fee, held until the response is final (to the agreeing members) or it expires (back) */
  fee: bigint;
  status: VerificationStatus;
  requestHeight: number;
  /** block time of the block that accepted the request: the "now" of every member's check */
  requestMs: number;
  /** the last height at which an answer counts */
  deadlineHeight: number;
  seed: Uint8Array;
  threshold: number;
  /** how many validators the committee is drawn to hold: min(n, 21) */
  committeeSize: number;
  answers: StoredAnswer[];
  outcome?: VerificationOutcome;
  txHash: Uint8Array;
}

function statusOf(n: number): VerificationStatus {
  const status = STATUSES[n];
  if (status === undefined) throw new Error(`corrupt verification record: status ${n}`);
  return status;
}

/** BLAKE3 of the request id: every key and the committee seed start from it. */
export function requestKeyOf(requestId: string): Uint8Array {
  return blake3(utf8(requestId));
}

export function verificationKey(requestKey: Uint8Array): Uint8Array {
  return concatBytes(Uint8Array.of(STATE_PREFIX.verification), requestKey);
}

export function verificationBySubjectKey(subject: Uint8Array, requestKey: Uint8Array): Uint8Array {
  return concatBytes(Uint8Array.of(STATE_PREFIX.verificationBySubject), subject, requestKey);
}

/**
 * A record is read and written back on every answer, and its request and answers never change once
 * written: each keeps the bytes it was read from (frozen, so that the bytes stay true), and writing
 * the record copies them rather than encoding them again. The request's JCS text was most of it.
 */
const encodedAs = new WeakMap<object, Uint8Array>();

/**
 * str request (JCS) ‖ signature[64] ‖ requester[20] ‖ subject[20] ‖ fee u128 ‖ status u8
 * ‖ request_height u64 ‖ request_ms u64 ‖ deadline u64 ‖ seed[32] ‖ threshold u16 ‖ committee u16
 * ‖ u16 n ‖ n × (public_key[32] ‖ presentation_hash[32] ‖ claims ‖ signature[64])
 * ‖ outcome u8 (0 | 1 ‖ verified u8 ‖ height u64 ‖ round u64 ‖ final_ms u64 ‖ u16 k ‖ k × u16 index) ‖ tx_hash[32]
 */
export function encodeVerification(v: VerificationRecord): Uint8Array {
  const w = new ByteWriter();
  const request = encodedAs.get(v.request);
  if (request) w.bytes(request);
  else w.str(canonicalJson(v.request));
  w.bytes(v.signature).bytes(v.requester).bytes(v.subject).u128(v.fee).u8(STATUSES.indexOf(v.status));
  w.u64(BigInt(v.requestHeight)).u64(BigInt(v.requestMs)).u64(BigInt(v.deadlineHeight)).bytes(v.seed).u16(v.threshold).u16(v.committeeSize).u16(v.answers.length);
  for (const a of v.answers) {
    const answer = encodedAs.get(a);
    if (answer) w.bytes(answer);
    else writeClaims(w.bytes(a.publicKey).bytes(a.presentationHash), a.claims).bytes(a.signature);
  }
  if (v.outcome) {
    const o = v.outcome;
    w.u8(1).u8(o.verified ? 1 : 0).u64(BigInt(o.height)).u64(BigInt(o.round)).u64(BigInt(o.finalMs)).u16(o.agreed.length);
    for (const i of o.agreed) w.u16(i);
  } else w.u8(0);
  return w.bytes(v.txHash).finish();
}

export function decodeVerification(bytes: Uint8Array): VerificationRecord {
  const r = new ByteReader(bytes);
  // the state holds what execution parsed and wrote in canonical form: read back, not parsed again
  // (a record is read on every answer, precheck and lookup, and the full parse was most of it)
  const request = deepFreeze(JSON.parse(r.str()) as UnsignedVerificationRequest);
  encodedAs.set(request, bytes.subarray(0, bytes.length - r.remaining));
  const v: VerificationRecord = {
    request,
    signature: r.bytes(64),
    requester: r.bytes(ADDRESS_LENGTH),
    subject: r.bytes(ADDRESS_LENGTH),
    fee: r.u128(),
    status: statusOf(r.u8()),
    requestHeight: Number(r.u64()),
    requestMs: Number(r.u64()),
    deadlineHeight: Number(r.u64()),
    seed: r.bytes(32),
    threshold: r.u16(),
    committeeSize: r.u16(),
    answers: [],
    txHash: new Uint8Array(0),
  };
  for (let n = r.u16(), i = 0; i < n; i++) {
    const from = bytes.length - r.remaining;
    const answer = deepFreeze({ publicKey: r.bytes(32), presentationHash: r.bytes(32), claims: readClaims(r, MAX_CLAIMS), signature: r.bytes(64) });
    encodedAs.set(answer, bytes.subarray(from, bytes.length - r.remaining));
    v.answers.push(answer);
  }
  if (r.u8() === 1) {
    const verified = r.u8() === 1;
    const height = Number(r.u64());
    const round = Number(r.u64());
    const finalMs = Number(r.u64());
    const agreed: number[] = [];
    for (let k = r.u16(), i = 0; i < k; i++) agreed.push(r.u16());
    v.outcome = { verified, agreed, height, round, finalMs };
  }
  v.txHash = r.bytes(32);
  r.end();
  return v;
}
