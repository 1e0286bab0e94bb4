import { ADDRESS_LENGTH } from '../protocol/address.js';
import { GOVERNANCE_KEY } from '../protocol/records.js';
import type { StateOverlay, StateReader } from './overlay.js';

/**
 * The governance address: set by genesis or absent, never changed by a transaction (this protocol
 * version has no governance process). Its key may revoke any credential.
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
