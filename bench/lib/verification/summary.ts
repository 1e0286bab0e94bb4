import { latencySummary } from '../stats.js';

/**
 * bench/verification's bookkeeping: one record per verification request, times in milliseconds of
 * the bench's performance.now() frame (the commit watcher's times are turned into it), and the
 * figures of a run computed from the records alone.
 */

export interface RequestRecord {
  index: number;
  requestId: string;
  /** when the open-loop schedule meant to send it */
  scheduledAt: number;
  /** first handed to the HTTP client (ledger_submitVerificationRequest) */
  submittedAt?: number;
  txHash?: string;
  /** the block holding the request first seen committed on node 0 */
  committedAt?: number;
  /** the presentation first handed to the HTTP client (ledger_submitPresentation) */
  presentedAt?: number;
  /** the node answered the presentation (prechecked and relayed) */
  presentAnsweredAt?: number;
  /** the block holding the answer that reached the threshold first seen committed on node 0 */
  finalAt?: number;
  verified?: boolean;
  /** busy answers (-32010) to either call, each retried after its retryAfterMs */
  busy: number;
  /** presentation retries because its node did not hold the request yet */
  notYetThere: number;
  /** calls sent again to another node because theirs was down (--kill), and requests sent again because they did not commit */
  resent?: number;
  /** the error code of a call that failed for good */
  error?: string;
  /** for a request not final at the end: its status on node 0 then (pending, expired, or none) */
  endStatus?: string;
}

export type Latency = ReturnType<typeof latencySummary>;

export interface RunFigures {
  offered: number;
  offered_per_s: number;
  submitted: number;
  /** the RPC took it into the mempool */
  accepted: number;
  committed: number;
  presented: number;
  final: number;
  verified: number;
  not_final: number;
  /** of the requests not final at the end, how many by their status then */
  not_final_by_status: Record<string, number>;
  errors: Record<string, number>;
  busy_answers: number;
  presentation_retries_not_yet_committed: number;
  /** calls sent again elsewhere, their node being down, and requests sent again for not committing */
  resent: number;
  /** final responses over the time from the first request sent to the last response final */
  final_per_s: number;
  /** final responses seen while requests were still being sent, over that time */
  final_per_s_while_sending: number;
  /** submit → final response (the figure) */
  submit_to_final_ms: Latency;
  /** the same counted from the schedule: adds the bench's own lag in sending */
  scheduled_to_final_ms: Latency;
  /** presentation sent → final response */
  present_to_final_ms: Latency;
  /** submit → the request's block seen committed */
  submit_to_commit_ms: Latency;
  /** the request seen committed → the presentation sent: the bench's reaction with --present commit, negative with --present submit (presented before the commit) */
  commit_to_present_ms: Latency;
}

const round = (v: number, digits = 2) => Math.round(v * 10 ** digits) / 10 ** digits;

function spans(records: RequestRecord[], from: keyof RequestRecord, to: keyof RequestRecord): number[] {
  const out: number[] = [];
  for (const r of records) {
    const a = r[from];
    const b = r[to];
    if (typeof a === 'number' && typeof b === 'number') out.push(b - a);
  }
  return out;
}

function tally(values: Array<string | undefined>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) if (v !== undefined) out[v] = (out[v] ?? 0) + 1;
  return out;
}

/**
 * The figures of one run. `startedAt` is when the schedule began, `sendEndedAt` when its last
 * request came due; a record's latencies count only when both ends were seen.
 */
export function summarizeRun(records: RequestRecord[], window: { startedAt: number; sendEndedAt: number }): RunFigures {
  const finals = records.filter((r) => r.finalAt !== undefined);
  const lastFinal = Math.max(...finals.map((r) => r.finalAt!));
  const sendSeconds = (window.sendEndedAt - window.startedAt) / 1000;
  const whileSending = finals.filter((r) => r.finalAt! <= window.sendEndedAt).length;
  const notFinal = records.filter((r) => r.finalAt === undefined);
  return {
    offered: records.length,
    offered_per_s: sendSeconds > 0 ? round(records.length / sendSeconds) : records.length,
    submitted: records.filter((r) => r.submittedAt !== undefined).length,
    accepted: records.filter((r) => r.txHash !== undefined).length,
    committed: records.filter((r) => r.committedAt !== undefined).length,
    presented: records.filter((r) => r.presentAnsweredAt !== undefined).length,
    final: finals.length,
    verified: finals.filter((r) => r.verified === true).length,
    not_final: notFinal.length,
    not_final_by_status: tally(notFinal.map((r) => r.endStatus ?? 'unknown')),
    errors: tally(records.map((r) => r.error)),
    busy_answers: records.reduce((n, r) => n + r.busy, 0),
    presentation_retries_not_yet_committed: records.reduce((n, r) => n + r.notYetThere, 0),
    resent: records.reduce((n, r) => n + (r.resent ?? 0), 0),
    final_per_s: finals.length > 0 && lastFinal > window.startedAt ? round((finals.length / (lastFinal - window.startedAt)) * 1000) : 0,
    final_per_s_while_sending: sendSeconds > 0 ? round(whileSending / sendSeconds) : 0,
    submit_to_final_ms: latencySummary(spans(records, 'submittedAt', 'finalAt')),
    scheduled_to_final_ms: latencySummary(spans(records, 'scheduledAt', 'finalAt')),
    present_to_final_ms: latencySummary(spans(records, 'presentedAt', 'finalAt')),
    submit_to_commit_ms: latencySummary(spans(records, 'submittedAt', 'committedAt')),
    commit_to_present_ms: latencySummary(spans(records, 'committedAt', 'presentedAt')),
  };
}

/** What issue 27 aims for; reported against, never asserted. */
export const VERIFICATION_TARGET = { validators: 4, final_per_s: 50, p50_ms: 1000 };

/**
 * Met when the run was offered at least the target rate, answered at least that many a second
 * with every request final, and its p50 submit → final is within the bound.
 */
export function targetVerdict(f: RunFigures): string {
  const t = VERIFICATION_TARGET;
  const p50 = f.submit_to_final_ms.p50;
  const met = f.offered_per_s >= t.final_per_s && f.final_per_s >= t.final_per_s && f.not_final === 0 && p50 <= t.p50_ms;
  const shown = Number.isFinite(p50) ? `${p50} ms` : 'none';
  return `target ${t.validators} validators: >= ${t.final_per_s} final responses/s, p50 <= ${t.p50_ms} ms; offered ${f.offered_per_s}/s, measured ${f.final_per_s}/s (${f.not_final} of ${f.offered} not final), p50 ${shown}: ${met ? 'met' : 'NOT met'}`;
}

/** A latency for a table cell, in seconds with two decimals; "-" when there is none. */
export function seconds(ms: number): string {
  return Number.isFinite(ms) ? (ms / 1000).toFixed(2) : '-';
}
