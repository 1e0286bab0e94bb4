import { verificationFinalized, verificationRequestedRow } from '../../event-rows.js';
import type { VerificationRow, VerificationStatus } from '../../rows.js';
import type { Batch, Source } from './batch.js';
import { verificationRow, type VerificationState } from './tables.js';

/**
 * Verification requests, from a transaction's receipt events, into the batch's rows; `changed`
 * collects each changed request as it stands after the block (for the feed). Expiry has no
 * event: as execution does, a request still pending at its deadline height expires after that
 * block's transactions (expireDue), from the deadlines the batch keeps in `dues`.
 */
export async function indexVerification(b: Batch, s: Source, changed: Map<string, VerificationRow>): Promise<void> {
  for (const e of s.receipt.events) {
    switch (e.type) {
      case 'VerificationRequested': {
        const made = verificationRequestedRow(e, s.tx, s.row);
        if (!made) break;
        const row: VerificationState = { ...made, block_seq: s.seq, tx_index: s.row.tx_index, changed_seq: s.seq };
        b.verifications.set(e.request_id, row);
        b.add('verifications');
        b.add('verifications_pending');
        b.dues.set(e.request_id, e.deadline_height);
        changed.set(e.request_id, verificationRow(row));
        break;
      }
      case 'VerificationAnswered':
        await change(b, e.request_id, s.seq, changed, { answers: e.answers });
        break;
      case 'VerificationFinalized': {
        const row = await change(b, e.request_id, s.seq, changed, verificationFinalized(e, s.row), 'final');
        if (row && e.verified) b.add('verifications_verified');
        break;
      }
      default:
        break;
    }
  }
}

/** After a block's transactions: every request still pending whose deadline is this height or before expires. */
export async function expireDue(b: Batch, seq: number, height: number, changed: Map<string, VerificationRow>): Promise<void> {
  for (const [id, deadline] of [...b.dues]) {
    if (deadline <= height) await change(b, id, seq, changed, {}, 'expired');
  }
}

/** Applies `delta` to a pending request; with `status`, moves its count and drops its deadline. */
async function change(b: Batch, id: string, seq: number, changed: Map<string, VerificationRow>, delta: Partial<VerificationRow>, status?: VerificationStatus): Promise<VerificationState | undefined> {
  const row = await b.verifications.get(id);
  if (!row || row.status !== 'pending') return undefined;
  Object.assign(row, delta, { changed_seq: seq });
  if (status && status !== row.status) {
    b.add(`verifications_${row.status}`, -1);
    b.add(`verifications_${status}`);
    row.status = status;
    b.dues.delete(id);
  }
  b.verifications.set(id, row);
  changed.set(id, verificationRow(row));
  return row;
}
