import { addressBytesFromPublicKey } from '../protocol/address.js';
import { bytesEqual, toHex } from '../protocol/bytes.js';
import { authenticationKeys } from '../protocol/did-document.js';
import { parseDid } from '../protocol/did.js';
import type { PayloadOf } from '../protocol/payloads.js';
import type { ReceiptEvent } from '../protocol/receipt.js';
import type { DidRecord } from '../protocol/records.js';
import {
  decodePendingRecovery,
  decodeRecoveryPolicy,
  encodePendingRecovery,
  encodeRecoveryPolicy,
  pendingRecoveryKey,
  recoveryPolicyKey,
  type PendingRecovery,
  type RecoveryPolicy,
} from '../protocol/recovery-records.js';
import { verifyRecovery } from '../protocol/recovery.js';
import type { BlockContext, PayloadResult, TxContext } from './context.js';
import type { StateOverlay, StateReader } from './overlay.js';
import { moveRecoveredAccount } from './account-recovery.js';
import { readProtocolVersion } from './chain-params.js';
import { MAX_TASKS_PER_HEIGHT, SCHEDULED_KINDS, scheduleTask, taskCount } from './scheduled.js';
import { readActiveDid, readDid, writeDid } from './state-access.js';

/**
 * Social recovery (docs/protocol.md, "Social recovery"). The owner names guardians with
 * SetRecoveryPolicy; enough guardians' signatures in a DidRecover move the DID to a new key, at
 * once or after the policy's delay. During the delay the owner's key still works, and any
 * SetRecoveryPolicy cancels the recovery: that is what the delay is for.
 */

export async function readRecoveryPolicy(state: StateReader, identifier: Uint8Array): Promise<RecoveryPolicy | undefined> {
  const bytes = await state.get(recoveryPolicyKey(identifier));
  return bytes ? decodeRecoveryPolicy(bytes) : undefined;
}

export async function readPendingRecovery(state: StateReader, identifier: Uint8Array): Promise<PendingRecovery | undefined> {
  const bytes = await state.get(pendingRecoveryKey(identifier));
  return bytes ? decodePendingRecovery(bytes) : undefined;
}

/** Deletes the pending recovery, if any: its scheduled task then does nothing. */
async function cancelPending(state: StateOverlay, identifier: Uint8Array): Promise<boolean> {
  if (!(await state.get(pendingRecoveryKey(identifier)))) return false;
  state.delete(pendingRecoveryKey(identifier));
  return true;
}

/** Sets, replaces or (with no guardians) removes the policy; signed by the DID's authentication key. */
export async function setRecoveryPolicy(
  state: StateOverlay,
  ctx: BlockContext,
  p: PayloadOf<'SetRecoveryPolicy'>,
  signer: Uint8Array,
  txHash: Uint8Array,
): Promise<PayloadResult> {
  const target = await readActiveDid(state, ctx.network, p.did, 'DID');
  if ('failure' in target) return target;
  const { identifier, record } = target;
  if (!authenticationKeys(record).some((k) => bytesEqual(k, signer))) return { failure: 'not signed by an authentication key of the DID' };
  const events: ReceiptEvent[] = [];
  if (p.guardians.length === 0) {
    if (!(await state.get(recoveryPolicyKey(identifier)))) return { failure: `DID ${record.did} has no recovery policy to remove` };
    state.delete(recoveryPolicyKey(identifier));
    events.push({ type: 'RecoveryPolicyRemoved', did: record.did });
  } else {
    const guardians: Uint8Array[] = [];
    for (const g of p.guardians) {
      const guardian = await readActiveDid(state, ctx.network, g, 'guardian DID');
      if ('failure' in guardian) return guardian;
      guardians.push(guardian.identifier);
    }
    state.put(recoveryPolicyKey(identifier), encodeRecoveryPolicy({ guardians, threshold: p.threshold, delayBlocks: p.delayBlocks }));
    events.push({ type: 'RecoveryPolicySet', did: record.did, guardians: [...p.guardians], threshold: p.threshold, delay_blocks: p.delayBlocks });
  }
  if (await cancelPending(state, identifier)) events.unshift({ type: 'RecoveryCancelled', did: record.did });
  // versionId moves on any change to the DID: it voids guardian signatures made before
  writeDid(state, identifier, { ...record, updatedMs: ctx.timestampMs, versionId: record.versionId + 1, txHash });
  return { events };
}

/** Checks the guardians' signatures and replaces the key now, or schedules it after the policy's delay. Anyone may send it. */
export async function didRecover(state: StateOverlay, ctx: TxContext, p: PayloadOf<'DidRecover'>, txHash: Uint8Array): Promise<PayloadResult> {
  const target = await readActiveDid(state, ctx.network, p.did, 'DID');
  if ('failure' in target) return target;
  const { identifier, record } = target;
  const policy = await readRecoveryPolicy(state, identifier);
  if (!policy) return { failure: `DID ${record.did} has no recovery policy` };
  const pending = await readPendingRecovery(state, identifier);
  if (pending) return { failure: `a recovery of ${record.did} is already pending, due at height ${pending.dueHeight}` };
  if (p.signatures.length < policy.threshold) return { failure: `${p.signatures.length} guardian signatures, the policy needs ${policy.threshold}` };

  const signers: Uint8Array[] = [];
  for (const s of p.signatures) {
    const g = parseDid(s.guardian);
    if (signers.some((x) => bytesEqual(x, g.identifier))) return { failure: `guardian ${s.guardian} signed twice` };
    if (g.network !== ctx.network || !policy.guardians.some((x) => bytesEqual(x, g.identifier))) return { failure: `${s.guardian} is not a guardian of ${record.did}` };
    signers.push(g.identifier);
  }
  const message = { chainId: ctx.chainId, did: record.did, newPublicKey: p.newPublicKey, versionId: record.versionId };
  for (const [i, s] of p.signatures.entries()) {
    const guardian = await readDid(state, signers[i]!);
    if (!guardian?.active || !guardian.publicKey) return { failure: `guardian DID is deactivated: ${s.guardian}` };
    if (!verifyRecovery(guardian.publicKey, s.signature, message)) {
      return { failure: `the signature of guardian ${s.guardian} does not verify (its current key, the DID at version ${record.versionId})` };
    }
  }
  if (record.publicKey && bytesEqual(record.publicKey, p.newPublicKey)) return { failure: 'the new key is the current key of the DID' };

  const newKey = toHex(p.newPublicKey);
  if (policy.delayBlocks === 0) return { events: await replaceKey(state, ctx, identifier, record, p.newPublicKey, txHash) };
  const dueHeight = ctx.height + policy.delayBlocks;
  if ((await taskCount(state, dueHeight)) >= MAX_TASKS_PER_HEIGHT) return { failure: `too much is already due at height ${dueHeight}; send the recovery again in a later block` };
  state.put(pendingRecoveryKey(identifier), encodePendingRecovery({ newPublicKey: p.newPublicKey, dueHeight, versionId: record.versionId, txHash }));
  await scheduleTask(state, dueHeight, { kind: SCHEDULED_KINDS.recoveryDue, id: identifier });
  return { events: [{ type: 'RecoveryStarted', did: record.did, new_public_key: newKey, due_height: dueHeight }] };
}

/**
 * The recoveryDue task, after the transactions of the due block. It completes only the recovery
 * that is due at this height, and only if the DID is active and unchanged since the guardians
 * signed; a cancelled or voided recovery leaves the DID as it is.
 */
export async function completeRecovery(state: StateOverlay, ctx: BlockContext, identifier: Uint8Array): Promise<void> {
  const pending = await readPendingRecovery(state, identifier);
  if (!pending || pending.dueHeight !== ctx.height) return;
  state.delete(pendingRecoveryKey(identifier));
  const record = await readDid(state, identifier);
  if (!record?.active || record.versionId !== pending.versionId) return;
  await replaceKey(state, ctx, identifier, record, pending.newPublicKey, pending.txHash);
}

/**
 * The DID keeps its identifier; only the key of `#key-1` changes. From protocol version 2 the old
 * key's account (balance and stake) moves to the new key's address (account-recovery.ts).
 */
async function replaceKey(state: StateOverlay, ctx: BlockContext, identifier: Uint8Array, record: DidRecord, publicKey: Uint8Array, txHash: Uint8Array): Promise<ReceiptEvent[]> {
  writeDid(state, identifier, { ...record, publicKey: Uint8Array.from(publicKey), updatedMs: ctx.timestampMs, versionId: record.versionId + 1, txHash });
  const events: ReceiptEvent[] = [{ type: 'DidRecovered', did: record.did, new_public_key: toHex(publicKey) }];
  if (record.publicKey && (await readProtocolVersion(state)) >= 2) {
    const moved = await moveRecoveredAccount(state, record.did, addressBytesFromPublicKey(record.publicKey), addressBytesFromPublicKey(publicKey));
    if (moved) events.push(moved);
  }
  return events;
}
