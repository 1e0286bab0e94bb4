import { invalid } from '../errors.js';
import { fromHex, toHex } from './bytes.js';

/**
 * A credential's id is a UUID, written `urn:ledger:credential:<uuid>` (seed 002). On chain it is
 * the UUID's 16 bytes. Inputs accept the URN or the bare UUID, in either case; outputs are the
 * URN in lowercase.
 */

export const CREDENTIAL_URN_PREFIX = 'urn:ledger:credential:';
export const CREDENTIAL_ID_LENGTH = 16;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function parseCredentialId(value: unknown): Uint8Array {
  if (typeof value !== 'string' || value.length > CREDENTIAL_URN_PREFIX.length + 36) {
    throw invalid('BAD_CREDENTIAL_ID', 'a credential id is urn:ledger:credential:<uuid> or a bare UUID');
  }
  const lower = value.toLowerCase();
  const uuid = lower.startsWith(CREDENTIAL_URN_PREFIX) ? lower.slice(CREDENTIAL_URN_PREFIX.length) : lower;
  if (!UUID.test(uuid)) throw invalid('BAD_CREDENTIAL_ID', `not a credential id: ${JSON.stringify(value)} (expected urn:ledger:credential:<uuid>)`);
  return fromHex(uuid.replaceAll('-', ''), CREDENTIAL_ID_LENGTH);
}

export function formatUuid(id: Uint8Array): string {
  const h = toHex(id);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export function formatCredentialId(id: Uint8Array): string {
  if (id.length !== CREDENTIAL_ID_LENGTH) throw new RangeError(`a credential id is ${CREDENTIAL_ID_LENGTH} bytes`);
  return CREDENTIAL_URN_PREFIX + formatUuid(id);
}
