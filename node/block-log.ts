import { toHex } from './protocol/bytes.js';

/**
 * Which log lines committed blocks produce. One info line per block while blocks come at most once
 * per interval; faster, the blocks in between go to debug and one info summary per interval covers
 * them, so a busy chain does not flood the log. Pure: the caller passes the clock and writes the lines.
 */
export interface CommittedBlockFields {
  seq: number;
  height: number;
  /** the first 12 hex digits of the block hash */
  hash: string;
  txs: number;
  round: number;
  /** from the block's timestamp to its commit here */
  latency_ms: number;
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
  private lastInfoAt = -Infinity;
  private pending: SummaryFields | undefined;

  constructor(private readonly intervalMs = BLOCK_LOG_INTERVAL_MS) {}

  block(fields: CommittedBlockFields, now: number): BlockLogLine[] {
    if (this.pending === undefined && now - this.lastInfoAt >= this.intervalMs) {
      this.lastInfoAt = now;
      return [{ level: 'info', msg: 'committed block', fields }];
    }
    const p = (this.pending ??= { from_seq: fields.seq, to_seq: fields.seq, count: 0, txs: 0 });
    p.to_seq = fields.seq;
    p.count += 1;
    p.txs += fields.txs;
    return [{ level: 'debug', msg: 'committed block', fields }, ...this.tick(now)];
  }

  /** Call about once per interval, so a summary goes out even when the blocks stop. */
  tick(now: number): BlockLogLine[] {
    if (this.pending === undefined || now - this.lastInfoAt < this.intervalMs) return [];
    const summary = this.pending;
    this.pending = undefined;
    this.lastInfoAt = now;
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
    latency_ms: Math.max(0, now - block.header.timestampMs),
  };
}
