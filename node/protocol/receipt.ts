/** Receipts: the outcome of one included transaction. */

/**
 * Social recovery (execution/recovery.ts). A delayed recovery completes in no transaction, so with
 * no event. AccountRecovered (protocol version 2) follows DidRecovered when the old key's account
 * held anything: amounts moved to the new key's address (`unbonding` sums the moved entries).
 */
export type RecoveryEvent =
  | { type: 'RecoveryPolicySet'; did: string; guardians: string[]; threshold: number; delay_blocks: number }
  | { type: 'RecoveryPolicyRemoved'; did: string }
  | { type: 'RecoveryCancelled'; did: string }
  | { type: 'RecoveryStarted'; did: string; new_public_key: string; due_height: number }
  | { type: 'DidRecovered'; did: string; new_public_key: string }
  | { type: 'AccountRecovered'; did: string; from: string; to: string; balance: bigint; staked: bigint; unbonding: bigint };

export type ReceiptEvent =
  | { type: 'Transfer'; from: string; to: string; amount: bigint }
  | { type: 'Stake'; address: string; amount: bigint }
  | { type: 'Unstake'; address: string; amount: bigint; release_ms: number }
  | { type: 'UnbondingReleased'; address: string; amount: bigint }
  | { type: 'DidCreated'; did: string }
  | { type: 'DidDeactivated'; did: string }
  | RecoveryEvent
  | { type: 'ValidatorRegistered'; address: string }
  | { type: 'ValidatorSlashed'; address: string; round: number }
  | { type: 'CredentialRequested'; id: string; issuer: string; subject: string; deadline_height: number }
  | { type: 'CredentialAttested'; id: string; validator: string; attestations: number }
  | { type: 'CredentialRegistered'; id: string; consensus_round: number }
  | { type: 'CredentialRevoked'; id: string; status_list: number; status_index: number }
  | { type: 'ValidatorQualified'; address: string; credential: string }
  | { type: 'VerificationRequested'; request_id: string; requester: string; subject: string; deadline_height: number }
  | { type: 'VerificationAnswered'; request_id: string; validator: string; answers: number }
  | { type: 'VerificationFinalized'; request_id: string; verified: boolean; consensus_round: number }
  /** one answer of a VerificationAnswerBatch that did not apply; the batch's other answers did */
  | { type: 'VerificationAnswerRefused'; request_id: string; validator: string; reason: string };

export interface Receipt {
  tx_hash: string;
  /** `success` or `failed: <reason>` */
  status: string;
  block_height: number;
  fee_paid: bigint;
  events: ReceiptEvent[];
  /** additions to seed 002's shape, for indexers */
  block_hash: string;
  block_seq: number;
  tx_index: number;
}

export const SUCCESS = 'success';

export function failed(reason: string): string {
  return `failed: ${reason}`;
}
