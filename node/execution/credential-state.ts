import { credentialKey, decodeCounter, decodeCredential, encodeCredential, issuerCounterKey, type CredentialRecord } from '../protocol/credential-records.js';
import type { StateOverlay, StateReader } from './overlay.js';

/** Typed reads and writes of credential records; shared by issuance, eligibility and the node's views. */

export async function readCredential(state: StateReader, id: Uint8Array): Promise<CredentialRecord | undefined> {
  const bytes = await state.get(credentialKey(id));
  return bytes ? decodeCredential(bytes) : undefined;
}

export function writeCredential(state: StateOverlay, c: CredentialRecord): void {
  state.put(credentialKey(c.id), encodeCredential(c));
}

/** The issuer's next free revocation position, counted across its lists. */
export async function readIssuerCounter(state: StateReader, issuer: Uint8Array): Promise<number> {
  const bytes = await state.get(issuerCounterKey(issuer));
  return bytes ? decodeCounter(bytes) : 0;
}
