import type { EventEmitter } from 'node:events';
import { LedgerError } from '../../errors.js';
import type { Block, QuorumCertificate } from '../../protocol/block.js';
import { bytesEqual, toHex } from '../../protocol/bytes.js';
import { BackupVotes } from '../backup-votes.js';
import type { QuorumCrypto } from '../crypto.js';
import { Divergence, type HaltReport } from '../divergence.js';
import type { EpochContext } from '../epochs.js';
import type { LeaderSchedule } from '../leaders.js';
import type { PacingConfig } from '../pacing.js';
import { OrphanPool } from '../orphans.js';
import { DEFAULT_PACEMAKER, Pacemaker, pacemakerConfig, systemClock, type Clock, type PacemakerConfig, type RoundEntry } from '../pacemaker.js';
import type { ConsensusStore } from '../store.js';
import { BlockTimes } from '../timing.js';
import { BlockTree } from '../tree.js';
import type { ConsensusApp, ConsensusMessage, ConsensusMessageBody, ConsensusTransport, EpochProof, Evidence, Proposal, SafetyState, Timeout, TimeoutCertificate, Vote } from '../types.js';
import type { ValidatorSet } from '../validators.js';

export interface ConsensusEngineOptions {
  chainId: string;
  /** this node's validator address and vote key */
  self: { address: Uint8Array; crypto: QuorumCrypto };
  app: ConsensusApp;
  transport: ConsensusTransport;
  store: ConsensusStore;
  genesis: Block;
  /** the last block the app committed (the genesis block on a fresh chain) */
  committedHead: Block;
  clock?: Clock;
  pacemaker?: Partial<PacemakerConfig>;
  /** an idle leader proposes an empty block after this long (default 1000 ms) */
  idleBlockIntervalMs?: number;
  /** how often an idle leader checks the mempool (default 20 ms) */
  pollIntervalMs?: number;
  /** least time between a block and its child unless the child is full (pacing.ts; default 0) */
  minBlockIntervalMs?: number;
  /** this many ready transactions are proposed at once, whatever the interval (default 1000) */
  fullBlockTransactions?: number;
}

export interface ConsensusMetrics {
  epoch: number;
  round: number;
  highQcRound: number;
  lockedRound: number;
  lastVotedRound: number;
  committedHeight: number;
  committedBlocks: number;
  proposals: number;
  votesSent: number;
  votesReceived: number;
  qcsFormed: number;
  tcsFormed: number;
  timeouts: number;
  /** the timeout a round entered now would get before any failure (pacemaker.ts) */
  roundTimeoutMs: number;
  pairingChecks: number;
  epochChanges: number;
  /** catch-up requests by height (seq) */
  rangeRequests: number;
  lastCommitLatencyMs: number | undefined;
  dropped: Record<string, number>;
  /** true once this node stopped signing because its state disagrees with a quorum */
  halted: boolean;
}

/**
 * The steps one part of the engine takes through another. The parts call each other in a circle
 * (a QC commits, a commit ends the epoch, the epoch proof brings a QC), so none imports another:
 * the engine hands each the steps it needs.
 */
export interface EngineSteps {
  /** a message, as it came off the queue */
  handle(from: Uint8Array, msg: ConsensusMessage): Promise<void>;
  /** false when one of the blocks ended the epoch */
  receiveBlocks(blocks: Block[], from: Uint8Array): Promise<boolean>;
  maybeVote(b: Block): Promise<void>;
  onVote(vote: Vote, trusted: boolean, from?: Uint8Array): Promise<void>;
  relayIfStalled(round: number): Promise<void>;
  processQc(qc: QuorumCertificate, source: Uint8Array | undefined): Promise<void>;
  processTc(tc: TimeoutCertificate): Promise<void>;
  processCertified(b2: Block, qc2: QuorumCertificate): Promise<void>;
  endEpoch(boundary: Block, proof: EpochProof): Promise<void>;
  advance(round: number, via: RoundEntry): void;
  localTimeout(round: number): Promise<void>;
  scheduleProposal(round: number): void;
  cancelProposal(): void;
  requestSync(to: Uint8Array, hash: Uint8Array, height: number): void;
  anyPeer(): Uint8Array;
}

/**
 * What the parts of the engine share: the options, the epoch, safety state and block tree, the
 * per-epoch bookkeeping, the metrics, and the plumbing every part uses (the queue, drops,
 * refusals, evidence, saving the safety state before anything is signed).
 */
export class EngineCore {
  readonly clock: Clock;
  readonly me: Uint8Array;
  readonly pacemaker: Pacemaker;
  /** a third of the first round timeout: how long a backup collector, or a node behind, waits */
  readonly relayMs: number;
  /** when the leader proposes (pacing.ts) */
  readonly pacing: PacingConfig;
  ep!: EpochContext;
  leaders!: LeaderSchedule;
  safety!: SafetyState;
  /** stageSafety raised `safety` after its last write */
  private unsaved = false;
  tree: BlockTree;
  running = false;
  queue: Promise<void> = Promise.resolve();
  /** the last round this node proposed in, this epoch */
  proposedRound = 0;
  readonly ownTimeouts = new Map<number, Timeout>();
  readonly proposalsSeen = new Map<number, Proposal>();
  readonly orphans = new OrphanPool();
  readonly pendingQcs = new Map<string, QuorumCertificate>();
  readonly times = new BlockTimes();
  /** votes held as the backup collector (see Voting.voteCollectors) */
  readonly backup: BackupVotes;
  readonly evidenceList: Evidence[] = [];
  /** refused blocks, and the halt once a quorum certifies one: this node then signs nothing */
  readonly divergence: Divergence;
  readonly m: ConsensusMetrics;

  constructor(
    readonly o: ConsensusEngineOptions,
    private readonly events: EventEmitter,
    steps: Pick<EngineSteps, 'relayIfStalled' | 'localTimeout' | 'cancelProposal'>,
  ) {
    this.divergence = new Divergence((report) => {
      steps.cancelProposal();
      this.emit('halted', report);
    });
    this.clock = o.clock ?? systemClock;
    this.me = o.self.address;
    const rounds = { ...pacemakerConfig(o.pacemaker?.baseTimeoutMs ?? DEFAULT_PACEMAKER.baseTimeoutMs), ...o.pacemaker };
    this.relayMs = Math.round(rounds.baseTimeoutMs / 3);
    this.pacing = { minIntervalMs: o.minBlockIntervalMs ?? 0, fullBlockTransactions: o.fullBlockTransactions ?? 1_000, idleIntervalMs: o.idleBlockIntervalMs ?? 1_000 };
    this.backup = new BackupVotes(this.clock, this.relayMs, (round) => this.enqueue(() => steps.relayIfStalled(round)));
    this.pacemaker = new Pacemaker(rounds, this.clock, (round) => this.enqueue(() => steps.localTimeout(round)));
    this.tree = new BlockTree(o.committedHead);
    this.m = {
      epoch: 0,
      epochChanges: 0,
      rangeRequests: 0,
      round: 0, highQcRound: 0, lockedRound: 0, lastVotedRound: 0, committedHeight: o.committedHead.header.height, committedBlocks: 0,
      proposals: 0, votesSent: 0, votesReceived: 0, qcsFormed: 0, tcsFormed: 0, timeouts: 0, roundTimeoutMs: rounds.baseTimeoutMs, pairingChecks: 0, lastCommitLatencyMs: undefined, dropped: {}, halted: false,
    };
  }

  emit(event: string, ...args: unknown[]): void {
    this.events.emit(event, ...args);
  }

  /** Runs `task` after every task queued before it; a throw is reported as 'fault'. */
  enqueue(task: () => Promise<void>): void {
    this.queue = this.queue.then(async () => {
      if (!this.running) return;
      try {
        await task();
      } catch (err) {
        this.emit('fault', err);
      }
    });
  }

  /** The current epoch's set (throws before start). */
  get validators(): ValidatorSet {
    if (!this.ep) throw new LedgerError('CONSENSUS_NOT_STARTED', 'the consensus engine has not started', 'internal');
    return this.ep.set;
  }

  get verifier() {
    return this.ep.verifier;
  }

  get isValidator(): boolean {
    return this.ep.isValidator;
  }

  get haltReport(): HaltReport | undefined {
    return this.divergence.halted;
  }

  isMe(address: Uint8Array): boolean {
    return bytesEqual(address, this.me);
  }

  /** A message of the current epoch. */
  msg(body: ConsensusMessageBody): ConsensusMessage {
    return { ...body, epoch: this.ep.epoch };
  }

  /** Writes `next` (and whatever stageSafety raised before it) to the store, then uses it. */
  async setSafety(next: SafetyState): Promise<void> {
    if (next === this.safety && !this.unsaved) return;
    await this.o.store.saveSafety(next);
    this.safety = next;
    this.unsaved = false;
  }

  /**
   * Raises the state in memory only: the next setSafety or flushSafety writes it, and nothing is
   * signed or committed in between. A QC's high QC and the lock it allows go out in one write.
   */
  stageSafety(next: SafetyState): void {
    if (next === this.safety) return;
    this.safety = next;
    this.unsaved = true;
  }

  flushSafety(): Promise<void> {
    return this.setSafety(this.safety);
  }

  /** Counts a dropped message; `from` is set when the sender is to blame (the network penalizes it). */
  drop(reason: string, from?: Uint8Array): void {
    this.m.dropped[reason] = (this.m.dropped[reason] ?? 0) + 1;
    this.emit('dropped', { reason, from });
  }

  /** A block the app refused: only a block wrong by itself costs its sender (the network penalizes it). */
  refuse(b: Block, err: unknown, from: Uint8Array | undefined): void {
    this.emit('rejected', { block: b, error: err, from });
    const certified = bytesEqual(this.safety.highQc.blockHash, b.hash) || this.pendingQcs.has(toHex(b.hash));
    const { reason, senderAtFault } = this.divergence.refusal(b, err, certified);
    this.drop(reason, senderAtFault ? from : undefined);
  }

  async recordEvidence(e: Evidence): Promise<void> {
    // One record per validator, epoch, round and kind: a flood of copies adds nothing.
    if (this.evidenceList.some((x) => x.kind === e.kind && x.epoch === e.epoch && x.round === e.round && bytesEqual(x.validator, e.validator))) return;
    await this.o.store.putEvidence(e);
    this.evidenceList.push(e);
    this.emit('evidence', e);
  }
}
