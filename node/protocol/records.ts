import { invalid } from '../errors.js';
import { ADDRESS_LENGTH } from './address.js';
import { ByteReader, ByteWriter, concatBytes } from './bytes.js';
import type { ServiceEndpoint } from './payloads.js';

/**
 * The entries of chain state. Each is stored under a one-byte prefix plus its identifier, and its
 * canonical encoding is what the state tree commits to. Changing an encoding is a hard fork.
 */
export const STATE_PREFIX = { account: 0x01, validator: 0x02, did: 0x03 } as const;

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
  active: boolean;
  /** keys registered at genesis; empty for an account that has only staked */
  ed25519PublicKey: Uint8Array;
  blsPublicKey: Uint8Array;
}

export function encodeValidator(v: ValidatorRecord): Uint8Array {
  const w = new ByteWriter().u128(v.staked).u16(v.unbonding.length);
  for (const u of v.unbonding) w.u128(u.amount).u64(BigInt(u.releaseMs));
  return w
    .u16(v.reputation)
    .u8(v.active ? 1 : 0)
    .u16(v.ed25519PublicKey.length)
    .bytes(v.ed25519PublicKey)
    .u16(v.blsPublicKey.length)
    .bytes(v.blsPublicKey)
    .finish();
}

export function decodeValidator(bytes: Uint8Array): ValidatorRecord {
  const r = new ByteReader(bytes);
  const staked = r.u128();
  const unbonding: UnbondingEntry[] = [];
  for (let n = r.u16(), i = 0; i < n; i++) unbonding.push({ amount: r.u128(), releaseMs: Number(r.u64()) });
  const v = { staked, unbonding, reputation: r.u16(), active: r.u8() === 1, ed25519PublicKey: r.bytes(r.u16()), blsPublicKey: r.bytes(r.u16()) };
  r.end();
  return v;
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
