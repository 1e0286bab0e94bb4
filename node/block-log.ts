import { toHex } from './protocol/bytes.js';

/**
 * Which log lines committed blocks produce. One info line per block with transactions while such
 * blocks come at most once per interval; faster, the blocks in between go to debug and one info
 * summary per interval covers them, so a busy chain does not flood the log. Empty blocks never get
 * a line of their own at info: an idle chain makes one every idle interval, and each commits only
 * once two more certify it, so their time since proposal is the idle wait, not a delay. Summaries
 * count them, at most one per interval for empty blocks alone. Pure: the caller passes the clock
 * and writes the lines.
 */
export interface CommittedBlockFields {
  seq: number;
  height: number;
  /** the first 12 hex digits of the block hash */
  hash: string;
  txs: number;
  round: number;
  /** from the block's timestamp (its proposal) to its commit here, the wait for the blocks that certify it included */
  since_proposal_ms: number;
}

export interface SummaryFields {
  from_seq: number;
  to_seq: number;
  count: number;
  txs: number;
}

export type BlockLogLine =
  | { level: 'info' | 'debug'; msg: 'committed block'; fields: CommittedBlockFields }
  | { level: 'info'; msg: 'committed blocks'; fields: SummaryFields };

export const BLOCK_LOG_INTERVAL_MS = 1_000;

export class BlockLogLimiter {
  /** the last info line that covered transactions (a block's own line or a summary) */
  private lastInfoAt = -Infinity;
  /** the last summary of empty blocks only, kept apart: an idle chain's summaries never hold back a block with transactions */
  private lastIdleAt = -Infinity;
  private pending: SummaryFields | undefined;

  constructor(private readonly intervalMs = BLOCK_LOG_INTERVAL_MS) {}

  block(fields: CommittedBlockFields, now: number): BlockLogLine[] {
    if (fields.txs > 0 && (this.pending?.txs ?? 0) === 0 && now - this.lastInfoAt >= this.intervalMs) {
      // the empty blocks pending before it are summed up first, so the lines stay in seq order
      const lines: BlockLogLine[] = [...this.flush(now), { level: 'info', msg: 'committed block', fields }];
      this.lastInfoAt = now;
      return lines;
    }
    const p = (this.pending ??= { from_seq: fields.seq, to_seq: fields.seq, count: 0, txs: 0 });
    p.to_seq = fields.seq;
    p.count += 1;
    p.txs += fields.txs;
    return [{ level: 'debug', msg: 'committed block', fields }, ...this.tick(now)];
  }

  /** Call about once per interval, so a summary goes out even when the blocks stop. */
  tick(now: number): BlockLogLine[] {
    if (this.pending === undefined || now - (this.pending.txs > 0 ? this.lastInfoAt : this.lastIdleAt) < this.intervalMs) return [];
    return this.flush(now);
  }

  private flush(now: number): BlockLogLine[] {
    if (this.pending === undefined) return [];
    const summary = this.pending;
    this.pending = undefined;
    if (summary.txs > 0) this.lastInfoAt = now;
    else this.lastIdleAt = now;
    return [{ level: 'info', msg: 'committed blocks', fields: summary }];
  }
}

export function blockLogFields(block: { hash: Uint8Array; header: { height: number; round: number; timestampMs: number } }, seq: number, txs: number, now: number): CommittedBlockFields {
  return {
    seq,
    height: block.header.height,
    hash: toHex(block.hash).slice(0, 12),
    txs,
    round: block.header.round,
    since_proposal_ms: Math.max(0, now - block.header.timestampMs),
  };
}
