import { invalid } from '../errors.js';
import { ADDRESS_LENGTH } from './address.js';
import { ByteReader, ByteWriter, bytesEqual, concatBytes, toHex } from './bytes.js';
import { didForIdentifier } from './did.js';
import { STATE_PREFIX } from './records.js';

/**
 * Social recovery state (docs/protocol.md, "Social recovery"): each DID's policy and its pending
 * recovery, both keyed by the DID's 20-byte identifier. Guardians are stored as identifiers: they
 * are DIDs of this chain's network. Changing an encoding is a hard fork.
 */

export const MAX_GUARDIANS = 10;
export const MAX_RECOVERY_DELAY_BLOCKS = 1_000_000;

export interface RecoveryPolicy {
  /** identifiers of guardian DIDs, in the order the owner gave them; 1 to 10, distinct */
  guardians: Uint8Array[];
  /** 1 to guardians.length */
  threshold: number;
  delayBlocks: number;
}

export interface PendingRecovery {
  newPublicKey: Uint8Array;
  /** the height whose block completes the recovery, after its transactions */
  dueHeight: number;
  /** the DID's versionId the guardians signed: a change to the DID since then voids the recovery */
  versionId: number;
  /** the DidRecover transaction: the DID's txHash once the recovery completes */
  txHash: Uint8Array;
}

/** The JSON of `ledger_getRecoveryPolicy`. */
export interface RecoveryPolicyRpc {
  guardians: string[];
  threshold: number;
  delay_blocks: number;
  pending: null | { new_public_key: string; due_height: number };
}

export function recoveryPolicyKey(identifier: Uint8Array): Uint8Array {
  return keyed(STATE_PREFIX.recoveryPolicy, identifier);
}

export function pendingRecoveryKey(identifier: Uint8Array): Uint8Array {
  return keyed(STATE_PREFIX.pendingRecovery, identifier);
}

function keyed(prefix: number, identifier: Uint8Array): Uint8Array {
  if (identifier.length !== ADDRESS_LENGTH) throw invalid('BAD_STATE_KEY', `state identifiers are ${ADDRESS_LENGTH} bytes`);
  return concatBytes(Uint8Array.of(prefix), identifier);
}

/**
 * The numeric rules of a policy, shared by both payload decoders and the record decoder. No
 * guardians with threshold 0 and delay 0 is the payload that removes a policy; a stored policy
 * always has guardians. Returns what is wrong, or undefined.
 */
export function policyProblem(guardians: number, threshold: number, delayBlocks: number): string | undefined {
  if (!Number.isSafeInteger(delayBlocks) || delayBlocks < 0 || delayBlocks > MAX_RECOVERY_DELAY_BLOCKS) return `delay_blocks must be an integer from 0 to ${MAX_RECOVERY_DELAY_BLOCKS}`;
  if (guardians > MAX_GUARDIANS) return `at most ${MAX_GUARDIANS} guardians`;
  if (guardians === 0) return threshold === 0 && delayBlocks === 0 ? undefined : 'a policy without guardians (its removal) has threshold 0 and delay_blocks 0';
  if (!Number.isSafeInteger(threshold) || threshold < 1 || threshold > guardians) return `threshold must be an integer from 1 to the number of guardians (${guardians})`;
  return undefined;
}

/** u8 threshold ‖ u32 delay_blocks ‖ u8 n ‖ n × identifier[20] */
export function encodeRecoveryPolicy(p: RecoveryPolicy): Uint8Array {
  const w = new ByteWriter().u8(p.threshold).u32(p.delayBlocks).u8(p.guardians.length);
  for (const g of p.guardians) w.bytes(g);
  return w.finish();
}

export function decodeRecoveryPolicy(bytes: Uint8Array): RecoveryPolicy {
  const r = new ByteReader(bytes);
  const threshold = r.u8();
  const delayBlocks = r.u32();
  const n = r.u8();
  const problem = n === 0 ? 'a stored policy has guardians' : policyProblem(n, threshold, delayBlocks);
  if (problem) throw invalid('BAD_RECOVERY_RECORD', `recovery policy: ${problem}`);
  const guardians: Uint8Array[] = [];
  for (let i = 0; i < n; i++) {
    const g = r.bytes(ADDRESS_LENGTH);
    if (guardians.some((x) => bytesEqual(x, g))) throw invalid('BAD_RECOVERY_RECORD', 'recovery policy: a guardian is listed twice');
    guardians.push(g);
  }
  r.end();
  return { guardians, threshold, delayBlocks };
}

/** new_public_key[32] ‖ u64 due_height ‖ u64 version_id ‖ tx_hash[32] */
export function encodePendingRecovery(p: PendingRecovery): Uint8Array {
  return new ByteWriter().bytes(p.newPublicKey).u64(BigInt(p.dueHeight)).u64(BigInt(p.versionId)).bytes(p.txHash).finish();
}

export function decodePendingRecovery(bytes: Uint8Array): PendingRecovery {
  const r = new ByteReader(bytes);
  const p = { newPublicKey: r.bytes(32), dueHeight: Number(r.u64()), versionId: Number(r.u64()), txHash: r.bytes(32) };
  r.end();
  return p;
}

export function recoveryPolicyRpc(network: string, policy: RecoveryPolicy, pending: PendingRecovery | undefined): RecoveryPolicyRpc {
  return {
    guardians: policy.guardians.map((g) => didForIdentifier(network, g)),
    threshold: policy.threshold,
    delay_blocks: policy.delayBlocks,
    pending: pending ? { new_public_key: toHex(pending.newPublicKey), due_height: pending.dueHeight } : null,
  };
}
