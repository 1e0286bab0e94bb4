import { sign, verify } from '../crypto/ed25519.js';
import { blake3 } from '../crypto/hash.js';
import { ByteWriter, utf8 } from './bytes.js';

/**
 * Credential attestation committees (docs/protocol.md, "Credential issuance"): stake-weighted
 * sortition with each validator's own ECVRF. Pure functions of values fixed on chain.
 *
 * - seed = BLAKE3("ledger-committee-v1" ‖ str(chain_id) ‖ parent_hash[32] ‖ credential_id[16]),
 *   where parent_hash is the parent of the block that includes the request: fixed before that
 *   block is built, and unknown to the requester when it signs.
 * - validator i evaluates ECVRF-EDWARDS25519-SHA512-TAI over the seed with its Ed25519 key;
 *   with n > 21 validators it is selected when u < 21·w_i / W, u being the first 8 bytes of beta
 *   as a big-endian fraction of 2^64 (expected committee size 21); with n ≤ 21 every validator
 *   is in the committee, and the proof still binds the attestation to this request's seed.
 * - threshold: 14 attestations, or ceil(2n/3) when n < 21.
 */

export const COMMITTEE_SIZE = 21;
export const COMMITTEE_THRESHOLD = 14;
export const COMMITTEE_DOMAIN = 'ledger-committee-v1';
export const ATTESTATION_DOMAIN = 'ledger-attestation-v1';

export function committeeSeed(chainId: string, parentHash: Uint8Array, credentialId: Uint8Array): Uint8Array {
  return blake3(new ByteWriter().bytes(utf8(COMMITTEE_DOMAIN)).str(chainId).bytes(parentHash).bytes(credentialId).finish());
}

export const VERIFICATION_COMMITTEE_DOMAIN = 'ledger-verification-committee-v1';

/** A verification request's committee, drawn as issuance's: BLAKE3(domain ‖ str(chain_id) ‖ parent_hash[32] ‖ BLAKE3(requestId)[32]). */
export function verificationCommitteeSeed(chainId: string, parentHash: Uint8Array, requestKey: Uint8Array): Uint8Array {
  return blake3(new ByteWriter().bytes(utf8(VERIFICATION_COMMITTEE_DOMAIN)).str(chainId).bytes(parentHash).bytes(requestKey).finish());
}

/** How many validators a committee is drawn to hold: all of them up to 21. */
export function committeeSize(n: number): number {
  return Math.min(n, COMMITTEE_SIZE);
}

/** How many attestations register a credential when the set has `n` validators. */
export function attestationThreshold(n: number): number {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`a validator set has at least one member, got ${n}`);
  return n >= COMMITTEE_SIZE ? COMMITTEE_THRESHOLD : Math.ceil((2 * n) / 3);
}

/** Whether a VRF output selects a validator of weight `weight` in a set of `n` members weighing `total`. */
export function isSelected(beta: Uint8Array, weight: bigint, total: bigint, n: number): boolean {
  if (n <= COMMITTEE_SIZE) return true;
  if (weight <= 0n || total <= 0n) return false;
  const u = new DataView(beta.buffer, beta.byteOffset, 8).getBigUint64(0);
  // u / 2^64 < 21·w / W, in integers
  return u * total < BigInt(COMMITTEE_SIZE) * weight * (1n << 64n);
}

/**
 * What a committee member signs: the credential's hash, bound to the chain and the request.
 * "ledger-attestation-v1" ‖ str(chain_id) ‖ credential_id[16] ‖ credential_hash[32]
 */
export function attestationMessage(chainId: string, credentialId: Uint8Array, credentialHash: Uint8Array): Uint8Array {
  return new ByteWriter().bytes(utf8(ATTESTATION_DOMAIN)).str(chainId).bytes(credentialId).bytes(credentialHash).finish();
}

export function signAttestation(seed: Uint8Array, chainId: string, credentialId: Uint8Array, credentialHash: Uint8Array): Uint8Array {
  return sign(seed, attestationMessage(chainId, credentialId, credentialHash));
}

export function verifyAttestation(publicKey: Uint8Array, signature: Uint8Array, chainId: string, credentialId: Uint8Array, credentialHash: Uint8Array): boolean {
  try {
    return verify(publicKey, attestationMessage(chainId, credentialId, credentialHash), signature);
  } catch {
    return false;
  }
}
