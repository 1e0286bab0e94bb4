import type { Receipt } from '../../../../node/protocol/receipt.js';
import type { Transaction } from '../../../../node/protocol/transaction.js';
import { verificationFinalized, verificationRequestedRow } from '../../event-rows.js';
import type { TxRow, VerificationRow, VerificationStatus } from '../../rows.js';
import { pad, scan, type Batch } from './layout.js';
import type { BinarySublevel } from '../../../../node/state/db.js';

/**
 * Verification requests and their outcomes (issue 27), from VerificationRequest transactions and
 * the receipt events VerificationRequested, VerificationAnswered and VerificationFinalized. Only
 * what the chain holds is indexed: DIDs, claim types, the fee, answer counts and the outcome. A
 * presentation never reaches the chain, so no personal data reaches the explorer.
 *
 *   ver:<request id>                         verification row (with its position)
 *   verseq:<pos>                             -> id, every request in chain order
 *   verstatus:<status>:<pos>                 -> id, moved when the status changes
 *   versubject:<did>:<pos>, verrequester:<did>:<pos>   -> id
 *   verdue:<deadline 16>:<pos>               -> id, while the request is pending
 *   count:verifications, count:verstatus:<status>, count:verified, count:versubject:<did>,
 *   count:verrequester:<did>
 *
 * Expiry has no event: execution expires a request still pending at its deadline height, after
 * that block's transactions. The indexer applies the same rule from its own `verdue:` entries,
 * so a request is expired in the batch of the block that expired it, caught up or live.
 */

/** As stored: the row and the request's position, which keys its index entries. */
interface Stored extends VerificationRow {
  pos: string;
}

/** A request still pending: where its `verdue:` entry is. */
interface Due {
  deadline: number;
  pos: string;
}

/** id -> due, for the requests pending as of the index's cursor (loaded once, then kept by the indexer). */
export type Dues = Map<string, Due>;

/** The pending requests' deadlines as stored (read once at start; the indexer keeps them after). */
export async function loadDues(store: BinarySublevel): Promise<Dues> {
  const dues: Dues = new Map();
  for await (const [k, id] of scan(store, 'verdue:', 'verdue;')) {
    dues.set(id, { deadline: Number(k.slice(7, 23)), pos: k.slice(24) });
  }
  return dues;
}

/** The row as the API and the feed show it. */
export function verificationRow(s: Stored | VerificationRow): VerificationRow {
  const { pos: _pos, ...row } = s as Stored;
  return row;
}

interface Source {
  tx: Transaction;
  receipt: Receipt;
  row: TxRow;
  pos: string;
}

/**
 * Indexes one transaction's verification events into `b`; `changed` collects the rows as they
 * now stand (by id, for the feed), `dues` the pending requests of the batch.
 */
export async function indexVerification(b: Batch, s: Source, dues: Dues, changed: Map<string, VerificationRow>): Promise<void> {
  for (const e of s.receipt.events) {
    switch (e.type) {
      case 'VerificationRequested': {
        const made = verificationRequestedRow(e, s.tx, s.row);
        if (!made) break;
        const row: Stored = { ...made, pos: s.pos };
        b.put(`ver:${e.request_id}`, row);
        for (const name of ['verseq', `verstatus:pending`, `versubject:${e.subject}`, `verrequester:${e.requester}`]) {
          b.put(`${name}:${s.pos}`, e.request_id);
          await b.add(name === 'verseq' ? 'verifications' : name);
        }
        b.put(dueKey(e.deadline_height, s.pos), e.request_id);
        dues.set(e.request_id, { deadline: e.deadline_height, pos: s.pos });
        changed.set(e.request_id, verificationRow(row));
        break;
      }
      case 'VerificationAnswered':
        await update(b, e.request_id, changed, () => ({ answers: e.answers }));
        break;
      case 'VerificationFinalized': {
        const row = await update(b, e.request_id, changed, () => verificationFinalized(e, s.row), 'final', dues);
        if (row && e.verified) await b.add('verified');
        break;
      }
      default:
        break;
    }
  }
}

/**
 * After a block's transactions: every request still pending whose deadline is this height or
 * before expires, as execution expires it at its deadline height.
 */
export async function expireDue(b: Batch, height: number, dues: Dues, changed: Map<string, VerificationRow>): Promise<void> {
  for (const [id, due] of [...dues]) {
    if (due.deadline <= height) await update(b, id, changed, () => ({}), 'expired', dues);
  }
}

/** Applies `change` to a pending row; with `status`, moves its status entry and drops its due entry. */
async function update(b: Batch, id: string, changed: Map<string, VerificationRow>, change: () => Partial<VerificationRow>, status?: VerificationStatus, dues?: Dues): Promise<Stored | undefined> {
  const row = await b.get<Stored>(`ver:${id}`);
  if (!row || row.status !== 'pending') return undefined;
  const next: Stored = { ...row, ...change(), ...(status ? { status } : {}) };
  if (status && status !== row.status) {
    b.del(`verstatus:${row.status}:${row.pos}`);
    await b.add(`verstatus:${row.status}`, -1);
    b.put(`verstatus:${status}:${row.pos}`, id);
    await b.add(`verstatus:${status}`);
    b.del(dueKey(row.deadline_height, row.pos));
    dues?.delete(id);
  }
  b.put(`ver:${id}`, next);
  changed.set(id, verificationRow(next));
  return next;
}

const dueKey = (deadline: number, pos: string): string => `verdue:${pad(deadline, 16)}:${pos}`;
