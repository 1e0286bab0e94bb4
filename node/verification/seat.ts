import { sha256 } from '../crypto/hash.js';
import { ecvrfProofToHash, ecvrfProve } from '../crypto/ecvrf.js';
import type { EpochValidatorSet } from '../execution/validator-set.js';
import { addressBytesFromPublicKey } from '../protocol/address.js';
import { bytesEqual } from '../protocol/bytes.js';
import { COMMITTEE_SIZE, isSelected } from '../protocol/committee.js';
import type { VerificationRecord } from '../protocol/verification-records.js';

/**
 * A validator's seat on a verification request's committee (docs/protocol.md, "Who answers").
 *
 * Up to 21 validators, the whole set is the committee: no VRF is drawn, and the answer carries no
 * proof. Only `threshold` answers are needed, so the members take turns: in the request's answer
 * order (members sorted by SHA-256(seed ‖ address)), the first `threshold` answer at once, and the
 * others stand by, answering only when the request is still open after a delay. A response then
 * costs `threshold` presentation checks and answers, not one per member, and a member that is
 * down or slow costs a delay, never the response.
 *
 * Past 21 validators, the VRF draws the committee, and every member drawn answers at once.
 */
export type Seat = { vrfProof?: Uint8Array; standby: boolean } | { skip: string };

export function committeeSeat(v: VerificationRecord, set: EpochValidatorSet | undefined, self: { seed: Uint8Array; publicKey: Uint8Array }): Seat {
  if (v.status !== 'pending') return { skip: `request is ${v.status}` };
  if (v.answers.some((a) => bytesEqual(a.publicKey, self.publicKey))) return { skip: 'already answered' };
  const address = addressBytesFromPublicKey(self.publicKey);
  const member = set?.validators.find((m) => bytesEqual(m.address, address));
  if (!set || !member) return { skip: 'not in the current validator set' };
  if (set.validators.length <= COMMITTEE_SIZE) {
    return { standby: answerRank(v.seed, set.validators.map((m) => m.address), address) >= v.threshold };
  }
  const vrfProof = ecvrfProve(self.seed, v.seed);
  const total = set.validators.reduce((n, m) => n + m.weight, 0n);
  if (!isSelected(ecvrfProofToHash(vrfProof), member.weight, total, set.validators.length)) return { skip: 'not selected for this committee' };
  return { vrfProof, standby: false };
}

/** Where `address` stands in a request's answer order: 0 answers first. Every member computes the same order from the seed. */
export function answerRank(seed: Uint8Array, members: Uint8Array[], address: Uint8Array): number {
  const keyOf = (a: Uint8Array) => sha256(Uint8Array.of(...seed, ...a));
  const mine = keyOf(address);
  return members.filter((m) => !bytesEqual(m, address) && Buffer.compare(keyOf(m), mine) < 0).length;
}
