/**
 * When a leader proposes. Pure: the engine passes the times and counts, and waits what this says.
 *
 * Every block costs each validator a fixed amount (a BLS signature, its vote's aggregation and
 * check, several LevelDB writes, messages to every peer) whatever it carries. A leader that
 * proposes the moment it may fills the machine with blocks of one transaction each: the block
 * rate, not the load, sets the CPU. So a block with work to do waits until `minIntervalMs` has
 * passed since its parent was seen here, unless a full block's worth (`fullBlockTransactions`) is
 * already waiting, so the interval never caps throughput. A round that took longer than the
 * interval (a slow machine, a large block, a far peer) adds no wait at all: the interval is a
 * floor on the time between blocks, never an extra delay on top of a slow round.
 */
export interface PacingConfig {
  /** least time between a parent block and its child, when the child is not full */
  minIntervalMs: number;
  /** this many transactions waiting make a full block, proposed at once */
  fullBlockTransactions: number;
  /** with nothing to do, the leader proposes an empty block after this long in its round */
  idleIntervalMs: number;
}

export interface PacingState {
  /** since the parent (the high QC's block) was first seen here; Infinity when it was not seen (committed before a restart) */
  sinceParentMs: number;
  /** since this round's proposal was scheduled */
  sinceScheduledMs: number;
  /** transactions waiting that the next block could include */
  readyTransactions: number;
  /** an uncommitted block on the branch carries transactions: more blocks are needed to commit them */
  uncommittedTransactions: boolean;
  /** the next block is above the epoch's boundary: the epoch change waits for it */
  pastBoundary: boolean;
}

/** Milliseconds to wait before proposing; 0 means now. */
export function proposalDelay(s: PacingState, cfg: PacingConfig): number {
  if (s.pastBoundary || s.readyTransactions >= cfg.fullBlockTransactions) return 0;
  if (s.readyTransactions > 0 || s.uncommittedTransactions) return Math.max(0, cfg.minIntervalMs - s.sinceParentMs);
  return Math.max(0, cfg.idleIntervalMs - s.sinceScheduledMs);
}
