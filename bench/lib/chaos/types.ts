import type { ChaosCheckCode } from './checks.js';
import type { GapSummary } from './gaps.js';
import type { LoadStats } from './load.js';

/**
 * one: kill -9 a random validator; leader: the leader of the current round; two: two validators at
 * once (with four, no quorum is left); hook: kill -9 one, restart it with a crash point's
 * environment so that it kills itself at a chosen moment, then restart it plainly.
 */
export type CycleKind = 'one' | 'leader' | 'two' | 'hook';

/** A way for a node to crash itself, e.g. LEDGER_TEST_CRASH_AT_SEQ: kill -9 once seq n is durable. */
export interface CrashPoint {
  /** shown in reports */
  name: string;
  /** the environment of the start that is to crash, given the chain's head seq at that start */
  env(headSeq: number): NodeJS.ProcessEnv;
}

export interface ChaosOptions {
  validators: number;
  /** every random choice (victim, moment, downtime) follows from it */
  seed: number;
  /** transfers a second */
  rate: number;
  senders: number;
  /** at most this many kill/restart cycles */
  cycles: number;
  /** no cycle starts after this long from the start of the load (default: no limit) */
  deadlineMs?: number;
  /** cycle kinds in order, repeated; default 'one' and 'leader' at random, with 'two' every `twoDownEvery`-th cycle */
  plan?: CycleKind[];
  twoDownEvery?: number;
  /** taken in turn by 'hook' cycles */
  crashPoints?: CrashPoint[];
  /** how long a killed node stays down (default 2-10 s) */
  downMs?: [number, number];
  /** load alone before each kill (default 1-4 s): the kill lands at a random moment of it */
  quietMs?: [number, number];
  /** a restarted node must be caught up this long after it was spawned (default CATCH_UP_BOUND_MS) */
  catchUpMs?: number;
  /** "caught up": within this many blocks of the live head (default 2) */
  catchUpLag?: number;
  /** true (default): stop at the first failure; false: try to recover and go on (a soak) */
  stopOnFailure?: boolean;
  /** where the devnet is laid out (default: a temp dir) */
  dir?: string;
  /** keep the devnet dir (node logs): never (default), on failure, or always */
  keepDir?: 'never' | 'on-failure' | 'always';
  logLevel?: string;
  /** progress lines */
  log?(line: string): void;
  /** after each cycle, its figures */
  onCycle?(c: CycleResult): void;
}

export interface RestartFigures {
  node: number;
  /** from spawn to serving RPC */
  ready_ms: number;
  /** from spawn to within `catchUpLag` blocks of the live head (or, alone, committing again); null when it did not */
  caught_up_ms: number | null;
  /** blocks the live nodes committed from the kill to the restart */
  missed_blocks: number;
  /** from spawn to its first vote (votes sent > 0 on /metrics; proposals with one validator) */
  votes_ms: number | null;
}

export interface ChaosFailure {
  cycle: number;
  code: ChaosCheckCode | 'ERROR';
  message: string;
}

export interface CycleResult {
  index: number;
  kind: CycleKind;
  victims: number[];
  /** the round whose leader was killed */
  leader_round?: number;
  crash_point?: string;
  /** ms from the start of the load to the kill */
  at_ms: number;
  seq_at_kill: number;
  down_ms: number;
  /** a live node's commits while the victim was down (none with one validator or two down) */
  gaps?: GapSummary;
  /** two down: no live node committed from 1.5 s after the kill to the restart */
  stalled?: boolean;
  /** two down: from spawning both to the next commit anywhere */
  resume_ms?: number | null;
  restarts: RestartFigures[];
  checked_blocks: number;
  checked_receipts: number;
  failure?: ChaosFailure;
}

export interface ChaosResult {
  seed: number;
  validators: number;
  rate: number;
  senders: number;
  started_at: string;
  duration_ms: number;
  catch_up_bound_ms: number;
  /** the devnet dir, when kept */
  dir?: string;
  cycles: CycleResult[];
  failures: ChaosFailure[];
  load: LoadStats & { landed: number; pending_at_end: number };
  final: { seq: number; checked_blocks: number; checked_receipts: number } | undefined;
}
