import { ADDRESS_LENGTH } from '../protocol/address.js';
import { PROTOCOL_VERSION_KEY, GOVERNANCE_KEY, VALIDATOR_KYC_LEVEL_KEY } from '../protocol/records.js';
import { LATEST_PROTOCOL_VERSION } from '../protocol/params.js';
import type { StateOverlay, StateReader } from './overlay.js';

/**
 * Chain parameters that genesis fixes and no transaction changes (this protocol version has no
 * governance process): the governance address, whose key may revoke any credential, the KYC
 * level validators need, and the protocol version, which switches rules on (a hard fork is a new
 * version in a new genesis).
 */

export async function readGovernance(state: StateReader): Promise<Uint8Array | undefined> {
  const bytes = await state.get(GOVERNANCE_KEY);
  if (bytes && bytes.length !== ADDRESS_LENGTH) throw new Error(`the governance entry is ${bytes.length} bytes, not ${ADDRESS_LENGTH}`);
  return bytes;
}

export function writeGovernance(state: StateOverlay, address: Uint8Array): void {
  if (address.length !== ADDRESS_LENGTH) throw new RangeError(`a governance address is ${ADDRESS_LENGTH} bytes`);
  state.put(GOVERNANCE_KEY, Uint8Array.from(address));
}

/** 0 when the chain has no KYC rule for validators (no entry: test chains, and chains from before the rule). */
export async function readValidatorKycLevel(state: StateReader): Promise<number> {
  const bytes = await state.get(VALIDATOR_KYC_LEVEL_KEY);
  if (!bytes) return 0;
  if (bytes.length !== 1 || bytes[0]! < 1 || bytes[0]! > 3) throw new Error('the validator KYC level entry is not one byte from 1 to 3');
  return bytes[0]!;
}

export function writeValidatorKycLevel(state: StateOverlay, level: number): void {
  if (!Number.isInteger(level) || level < 1 || level > 3) throw new RangeError(`a validator KYC level is 1 to 3, got ${level}`);
  state.put(VALIDATOR_KYC_LEVEL_KEY, Uint8Array.of(level));
}

/** 1 when genesis named no version (chains from before versions existed). */
export async function readProtocolVersion(state: StateReader): Promise<number> {
  const bytes = await state.get(PROTOCOL_VERSION_KEY);
  if (!bytes) return 1;
  if (bytes.length !== 1 || bytes[0]! < 2 || bytes[0]! > LATEST_PROTOCOL_VERSION) throw new Error(`the protocol version entry is not one byte from 2 to ${LATEST_PROTOCOL_VERSION}`);
  return bytes[0]!;
}

/** Version 1 is written as no entry, so a version-1 genesis keeps the state root it always had. */
export function writeProtocolVersion(state: StateOverlay, version: number): void {
  if (!Number.isInteger(version) || version < 1 || version > LATEST_PROTOCOL_VERSION) throw new RangeError(`a protocol version is 1 to ${LATEST_PROTOCOL_VERSION}, got ${version}`);
  if (version > 1) state.put(PROTOCOL_VERSION_KEY, Uint8Array.of(version));
}
