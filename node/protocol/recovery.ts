import { sign, verify } from '../crypto/ed25519.js';
import { invalid } from '../errors.js';
import { ByteWriter, utf8 } from './bytes.js';

/**
 * The canonical message a guardian signs to move a DID to a new key (docs/protocol.md, "Social
 * recovery: the recovery message"):
 *
 *   "ledger-recovery-v1" ‖ str(chain_id) ‖ str(did) ‖ new_public_key[32] ‖ u64 version_id
 *
 * `version_id` is the DID document's versionId when the guardians sign. Every change to the
 * document raises it, so a set of guardian signatures can be used once, on one chain, for one
 * DID and one new key.
 */

export const RECOVERY_DOMAIN = 'ledger-recovery-v1';

export interface RecoveryTarget {
  chainId: string;
  did: string;
  newPublicKey: Uint8Array;
  versionId: number;
}

export function recoveryMessage(t: RecoveryTarget): Uint8Array {
  if (t.newPublicKey.length !== 32) throw invalid('BAD_PUBLIC_KEY', `the new key is a 32-byte Ed25519 public key, got ${t.newPublicKey.length} bytes`);
  if (!Number.isSafeInteger(t.versionId) || t.versionId < 1) throw invalid('BAD_VERSION', `versionId is an integer from 1, got ${t.versionId}`);
  return new ByteWriter().bytes(utf8(RECOVERY_DOMAIN)).str(t.chainId).str(t.did).bytes(t.newPublicKey).u64(BigInt(t.versionId)).finish();
}

/** A guardian's 64-byte Ed25519 signature, made with its DID's authentication key seed. */
export function signRecovery(guardianSeed: Uint8Array, t: RecoveryTarget): Uint8Array {
  return sign(guardianSeed, recoveryMessage(t));
}

/** Whether `signature` is the guardian key's signature of the recovery; false for malformed input. */
export function verifyRecovery(guardianPublicKey: Uint8Array, signature: Uint8Array, t: RecoveryTarget): boolean {
  try {
    return verify(guardianPublicKey, recoveryMessage(t), signature);
  } catch {
    return false;
  }
}
