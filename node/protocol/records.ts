import { invalid } from '../errors.js';
import { ADDRESS_LENGTH } from './address.js';
import { ByteReader, ByteWriter, concatBytes } from './bytes.js';
import { BLS_PUBLIC_KEY_LENGTH } from './params.js';
import type { ServiceEndpoint } from './payload-types.js';

/**
 * The entries of chain state. Each is stored under a one-byte prefix plus its identifier, and its
 * canonical encoding is what the state tree commits to. Changing an encoding is a hard fork.
 */
export const STATE_PREFIX = {
  account: 0x01,
  validator: 0x02,
  did: 0x03,
  /** credential records, their issuer and subject indexes, issuers' counters and revocation lists (credential-records.ts) */
  credential: 0x04,
  credentialByIssuer: 0x05,
  credentialBySubject: 0x06,
  credentialIssuer: 0x07,
  revocationList: 0x08,
  /** social recovery: each DID's policy and its pending recovery */
  recoveryPolicy: 0x09,
  pendingRecovery: 0x0a,
  /** the KYC credential a validator qualified with (execution/eligibility.ts) */
  validatorCredential: 0x0b,
  /** verification requests with their answers, and the index by subject (verification-records.ts) */
  verification: 0x0c,
  verificationBySubject: 0x0d,
  chain: 0x10,
  /** work that execution does at the end of a given height (execution/scheduled.ts) */
  scheduled: 0x11,
} as const;

/** Chain-wide entries (one of each), under the `chain` prefix and a one-byte name. */
export const VALIDATOR_SET_KEY = Uint8Array.of(STATE_PREFIX.chain, 0x01);
export const VALIDATOR_CANDIDATES_KEY = Uint8Array.of(STATE_PREFIX.chain, 0x02);
/** the governance address (20 bytes), when genesis names one */
export const GOVERNANCE_KEY = Uint8Array.of(STATE_PREFIX.chain, 0x03);
/** u8: the KYC level a validator needs to be eligible after genesis; absent means no KYC rule */
export const VALIDATOR_KYC_LEVEL_KEY = Uint8Array.of(STATE_PREFIX.chain, 0x04);
/** the protocol version genesis set (one byte); absent: version 1 (docs/protocol.md, "Protocol versions") */
export const PROTOCOL_VERSION_KEY = Uint8Array.of(STATE_PREFIX.chain, 0x05);

export function accountKey(address: Uint8Array): Uint8Array {
  return prefixed(STATE_PREFIX.account, address);
}

export function validatorKey(address: Uint8Array): Uint8Array {
  return prefixed(STATE_PREFIX.validator, address);
}

/** DIDs are keyed by their 20-byte identifier: one network per chain. */
export function didKey(identifier: Uint8Array): Uint8Array {
  return prefixed(STATE_PREFIX.did, identifier);
}

function prefixed(prefix: number, id: Uint8Array): Uint8Array {
  if (id.length !== ADDRESS_LENGTH) throw invalid('BAD_STATE_KEY', `state identifiers are ${ADDRESS_LENGTH} bytes`);
  return concatBytes(Uint8Array.of(prefix), id);
}

export interface Account {
  balance: bigint;
  /** the next expected transaction nonce */
  nonce: bigint;
}

export const EMPTY_ACCOUNT: Readonly<Account> = { balance: 0n, nonce: 0n };

export function encodeAccount(a: Account): Uint8Array {
  return new ByteWriter().u128(a.balance).u64(a.nonce).finish();
}

export function decodeAccount(bytes: Uint8Array): Account {
  const r = new ByteReader(bytes);
  const a = { balance: r.u128(), nonce: r.u64() };
  r.end();
  return a;
}

export interface UnbondingEntry {
  amount: bigint;
  /** block time at which the amount returns to the balance */
  releaseMs: number;
}

export interface ValidatorRecord {
  staked: bigint;
  unbonding: UnbondingEntry[];
  /** 0 to 1000 */
  reputation: number;
  /**
   * A member of the current epoch's validator set. Execution sets it at genesis and at each epoch
   * boundary (execution/validator-set.ts), never on Stake or Unstake: those count from the next epoch.
   */
  active: boolean;
  /** the Ed25519 key of the validator's identity: from genesis or from ValidatorRegister; empty otherwise */
  ed25519PublicKey: Uint8Array;
  /** the BLS vote key (48-byte G1): from genesis or from ValidatorRegister; empty otherwise */
  blsPublicKey: Uint8Array;
  /**
   * Set for good by SubmitEvidence (proven equivocation). A slashed validator is never in a set
   * again. Absent means false; records written before the flag existed encode and decode unchanged.
   */
  slashed?: boolean;
  /**
   * Meets the KYC rule of validator eligibility: a genesis validator on a chain with the rule, or
   * a ValidatorQualify with a KYC credential that has not been revoked since. Absent means false.
   */
  qualified?: boolean;
}

/** The flag bits of the optional trailing byte of a validator record. */
const VALIDATOR_FLAG_SLASHED = 0x01;
const VALIDATOR_FLAG_QUALIFIED = 0x02;
const VALIDATOR_FLAGS = VALIDATOR_FLAG_SLASHED | VALIDATOR_FLAG_QUALIFIED;

/**
 * staked u128 ‖ u16 n ‖ n × (amount u128 ‖ release_ms u64) ‖ reputation u16 ‖ active u8
 * ‖ u16 len ‖ ed25519 key ‖ u16 len ‖ BLS key [‖ flags u8, only when non-zero]
 */
export function encodeValidator(v: ValidatorRecord): Uint8Array {
  const w = new ByteWriter().u128(v.staked).u16(v.unbonding.length);
  for (const u of v.unbonding) w.u128(u.amount).u64(BigInt(u.releaseMs));
  w.u16(v.reputation)
    .u8(v.active ? 1 : 0)
    .u16(v.ed25519PublicKey.length)
    .bytes(v.ed25519PublicKey)
    .u16(v.blsPublicKey.length)
    .bytes(v.blsPublicKey);
  const flags = (v.slashed ? VALIDATOR_FLAG_SLASHED : 0) | (v.qualified ? VALIDATOR_FLAG_QUALIFIED : 0);
  if (flags !== 0) w.u8(flags);
  return w.finish();
}

export function decodeValidator(bytes: Uint8Array): ValidatorRecord {
  const r = new ByteReader(bytes);
  const staked = r.u128();
  const unbonding: UnbondingEntry[] = [];
  for (let n = r.u16(), i = 0; i < n; i++) unbonding.push({ amount: r.u128(), releaseMs: Number(r.u64()) });
  const v: ValidatorRecord = { staked, unbonding, reputation: r.u16(), active: r.u8() === 1, ed25519PublicKey: r.bytes(r.u16()), blsPublicKey: r.bytes(r.u16()) };
  if (r.remaining > 0) {
    const flags = r.u8();
    // one encoding per record: a zero flags byte is never written, and no other bit is defined
    if (flags === 0 || (flags & ~VALIDATOR_FLAGS) !== 0) throw invalid('BAD_VALIDATOR_RECORD', `validator record flags ${flags} are not canonical`);
    if (flags & VALIDATOR_FLAG_SLASHED) v.slashed = true;
    if (flags & VALIDATOR_FLAG_QUALIFIED) v.qualified = true;
  }
  r.end();
  return v;
}

/** One member of an epoch's validator set; the same shape as consensus's `Validator`. */
export interface ValidatorSetMember {
  address: Uint8Array;
  blsPublicKey: Uint8Array;
  weight: bigint;
}

/** The validator set of one epoch, in canonical order (ascending address). */
export interface ValidatorSetRecord {
  epoch: number;
  /** the first height of the epoch */
  firstHeight: number;
  /** heights per epoch (the genesis `epoch_length`, the same for every epoch) */
  length: number;
  validators: ValidatorSetMember[];
}

/** epoch u64 ‖ first_height u64 ‖ length u64 ‖ u16 n ‖ n × (address[20] ‖ bls_public_key[48] ‖ weight u64), addresses ascending */
export function encodeValidatorSet(s: ValidatorSetRecord): Uint8Array {
  const w = new ByteWriter().u64(BigInt(s.epoch)).u64(BigInt(s.firstHeight)).u64(BigInt(s.length)).u16(s.validators.length);
  for (const v of s.validators) {
    if (v.address.length !== ADDRESS_LENGTH || v.blsPublicKey.length !== BLS_PUBLIC_KEY_LENGTH) throw new RangeError('a validator set member needs a 20-byte address and a 48-byte BLS key');
    w.bytes(v.address).bytes(v.blsPublicKey).u64(v.weight);
  }
  return w.finish();
}

export function decodeValidatorSet(bytes: Uint8Array): ValidatorSetRecord {
  const r = new ByteReader(bytes);
  const epoch = Number(r.u64());
  const firstHeight = Number(r.u64());
  const length = Number(r.u64());
  const validators: ValidatorSetMember[] = [];
  for (let n = r.u16(), i = 0; i < n; i++) validators.push({ address: r.bytes(ADDRESS_LENGTH), blsPublicKey: r.bytes(BLS_PUBLIC_KEY_LENGTH), weight: r.u64() });
  r.end();
  ascending(validators.map((v) => v.address), 'validator set');
  return { epoch, firstHeight, length, validators };
}

/**
 * The addresses that could be in the next set (staked at least the tier-1 minimum, a registered BLS
 * key, not slashed), ascending: execution cannot list state by prefix, so it keeps this index.
 * u32 n ‖ n × address[20]
 */
export function encodeCandidates(addresses: readonly Uint8Array[]): Uint8Array {
  const w = new ByteWriter().u32(addresses.length);
  for (const a of addresses) w.bytes(a);
  return w.finish();
}

export function decodeCandidates(bytes: Uint8Array): Uint8Array[] {
  const r = new ByteReader(bytes);
  const n = r.u32();
  const out: Uint8Array[] = [];
  for (let i = 0; i < n; i++) out.push(r.bytes(ADDRESS_LENGTH));
  r.end();
  ascending(out, 'validator candidates');
  return out;
}

function ascending(addresses: Uint8Array[], what: string): void {
  for (let i = 1; i < addresses.length; i++) {
    if (Buffer.compare(addresses[i - 1]!, addresses[i]!) >= 0) throw invalid('BAD_VALIDATOR_SET', `${what}: addresses must be strictly ascending`);
  }
}

export interface DidRecord {
  did: string;
  /** the key of `#key-1`; null once deactivated (the verification methods are emptied) */
  publicKey: Uint8Array | null;
  service: ServiceEndpoint[];
  active: boolean;
  createdMs: number;
  updatedMs: number;
  /** starts at 1 and counts the operations applied to the document */
  versionId: number;
  /** the transaction that last changed the document */
  txHash: Uint8Array;
}

export function encodeDid(d: DidRecord): Uint8Array {
  const w = new ByteWriter().str(d.did).u8(d.publicKey ? 1 : 0);
  if (d.publicKey) w.bytes(d.publicKey);
  w.u8(d.service.length);
  for (const s of d.service) w.str(s.id).str(s.type).str(s.serviceEndpoint);
  return w
    .u8(d.active ? 1 : 0)
    .u64(BigInt(d.createdMs))
    .u64(BigInt(d.updatedMs))
    .u64(BigInt(d.versionId))
    .bytes(d.txHash)
    .finish();
}

export function decodeDid(bytes: Uint8Array): DidRecord {
  const r = new ByteReader(bytes);
  const did = r.str();
  const publicKey = r.u8() === 1 ? r.bytes(32) : null;
  const service: ServiceEndpoint[] = [];
  for (let n = r.u8(), i = 0; i < n; i++) service.push({ id: r.str(), type: r.str(), serviceEndpoint: r.str() });
  const d = {
    did,
    publicKey,
    service,
    active: r.u8() === 1,
    createdMs: Number(r.u64()),
    updatedMs: Number(r.u64()),
    versionId: Number(r.u64()),
    txHash: r.bytes(32),
  };
  r.end();
  return d;
}
