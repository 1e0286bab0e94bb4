import type { CommitTarget } from './chain/app.js';
import type { ConsensusStore } from './consensus/store.js';
import { LedgerError } from './errors.js';

/**
 * Fault injection for the crash tests (never set on a real node): `LEDGER_TEST_CRASH_AT=<point>@<seq>`
 * kills the process with SIGKILL at one step of the commit or vote path, the first time that step
 * runs once the chain has reached block seq `<seq>`. The steps are the durable writes a crash can
 * fall between, in the order one block goes through them:
 *
 * | point | the process dies |
 * |---|---|
 * | `pending-stored` | after a proposed or received block is saved as uncommitted, before the vote for it |
 * | `safety-saved` | after the safety state is saved, before the vote, proposal or timeout it allows is sent |
 * | `block-write` | just before the chain store writes block `<seq>` (its state, receipts and head, in one batch) |
 * | `block-written` | right after that batch is durable, before consensus has cleaned up after it |
 * | `pending-deleted` | after consensus deleted the committed blocks from its store |
 *
 * `LEDGER_TEST_CRASH_AT_SEQ=<n>` is the older spelling of `block-written@<n>`.
 */
export const CRASH_POINTS = ['pending-stored', 'safety-saved', 'block-write', 'block-written', 'pending-deleted'] as const;
export type CrashPoint = (typeof CRASH_POINTS)[number];

export interface CrashPlan {
  point: CrashPoint;
  seq: number;
}

/** The plan the environment asks for, if any; a malformed one is refused rather than ignored. */
export function crashPlanFromEnv(env: NodeJS.ProcessEnv): CrashPlan | undefined {
  const legacy = env.LEDGER_TEST_CRASH_AT_SEQ;
  const spec = env.LEDGER_TEST_CRASH_AT ?? (legacy ? `block-written@${legacy}` : undefined);
  if (!spec) return undefined;
  const m = /^([a-z-]+)@(\d+)$/.exec(spec);
  if (!m || !(CRASH_POINTS as readonly string[]).includes(m[1]!)) {
    throw new LedgerError('BAD_CRASH_PLAN', `LEDGER_TEST_CRASH_AT must be <point>@<seq> with a point among ${CRASH_POINTS.join(', ')}; got ${spec}`, 'invalid');
  }
  return { point: m[1] as CrashPoint, seq: Number(m[2]) };
}

/** Wraps the chain's and consensus's stores so that the process dies at the planned step. */
export function withCrashPoint(plan: CrashPlan, chain: CommitTarget, consensus: ConsensusStore, die: () => never = killSelf): { chain: CommitTarget; consensus: ConsensusStore } {
  const reached = () => (chain.head()?.seq ?? 0) >= plan.seq;
  const after = <A extends unknown[], R>(point: CrashPoint, fn: (...a: A) => Promise<R>) => async (...a: A): Promise<R> => {
    const r = await fn(...a);
    if (plan.point === point && reached()) die();
    return r;
  };
  const wrappedChain: CommitTarget = {
    stateReader: () => chain.stateReader(),
    treeNodes: () => chain.treeNodes(),
    head: () => chain.head(),
    blocks: chain.blocks,
    commitBlock: async (args) => {
      if (plan.point === 'block-write' && args.seq >= plan.seq) die();
      await chain.commitBlock(args);
      if (plan.point === 'block-written' && args.seq >= plan.seq) die();
    },
  };
  const wrappedConsensus: ConsensusStore = {
    loadSafety: () => consensus.loadSafety(),
    saveSafety: after('safety-saved', (s) => consensus.saveSafety(s)),
    putPendingBlock: after('pending-stored', (b) => consensus.putPendingBlock(b)),
    pendingBlocks: () => consensus.pendingBlocks(),
    deletePendingBlocks: after('pending-deleted', (h) => consensus.deletePendingBlocks(h)),
    putEvidence: (e) => consensus.putEvidence(e),
    loadEvidence: () => consensus.loadEvidence(),
    putEpochProof: (e, p) => consensus.putEpochProof(e, p),
    loadEpochProof: (e) => consensus.loadEpochProof(e),
  };
  return { chain: wrappedChain, consensus: wrappedConsensus };
}

function killSelf(): never {
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable: SIGKILL sent');
}
