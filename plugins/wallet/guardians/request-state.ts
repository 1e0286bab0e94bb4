import { LedgerError } from '../../../node/errors.js';
import { toHex } from '../../../node/protocol/bytes.js';
import { parseDid } from '../../../node/protocol/did.js';
import { recoveryMessage, verifyRecovery, type RecoveryTarget } from '../../../node/protocol/recovery.js';
import { SUCCESS } from '../../../node/protocol/receipt.js';
import type { WalletBase } from '../services.js';
import { activeDid, forbidden } from './policy.js';
import type { RecoveryRequest } from './store.js';

/**
 * What a recovery request is, read from the chain, and the guardian signatures it collects:
 * shared by the initiation (guardians/initiate.ts) and the later steps (guardians/recovery.ts).
 */

export type RecoveryStatus = 'collecting' | 'ready' | 'submitted' | 'pending' | 'completed' | 'failed' | 'expired';

export interface RequestState {
  status: RecoveryStatus;
  /** why, for `failed` and `expired` */
  reason: string | null;
  /** for `pending`: the height at which the chain completes the recovery */
  dueHeight: number | null;
}

type Base = Pick<WalletBase, 'chain' | 'network' | 'chainId' | 'now'>;

/** The request's status from the chain: the stored record says only open, submitted, expired or superseded. */
export async function requestState(base: Base, r: RecoveryRequest): Promise<RequestState> {
  const at = (status: RecoveryStatus, reason: string | null = null, dueHeight: number | null = null) => ({ status, reason, dueHeight });
  const { identifier } = parseDid(r.subjectDid);
  const record = await base.chain.did(identifier);
  if (record?.publicKey && toHex(record.publicKey) === r.newPublicKey) return at('completed');
  if (r.txHash !== null) {
    const receipt = await base.chain.receipt(r.txHash);
    if (!receipt) return at('submitted');
    if (receipt.status !== SUCCESS) return at('failed', receipt.status.replace(/^failed: /, ''));
    const pending = (await base.chain.recoveryPolicy(identifier))?.pending;
    if (pending && pending.new_public_key === r.newPublicKey) return at('pending', null, pending.due_height);
    return at('failed', 'the recovery was cancelled by the owner (a SetRecoveryPolicy during the delay) or voided by a change to the DID');
  }
  if (r.status === 'superseded') return at('failed', `a start for another key that proved more work took this request's place (request ${r.supersededBy}); initiate again`);
  if (r.status === 'expired' || Date.parse(r.expiresAt) <= base.now()) return at('expired', `this recovery request expired at ${r.expiresAt}`);
  if (!record?.active) return at('failed', `${r.subjectDid} is deactivated`);
  if (record.versionId !== r.versionId) {
    return at('failed', `the DID changed since the request was made (versionId ${r.versionId}, now ${record.versionId}): the guardians' signatures no longer count; initiate a new request`);
  }
  return at(r.approvals.length >= r.threshold ? 'ready' : 'collecting');
}

/** collecting or ready: guardians may still approve it */
export const isCollecting = (s: RequestState): boolean => s.status === 'collecting' || s.status === 'ready';

export function recoveryTarget(chainId: string, r: Pick<RecoveryRequest, 'subjectDid' | 'newPublicKey' | 'versionId'>): RecoveryTarget {
  return { chainId, did: r.subjectDid, newPublicKey: Buffer.from(r.newPublicKey, 'hex'), versionId: r.versionId };
}

/** hex of the exact bytes each guardian signs */
export const messageHex = (chainId: string, r: Pick<RecoveryRequest, 'subjectDid' | 'newPublicKey' | 'versionId'>): string => toHex(recoveryMessage(recoveryTarget(chainId, r)));

/**
 * A guardian's approval of `r`: `guardianDid` must be one of `guardians` (403), active (409), and
 * `signature` must verify under its current key over the recovery message (400).
 */
export async function checkApproval(base: Base, r: Pick<RecoveryRequest, 'subjectDid' | 'newPublicKey' | 'versionId' | 'guardians'>, guardianDid: string, signature: string): Promise<void> {
  if (!r.guardians.includes(guardianDid)) throw forbidden(`${guardianDid} is not a guardian of this recovery`, 'NOT_A_GUARDIAN');
  const guardian = await activeDid(base, guardianDid, 'guardianDid').catch((err: unknown) => {
    if (err instanceof LedgerError) throw conflict('GUARDIAN_DID_NOT_ACTIVE', `${guardianDid} cannot sign a recovery: ${err.message}`);
    throw err;
  });
  if (!verifyRecovery(guardian.publicKey, Buffer.from(signature, 'hex'), recoveryTarget(base.chainId, r))) {
    throw new LedgerError('BAD_RECOVERY_SIGNATURE', `the signature does not verify under the current key of ${guardianDid} over the recovery message (versionId ${r.versionId})`, 'invalid', { field: 'signature' });
  }
}

export function conflict(code: string, message: string): LedgerError {
  return new LedgerError(code, message, 'conflict');
}

export const iso = (ms: number): string => new Date(ms).toISOString();
