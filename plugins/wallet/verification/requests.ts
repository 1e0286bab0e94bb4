import { invalid, LedgerError } from '../../../node/errors.js';
import type { ChainView } from '../../../node/plugins/chain-view.js';
import { parseDid } from '../../../node/protocol/did.js';
import type { RequiredClaim } from '../../../node/protocol/verification.js';
import type { VerificationRequestView } from '../../../node/rpc/ledger/verification-view.js';

/**
 * The verification requests that name the user's DID as their subject (issue 27), read from
 * committed state through the chain view (`verificationRequests`, as ledger_getVerificationRequests
 * answers). The wallet only shows them: it never holds the user's key, so the presentation is
 * built and signed on the device (the client's `presentForVerification`) and sent to
 * `ledger_submitPresentation`. Each item is the request as the relying party signed it, where it
 * stands, and, once final, the committee's outcome per claim.
 */

export const REQUEST_STATUSES = ['pending', 'final', 'expired', 'all'] as const;
export type RequestStatusFilter = (typeof REQUEST_STATUSES)[number];
export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;
/** a request id is 1 to 256 characters (seed 002) */
export const MAX_REQUEST_ID = 256;

export interface ClaimOutcome {
  type: string;
  satisfied: boolean;
  /** a stable code when not satisfied (docs/protocol.md) */
  reason: string | null;
  proofType: 'direct' | 'zk-snark';
  issuer: string;
}

export interface VerificationRequestItem {
  requestId: string;
  status: 'pending' | 'final' | 'expired';
  requester: { did: string; purpose: string };
  requiredClaims: RequiredClaim[];
  /** smallest units, paid to the committee that answers (back to the requester on expiry) */
  fee: string;
  /** Unix ms, as the requester signed it */
  requestedAt: number;
  requestHeight: number;
  /** the last height at which the committee's answers count */
  deadlineHeight: number;
  /** blocks until the deadline while pending, else null */
  blocksLeft: number | null;
  answers: number;
  threshold: number;
  committeeSize: number;
  txHash: string;
  /** the response once final, else null */
  outcome: { verified: boolean; claims: ClaimOutcome[]; finalHeight: number | null; finalizedAt: number; presentationHash: string | null; agreedValidators: number } | null;
}

export interface RequestList {
  items: VerificationRequestItem[];
  nextCursor: string | null;
}

export class VerificationRequests {
  constructor(private readonly d: { chain: Pick<ChainView, 'verificationRequests' | 'verificationRequest' | 'verificationResponse' | 'head'> }) {}

  /**
   * The subject's requests, newest first (by request height, then id), `limit` a page. The chain
   * view lists a subject's newest MAX_LISTED_REQUESTS (100) of a status; the cursor is the last
   * item's position, so a request added meanwhile does not shift the pages.
   */
  async list(subjectDid: string, filter: { status: RequestStatusFilter; limit: number; cursor?: string }): Promise<RequestList> {
    const after = filter.cursor === undefined ? undefined : decodeCursor(filter.cursor);
    const views = (await this.d.chain.verificationRequests(parseDid(subjectDid).identifier, filter.status)).sort(newestFirst);
    const start = after === undefined ? 0 : views.findIndex((v) => newestFirst(v, after) > 0);
    const page = start < 0 ? [] : views.slice(start, start + filter.limit);
    const more = start >= 0 && start + filter.limit < views.length;
    const items = await Promise.all(page.map((v) => this.item(v)));
    const last = page.at(-1);
    return { items, nextCursor: more && last ? encodeCursor(last) : null };
  }

  /** One request, when its subject is `subjectDid`; any other is not found (it is not the caller's to see here). */
  async get(subjectDid: string, requestId: string): Promise<VerificationRequestItem> {
    const v = await this.d.chain.verificationRequest(requestId);
    if (!v || v.request.subject.did !== subjectDid) throw new LedgerError('REQUEST_NOT_FOUND', `no verification request ${JSON.stringify(requestId.slice(0, 64))} asks about your DID`, 'not_found');
    return this.item(v);
  }

  private async item(v: VerificationRequestView): Promise<VerificationRequestItem> {
    const r = v.request;
    const head = this.d.chain.head()?.height ?? v.request_height;
    const response = v.status === 'final' ? await this.d.chain.verificationResponse(r.requestId) : null;
    return {
      requestId: r.requestId,
      status: v.status,
      requester: { did: r.requester.did, purpose: r.requester.purpose },
      requiredClaims: r.requiredClaims,
      fee: r.fee,
      requestedAt: r.timestamp,
      requestHeight: v.request_height,
      deadlineHeight: v.deadline_height,
      blocksLeft: v.status === 'pending' ? Math.max(0, v.deadline_height - head) : null,
      answers: v.answers,
      threshold: v.threshold,
      committeeSize: v.committee_size,
      txHash: v.tx_hash,
      outcome:
        response && response.status === 'final'
          ? {
              verified: response.verified,
              claims: response.claims.map((c) => ({ type: c.type, satisfied: c.satisfied, reason: c.reason ?? null, proofType: c.proofType, issuer: c.issuer })),
              finalHeight: response.finalHeight,
              finalizedAt: response.timestamp,
              presentationHash: response.presentationHash,
              agreedValidators: response.consensusProof.agreedValidators,
            }
          : null,
    };
  }
}

type Position = Pick<VerificationRequestView, 'request_height'> & { request: { requestId: string } };

/** Higher request height first, then request id ascending: a total order, so pages never repeat or skip. */
function newestFirst(a: Position, b: Position): number {
  if (a.request_height !== b.request_height) return b.request_height - a.request_height;
  return a.request.requestId < b.request.requestId ? -1 : a.request.requestId > b.request.requestId ? 1 : 0;
}

function encodeCursor(p: Position): string {
  return Buffer.from(JSON.stringify([p.request_height, p.request.requestId]), 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): Position {
  const bad = () => invalid('CURSOR_INVALID', 'cursor is not a nextCursor this API returned', { field: 'cursor' });
  if (cursor.length > 1024 || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw bad();
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (!Array.isArray(value) || value.length !== 2 || !Number.isSafeInteger(value[0]) || typeof value[1] !== 'string' || value[1].length > MAX_REQUEST_ID) throw bad();
  return { request_height: value[0] as number, request: { requestId: value[1] as string } };
}
