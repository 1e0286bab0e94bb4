import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ConsensusEngine } from './consensus/engine.js';
import type { Block } from './protocol/block.js';
import { transactionHash } from './protocol/transaction.js';
import type { Mempool } from './mempool/index.js';
import type { NetworkStats } from './network/index.js';
import type { BbsBatchStats, VerifyPoolStats } from './rpc/verification/pool.js';
import type { SignatureCheckerStats } from './crypto/signature-checker.js';
import type { ChainStore } from './state/chain-store.js';

export interface NodeMetrics {
  registry: Registry;
  /** proposal (first seen here) to commit, per committed block */
  commitLatency: Histogram;
  /** admission to this node's mempool to the first block that carries the transaction */
  mempoolToProposal: Histogram;
  /** a block first seen here to its QC known here */
  proposalToQc: Histogram;
  /** a block's QC known here to its commit */
  qcToCommit: Histogram;
  /** time spent in each round, by how it ended: a QC or a TC moved this node on */
  roundDuration: Histogram<'ended'>;
  committedTxs: Counter;
  /** client transactions sent to the coming leaders again (mempool/leader-resend.ts) */
  txResent: Counter;
  /** this validator's attester, by outcome: sent, skipped (not owed), failed */
  attestations: Counter<'result'>;
  /** this validator's answers to verification requests, by outcome: answered, refused, skipped, failed */
  verificationAnswers: Counter<'result'>;
  /** the transactions those answers left in (verification/answer-sender.ts) */
  verificationAnswerTransactions: Counter;
  /** presentations this node took in, by source: rpc, peer, duplicate, refused */
  presentations: Counter<'source'>;
  /** JSON-RPC busy answers (-32010), by reason (rpc/errors.ts BUSY_REASONS) */
  rpcBusy: Counter<'reason'>;
}

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10];
/** finer in the range round timeouts are chosen from */
const ROUND_BUCKETS = [0.025, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 1.25, 1.5, 2, 3, 4, 6, 10, 30];

/**
 * Prometheus metrics, served as text at `/metrics` on the RPC port. Gauges and engine counters
 * are read at scrape time; the histograms are fed by the composition root from engine events.
 */
export function createMetrics(deps: {
  engine: ConsensusEngine;
  mempool: Mempool;
  store: ChainStore;
  network?: { peerCount(): number; stats(): NetworkStats };
  verifier?: { stats(): VerifyPoolStats; bbsBatches(): BbsBatchStats };
  /** this validator's presentation checks waiting or running (verification/answerer.ts) */
  verification?: { backlog(): number };
  signatures?: { stats(): SignatureCheckerStats };
}): NodeMetrics {
  const registry = new Registry();
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({ name, help, registers: [registry], collect() { this.set(read()); } });
  const counter = (name: string, help: string, read: () => number) =>
    new Counter({ name, help, registers: [registry], collect() { this.reset(); this.inc(read()); } });
  const engine = () => deps.engine.metrics();
  gauge('ledger_height', 'height of the latest committed block', () => deps.store.head()?.height ?? 0);
  gauge('ledger_seq', 'seq of the latest committed block', () => deps.store.head()?.seq ?? 0);
  gauge('ledger_round', 'current consensus round', () => engine().round);
  gauge('ledger_consensus_round_timeout_seconds', 'the timeout of a round entered now, before backoff: the base, or 4 times the p95 of the recent rounds', () => engine().roundTimeoutMs / 1000);
  gauge('ledger_peers', 'connected peers', () => deps.network?.peerCount() ?? 0);
  gauge('ledger_mempool_transactions', 'transactions in the mempool', () => deps.mempool.size);
  gauge('ledger_mempool_bytes', 'bytes of transactions in the mempool', () => deps.mempool.bytes);
  gauge('ledger_signature_checks_pending', 'transaction signatures waiting for or inside a worker thread (mempool.verifyThreads)', () => deps.signatures?.stats().pending ?? 0);
  counter('ledger_signature_checks_total', 'transaction signatures this node checked (admission and blocks; each once)', () => deps.signatures?.stats().checked ?? 0);
  gauge('ledger_rpc_verify_pending', 'expensive verifications (BBS proofs) waiting or running in the worker pool', () => deps.verifier?.stats().pending ?? 0);
  gauge('ledger_rpc_verify_queued_cost', 'work units of verification waiting or running in the worker pool (bounded by rpc.verifyMaxQueuedCost)', () => deps.verifier?.stats().queuedCost ?? 0);
  counter('ledger_bbs_batches_total', 'BBS proof batches sent to the worker pool, each sharing one pairing check', () => deps.verifier?.bbsBatches().batches ?? 0);
  counter('ledger_bbs_batched_proofs_total', 'BBS proofs in those batches: divided by ledger_bbs_batches_total, the mean batch', () => deps.verifier?.bbsBatches().proofs ?? 0);
  gauge('ledger_verification_checks_pending', 'presentation checks of this validator\'s committee seats waiting or running; from verification.backlogBusy (32), new verification work is answered busy', () => deps.verification?.backlog() ?? 0);
  gauge('ledger_consensus_validators', 'validators in the current set', () => deps.engine.validators.size);
  gauge('ledger_consensus_epoch', 'current epoch (the validator set changes at each)', () => engine().epoch);
  gauge('ledger_consensus_halted', '1 when this node stopped signing because its state disagrees with a quorum-certified block', () => (engine().halted ? 1 : 0));
  counter('ledger_consensus_epoch_changes_total', 'epoch boundaries this node crossed since it started', () => engine().epochChanges);
  counter('ledger_consensus_votes_sent_total', 'votes this node signed and sent', () => engine().votesSent);
  counter('ledger_consensus_votes_received_total', 'votes received from peers', () => engine().votesReceived);
  counter('ledger_consensus_proposals_total', 'blocks this node proposed', () => engine().proposals);
  counter('ledger_consensus_qcs_formed_total', 'quorum certificates this node aggregated', () => engine().qcsFormed);
  counter('ledger_consensus_tcs_formed_total', 'timeout certificates this node aggregated', () => engine().tcsFormed);
  counter('ledger_consensus_timeouts_total', 'rounds this node timed out', () => engine().timeouts);
  counter('ledger_consensus_pairing_checks_total', 'BLS aggregate verifications', () => engine().pairingChecks);
  counter('ledger_consensus_evidence_total', 'equivocations recorded', () => deps.engine.evidence().length);
  const labelled = (name: string, help: string, read: () => Record<string, number>) =>
    new Counter({
      name,
      help,
      labelNames: ['reason'],
      registers: [registry],
      collect() {
        this.reset();
        for (const [reason, n] of Object.entries(read())) this.inc({ reason }, n);
      },
    });
  labelled('ledger_consensus_dropped_total', 'consensus messages dropped, by reason', () => engine().dropped);
  const net = () => deps.network?.stats();
  counter('ledger_p2p_frames_in_total', 'frames received from peers', () => net()?.framesIn ?? 0);
  counter('ledger_p2p_frames_out_total', 'frames sent to peers', () => net()?.framesOut ?? 0);
  counter('ledger_p2p_bytes_in_total', 'bytes received from peers', () => net()?.bytesIn ?? 0);
  counter('ledger_p2p_bytes_out_total', 'bytes sent to peers', () => net()?.bytesOut ?? 0);
  counter('ledger_p2p_penalties_total', 'penalties given to peers', () => net()?.penalties ?? 0);
  counter('ledger_p2p_bans_total', 'peers banned', () => net()?.bans ?? 0);
  labelled('ledger_p2p_dropped_total', 'peer-to-peer frames dropped, by reason', () => net()?.dropped ?? {});
  const histogram = (name: string, help: string) => new Histogram({ name, help, buckets: LATENCY_BUCKETS, registers: [registry] });
  return {
    registry,
    commitLatency: histogram('ledger_commit_latency_seconds', 'time from a block first seen here (proposal) to its commit'),
    mempoolToProposal: histogram('ledger_mempool_to_proposal_seconds', 'time from admission to this mempool to the first block carrying the transaction'),
    proposalToQc: histogram('ledger_consensus_proposal_to_qc_seconds', 'time from a block first seen here to its QC'),
    qcToCommit: histogram('ledger_consensus_qc_to_commit_seconds', 'time from a block QC known here to the block commit'),
    roundDuration: new Histogram({
      name: 'ledger_consensus_round_seconds',
      help: 'time this node spent in a round, by how it ended (qc: certified progress, tc: timed out); the round timeout should sit well above the qc tail',
      labelNames: ['ended'],
      buckets: ROUND_BUCKETS,
      registers: [registry],
    }),
    committedTxs: new Counter({ name: 'ledger_committed_transactions_total', help: 'transactions committed', registers: [registry] }),
    txResent: new Counter({
      name: 'ledger_tx_resent_total',
      help: 'client transactions sent to the coming leaders again, no block having carried them two rounds after their send',
      registers: [registry],
    }),
    attestations: new Counter({
      name: 'ledger_attestations_total',
      help: 'credential requests this validator handled: attestation sent, skipped (not selected, not a member, already done) or failed',
      labelNames: ['result'],
      registers: [registry],
    }),
    verificationAnswers: new Counter({
      name: 'ledger_verification_answers_total',
      help: 'presentations this validator handled: answered on chain, refused (not the subject\'s, over-disclosing), skipped (not selected, already answered, request closed) or failed',
      labelNames: ['result'],
      registers: [registry],
    }),
    verificationAnswerTransactions: new Counter({
      name: 'ledger_verification_answer_transactions_total',
      help: 'transactions this validator\'s answers left in: ledger_verification_answers_total{result="answered"} divided by this is the mean batch',
      registers: [registry],
    }),
    presentations: new Counter({
      name: 'ledger_presentations_total',
      help: 'presentations this node took in: from its RPC, from a peer, a duplicate already relayed, or refused by the precheck',
      labelNames: ['source'],
      registers: [registry],
    }),
    rpcBusy: new Counter({
      name: 'ledger_rpc_busy_total',
      help: 'JSON-RPC requests answered busy (-32010, HTTP 503), by reason: mempool_full, sender_limit, overloaded, event_loop_lag, verify_queue_full',
      labelNames: ['reason'],
      registers: [registry],
    }),
  };
}

/** Feeds the histograms from engine events; the mempool stamps admissions, blocks carry the transactions. */
export function observeConsensus(m: NodeMetrics, o: { chainId: string; engine: ConsensusEngine; mempool: Mempool; now?: () => number }): void {
  const { engine, mempool } = o;
  const now = o.now ?? Date.now;
  engine.on('block', (b: Block) => {
    const at = now();
    for (const tx of b.transactions) {
      const entry = mempool.get(transactionHash(o.chainId, tx));
      if (entry) m.mempoolToProposal.observe((at - entry.admittedAtMs) / 1000);
    }
  });
  engine.on('certified', (e: { latencyMs: number }) => m.proposalToQc.observe(e.latencyMs / 1000));
  let roundStarted: number | undefined;
  engine.on('round', (e: { via: string }) => {
    const at = now();
    // 'start' and 'epoch' open a round without ending one that was timed here
    if (roundStarted !== undefined && (e.via === 'qc' || e.via === 'tc')) m.roundDuration.observe({ ended: e.via }, (at - roundStarted) / 1000);
    roundStarted = at;
  });
  engine.on('commit', (e: { latencyMs?: number; qcToCommitMs?: number }) => {
    if (e.latencyMs !== undefined) m.commitLatency.observe(e.latencyMs / 1000);
    if (e.qcToCommitMs !== undefined) m.qcToCommit.observe(e.qcToCommitMs / 1000);
  });
}
