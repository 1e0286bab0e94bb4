import {
  accountKey,
  decodeAccount,
  decodeDid,
  decodeValidator,
  didKey,
  EMPTY_ACCOUNT,
  encodeAccount,
  encodeDid,
  encodeValidator,
  validatorKey,
  type Account,
  type DidRecord,
  type ValidatorRecord,
} from '../protocol/records.js';
import { parseDid } from '../protocol/did.js';
import type { StateOverlay, StateReader } from './overlay.js';

/** Typed reads and writes of state entries over any reader; shared by execution and the node's views. */

export async function readAccount(state: StateReader, address: Uint8Array): Promise<Account> {
  const bytes = await state.get(accountKey(address));
  return bytes ? decodeAccount(bytes) : { ...EMPTY_ACCOUNT };
}

export async function readValidator(state: StateReader, address: Uint8Array): Promise<ValidatorRecord | undefined> {
  const bytes = await state.get(validatorKey(address));
  return bytes ? decodeValidator(bytes) : undefined;
}

export async function readDid(state: StateReader, identifier: Uint8Array): Promise<DidRecord | undefined> {
  const bytes = await state.get(didKey(identifier));
  return bytes ? decodeDid(bytes) : undefined;
}

export function writeAccount(state: StateOverlay, address: Uint8Array, a: Account): void {
  state.put(accountKey(address), encodeAccount(a));
}

export function writeValidator(state: StateOverlay, address: Uint8Array, v: ValidatorRecord): void {
  state.put(validatorKey(address), encodeValidator(v));
}

export function writeDid(state: StateOverlay, identifier: Uint8Array, d: DidRecord): void {
  state.put(didKey(identifier), encodeDid(d));
}

export async function credit(state: StateOverlay, address: Uint8Array, amount: bigint): Promise<void> {
  if (amount === 0n) return;
  const a = await readAccount(state, address);
  writeAccount(state, address, { ...a, balance: a.balance + amount });
}

/** Takes `amount` from the balance; undefined (and no write) when the balance is short. */
export async function debit(state: StateOverlay, address: Uint8Array, amount: bigint): Promise<Account | undefined> {
  const a = await readAccount(state, address);
  if (a.balance < amount) return undefined;
  const next = { ...a, balance: a.balance - amount };
  writeAccount(state, address, next);
  return next;
}

/** A DID of this chain's network that exists and is active, or why not; `role` names it in the failure. */
export async function readActiveDid(
  state: StateReader,
  network: string,
  did: string,
  role: string,
): Promise<{ identifier: Uint8Array; record: DidRecord } | { failure: string }> {
  const parsed = parseDid(did);
  if (parsed.network !== network) return { failure: `${role} ${did} belongs to network ${parsed.network}, not ${network}` };
  const record = await readDid(state, parsed.identifier);
  if (!record) return { failure: `${role} not found: ${did}` };
  if (!record.active) return { failure: `${role} is deactivated: ${did}` };
  return { identifier: parsed.identifier, record };
}
