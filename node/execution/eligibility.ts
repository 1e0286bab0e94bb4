import { formatAddress } from '../protocol/address.js';
import { bytesEqual, concatBytes } from '../protocol/bytes.js';
import { formatCredentialId } from '../protocol/credential-id.js';
import type { CredentialRecord } from '../protocol/credential-records.js';
import { INITIAL_REPUTATION } from '../protocol/params.js';
import type { PayloadOf } from '../protocol/payloads.js';
import { STATE_PREFIX, type ValidatorRecord } from '../protocol/records.js';
import { readValidatorKycLevel } from './chain-params.js';
import type { PayloadResult } from './context.js';
import { readCredential } from './credential-state.js';
import type { StateOverlay, StateReader } from './overlay.js';
import { readValidator } from './state-access.js';
import { putValidator } from './validator-set.js';

/**
 * The KYC rule of validator eligibility (seed 002; docs/protocol.md, "Validator eligibility"). On
 * a chain whose genesis sets `validator_kyc_level`, a validator joins a set only while it is
 * `qualified`: genesis validators are; anyone else qualifies with ValidatorQualify, naming a
 * registered, unrevoked KYCCredential of at least that level whose subject is the sender's DID.
 * Revoking that credential takes the qualification away (and the validator leaves the set at the
 * next boundary). The link is kept under `0x0b ‖ address` → credential_id[16].
 */

function linkKey(address: Uint8Array): Uint8Array {
  return concatBytes(Uint8Array.of(STATE_PREFIX.validatorCredential), address);
}

export async function readQualifyingCredential(state: StateReader, address: Uint8Array): Promise<Uint8Array | undefined> {
  return state.get(linkKey(address));
}

function emptyRecord(): ValidatorRecord {
  return { staked: 0n, unbonding: [], reputation: INITIAL_REPUTATION, active: false, ed25519PublicKey: new Uint8Array(0), blsPublicKey: new Uint8Array(0) };
}

export async function validatorQualify(state: StateOverlay, sender: Uint8Array, p: PayloadOf<'ValidatorQualify'>): Promise<PayloadResult> {
  const id = formatCredentialId(p.credentialId);
  const c = await readCredential(state, p.credentialId);
  if (!c || c.status !== 'registered') return { failure: `no registered credential ${id}` };
  if (c.revokedMs !== null) return { failure: `credential ${id} is revoked` };
  const level = Math.max(await readValidatorKycLevel(state), 1);
  if (c.credentialType !== 'KYCCredential' || c.kycLevel < level) return { failure: `credential ${id} is not a KYCCredential of level ${level} or higher` };
  if (!bytesEqual(c.subject, sender)) return { failure: `the subject of credential ${id} is not the sender's DID` };
  const prev = await readValidator(state, sender);
  state.put(linkKey(sender), Uint8Array.from(p.credentialId));
  await putValidator(state, sender, { ...(prev ?? emptyRecord()), qualified: true }, prev);
  return { events: [{ type: 'ValidatorQualified', address: formatAddress(sender), credential: id }] };
}

/** After a revocation: a validator that qualified with this credential no longer does. */
export async function disqualifyHolder(state: StateOverlay, c: CredentialRecord): Promise<void> {
  const linked = await readQualifyingCredential(state, c.subject);
  if (!linked || !bytesEqual(linked, c.id)) return;
  state.delete(linkKey(c.subject));
  const v = await readValidator(state, c.subject);
  if (v?.qualified) await putValidator(state, c.subject, { ...v, qualified: false }, v);
}
