import { ECVRF_PROOF_LENGTH } from '../crypto/sizes.js';
import { ADDRESS_LENGTH } from './address.js';
import { ByteReader, ByteWriter, concatBytes } from './bytes.js';
import { CREDENTIAL_ID_LENGTH } from './credential-id.js';
import { CREDENTIAL_TYPES, type CredentialType } from './credential-types.js';
import type { BbsKey } from './payload-types.js';
import { STATE_PREFIX } from './records.js';

/**
 * Credential state (docs/protocol.md, "Credential state"). A request and the credential it
 * becomes are one record, under `0x04 ‖ credential_id[16]`. Indexes by issuer and by subject are
 * empty-valued entries (`0x05 ‖ issuer[20] ‖ id`, `0x06 ‖ subject[20] ‖ id`) that the node lists
 * by prefix; execution never lists. Each issuer has a counter of allocated revocation indexes
 * (`0x07 ‖ issuer`) and its revocation lists (`0x08 ‖ issuer ‖ u32 list`, zlib).
 */

export type CredentialStatus = 'pending' | 'registered' | 'expired';
const STATUSES: readonly CredentialStatus[] = ['pending', 'registered', 'expired'];

export interface Attestation {
  validator: Uint8Array;
  vrfProof: Uint8Array;
  signature: Uint8Array;
}

export interface CredentialRecord {
  id: Uint8Array;
  credentialType: CredentialType;
  /** 1 to 3 for a KYCCredential, 0 otherwise */
  kycLevel: number;
  issuer: Uint8Array;
  subject: Uint8Array;
  /** SHA-256 of the credential: the only trace of its content on chain */
  hash: Uint8Array;
  evidenceDigest: Uint8Array;
  /** the issuance fee, held until registration (to the attesters) or expiry (back to the issuer) */
  fee: bigint;
  statusList: number;
  statusIndex: number;
  bbs?: BbsKey;
  status: CredentialStatus;
  requestHeight: number;
  /** the last height at which an attestation counts */
  deadlineHeight: number;
  seed: Uint8Array;
  threshold: number;
  attestations: Attestation[];
  /** block time of registration; 0 until then */
  issuedMs: number;
  /** the consensus round of the block that registered it; 0 until then */
  consensusRound: number;
  revokedMs: number | null;
  /** the request transaction */
  txHash: Uint8Array;
}

export function credentialKey(id: Uint8Array): Uint8Array {
  return concatBytes(Uint8Array.of(STATE_PREFIX.credential), id);
}

export function credentialByIssuerKey(issuer: Uint8Array, id: Uint8Array): Uint8Array {
  return concatBytes(Uint8Array.of(STATE_PREFIX.credentialByIssuer), issuer, id);
}

export function credentialBySubjectKey(subject: Uint8Array, id: Uint8Array): Uint8Array {
  return concatBytes(Uint8Array.of(STATE_PREFIX.credentialBySubject), subject, id);
}

export function issuerCounterKey(issuer: Uint8Array): Uint8Array {
  return concatBytes(Uint8Array.of(STATE_PREFIX.credentialIssuer), issuer);
}

export function revocationListKey(issuer: Uint8Array, list: number): Uint8Array {
  return new ByteWriter().u8(STATE_PREFIX.revocationList).bytes(issuer).u32(list).finish();
}

/** The value of an index entry: the key says everything. */
export const INDEX_MARKER = Uint8Array.of(1);

/**
 * id[16] ‖ type u8 ‖ kyc_level u8 ‖ issuer[20] ‖ subject[20] ‖ hash[32] ‖ evidence[32] ‖ fee u128
 * ‖ list u32 ‖ index u32 ‖ bbs? (u8 0 | 1 ‖ key[96] ‖ u16 count) ‖ status u8 ‖ request_height u64
 * ‖ deadline u64 ‖ seed[32] ‖ threshold u16 ‖ u16 n ‖ n × (validator[20] ‖ vrf_proof[80] ‖ sig[64])
 * ‖ issued_ms u64 ‖ consensus_round u64 ‖ revoked u8 (0 | 1 ‖ revoked_ms u64) ‖ tx_hash[32]
 */
export function encodeCredential(c: CredentialRecord): Uint8Array {
  const w = new ByteWriter()
    .bytes(c.id)
    .u8(CREDENTIAL_TYPES.indexOf(c.credentialType))
    .u8(c.kycLevel)
    .bytes(c.issuer)
    .bytes(c.subject)
    .bytes(c.hash)
    .bytes(c.evidenceDigest)
    .u128(c.fee)
    .u32(c.statusList)
    .u32(c.statusIndex)
    .u8(c.bbs ? 1 : 0);
  if (c.bbs) w.bytes(c.bbs.publicKey).u16(c.bbs.messageCount);
  w.u8(STATUSES.indexOf(c.status)).u64(BigInt(c.requestHeight)).u64(BigInt(c.deadlineHeight)).bytes(c.seed).u16(c.threshold).u16(c.attestations.length);
  for (const a of c.attestations) w.bytes(a.validator).bytes(a.vrfProof).bytes(a.signature);
  w.u64(BigInt(c.issuedMs)).u64(BigInt(c.consensusRound)).u8(c.revokedMs === null ? 0 : 1);
  if (c.revokedMs !== null) w.u64(BigInt(c.revokedMs));
  return w.bytes(c.txHash).finish();
}

export function decodeCredential(bytes: Uint8Array): CredentialRecord {
  const r = new ByteReader(bytes);
  const id = r.bytes(CREDENTIAL_ID_LENGTH);
  const credentialType = CREDENTIAL_TYPES[r.u8()];
  if (!credentialType) throw new Error('credential record: unknown type');
  const c: CredentialRecord = {
    id,
    credentialType,
    kycLevel: r.u8(),
    issuer: r.bytes(ADDRESS_LENGTH),
    subject: r.bytes(ADDRESS_LENGTH),
    hash: r.bytes(32),
    evidenceDigest: r.bytes(32),
    fee: r.u128(),
    statusList: r.u32(),
    statusIndex: r.u32(),
    ...(r.u8() === 1 ? { bbs: { publicKey: r.bytes(96), messageCount: r.u16() } } : {}),
    status: status(r.u8()),
    requestHeight: Number(r.u64()),
    deadlineHeight: Number(r.u64()),
    seed: r.bytes(32),
    threshold: r.u16(),
    attestations: [],
    issuedMs: 0,
    consensusRound: 0,
    revokedMs: null,
    txHash: new Uint8Array(0),
  };
  for (let n = r.u16(), i = 0; i < n; i++) {
    c.attestations.push({ validator: r.bytes(ADDRESS_LENGTH), vrfProof: r.bytes(ECVRF_PROOF_LENGTH), signature: r.bytes(64) });
  }
  c.issuedMs = Number(r.u64());
  c.consensusRound = Number(r.u64());
  c.revokedMs = r.u8() === 1 ? Number(r.u64()) : null;
  c.txHash = r.bytes(32);
  r.end();
  return c;
}

function status(n: number): CredentialStatus {
  const s = STATUSES[n];
  if (!s) throw new Error(`credential record: unknown status ${n}`);
  return s;
}

/** The issuer's next revocation position, counted from 0 across its lists. */
export function encodeCounter(next: number): Uint8Array {
  return new ByteWriter().u64(BigInt(next)).finish();
}

export function decodeCounter(bytes: Uint8Array): number {
  const r = new ByteReader(bytes);
  const n = Number(r.u64());
  r.end();
  return n;
}
