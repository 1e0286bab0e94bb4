import { EventEmitter } from 'node:events';
import { LedgerError } from '../errors.js';
import type { Block, QuorumCertificate } from '../protocol/block.js';
import { bytesEqual, toHex } from '../protocol/bytes.js';
import { MAX_SYNC_BLOCKS } from './codec.js';
import { timeoutDigest, voteDigest, type QuorumCrypto } from './crypto.js';
import { DEFAULT_PACEMAKER, Pacemaker, pacemakerConfig, systemClock, type Clock, type PacemakerConfig, type RoundEntry, type TimerHandle } from './pacemaker.js';
import * as rules from './safety.js';
import type { ConsensusStore } from './store.js';
import { Divergence, errorCode, type HaltReport } from './divergence.js';
import { LeaderSchedule } from './leaders.js';
import { OrphanPool, type ProposalVote } from './orphans.js';
import { BackupVotes } from './backup-votes.js';
import { clipAtBoundary, EpochContext, epochProofError } from './epochs.js';
import { EpochSync } from './epoch-sync.js';
import { BlockSync, collectAncestors, collectRange, RangeSync } from './sync.js';
import { BlockTimes } from './timing.js';
import { BlockTree } from './tree.js';
import type { ConsensusApp, ConsensusMessage, ConsensusMessageBody, ConsensusTransport, EpochProof, Evidence, Proposal, SafetyState, Timeout, TimeoutCertificate, Vote } from './types.js';
import type { ValidatorSet } from './validators.js';

/**
 * Chained HotStuff (Yin et al. 2019, Algorithm 3) in its LibraBFT form.
 *
 * Round r has one leader, validators[r mod n]. The leader extends the block certified by its
 * highest QC and sends the block with that QC as `header.justify` (and, when round r-1 ended by
 * timeout, the TC that justifies skipping). Its signature on the proposal is its own vote.
 * Validators check the block, apply the vote rule (safety.ts) and send their vote to the leader
 * of r+1, which aggregates >2/3 of the weight into a QC and proposes on it in round r+1.
 *
 * Commit rule (3-chain): when a QC for b2 is known, let b1 = parent(b2) and b0 = parent(b1) (a
 * block's parent is always the block its justify certifies, so b0 <- b1 <- b2 are each certified
 * by the next). If b1.round = b0.round + 1 and b2.round = b1.round + 1, b0 is committed, with
 * every uncommitted ancestor, oldest first. The same QC locks b1 (the 2-chain head): a validator
 * only votes for blocks extending its lock or justified by a QC newer than it. With consecutive
 * rounds, any conflicting certified block would need an honest validator to vote against its lock,
 * so two honest validators never commit conflicting blocks with fewer than 1/3 byzantine weight.
 *
 * Liveness: the pacemaker times a round out; timeouts are broadcast signed with the sender's high
 * QC; >2/3 of them form a TC that moves everyone to r+1, and >1/3 make a validator join the
 * timeout early. A silent leader therefore costs one timeout.
 *
 * Epochs (epochs.ts): the set changes when an epoch's boundary block commits. Blocks above an
 * uncommitted boundary carry nothing; at the commit the engine drops them, stores the 3-chain
 * that committed the boundary as the epoch's proof for nodes still behind, and starts over on
 * the boundary block with the new set, fresh safety rules and rounds from the boundary's round.
 *
 * All handlers run one at a time on an internal queue. Safety state is saved, and awaited,
 * before any vote, proposal or timeout leaves the node.
 */

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
  pairingChecks: number;
  epochChanges: number;
  /** catch-up requests by height (seq) */
  rangeRequests: number;
  lastCommitLatencyMs: number | undefined;
  dropped: Record<string, number>;
  /** true once this node stopped signing because its state disagrees with a quorum */
  halted: boolean;
}

export interface ConsensusStatus extends Pick<ConsensusMetrics, 'epoch' | 'round' | 'highQcRound' | 'lockedRound' | 'lastVotedRound' | 'committedHeight'> {
  /** the leader of the current round on the high QC's branch */
  leader: Uint8Array | undefined;
  /** the validators that round-robin leadership goes to on that branch (leaders.ts) */
  active: Uint8Array[] | undefined;
  halted: HaltReport | undefined;
}

export class ConsensusEngine extends EventEmitter {
  private readonly o: ConsensusEngineOptions;
  private readonly clock: Clock;
  private readonly me: Uint8Array;
  private readonly pacemaker: Pacemaker;
  private ep!: EpochContext;
  private leaders!: LeaderSchedule;
  private safety!: SafetyState;
  private tree: BlockTree;
  private queue: Promise<void> = Promise.resolve();
  private running = false;
  private subscribed = false;
  private proposedRound = 0;
  private peerCursor = 0;
  private idleTimer: TimerHandle | undefined;
  private readonly proposalsSeen = new Map<number, Proposal>();
  private readonly ownTimeouts = new Map<number, Timeout>();
  private readonly orphans = new OrphanPool();
  private readonly pendingQcs = new Map<string, QuorumCertificate>();
  private readonly sync = new BlockSync();
  private readonly ranges = new RangeSync();
  /** the next height to ask for by range, and the highest block seen that we lack */
  private rangeNext = 0;
  private syncTarget = 0;
  private readonly times = new BlockTimes();
  /** votes held as the backup collector (see voteCollectors) */
  private readonly backup: BackupVotes;
  private readonly epochSync: EpochSync;
  private readonly evidenceList: Evidence[] = [];
  /** refused blocks, and the halt once a quorum certifies one: this node then signs nothing */
  private readonly divergence = new Divergence((report) => {
    this.idleTimer?.cancel();
    this.emit('halted', report);
  });
  private readonly m: ConsensusMetrics;

  constructor(options: ConsensusEngineOptions) {
    super();
    this.o = options;
    this.clock = options.clock ?? systemClock;
    this.me = options.self.address;
    const pacing = { ...pacemakerConfig(options.pacemaker?.baseTimeoutMs ?? DEFAULT_PACEMAKER.baseTimeoutMs), ...options.pacemaker };
    const relayMs = Math.round(pacing.baseTimeoutMs / 3);
    this.backup = new BackupVotes(this.clock, relayMs, (round) => this.enqueue(() => this.relayIfStalled(round)));
    this.epochSync = new EpochSync(this.clock, relayMs, (peer, epoch) => {
      if (this.running && this.ep.epoch === epoch) this.o.transport.send(peer, this.msg({ type: 'epoch-request' }));
    });
    this.pacemaker = new Pacemaker(pacing, this.clock, (round) => this.enqueue(() => this.localTimeout(round)));
    this.tree = new BlockTree(options.committedHead);
    this.m = {
      epoch: 0,
      epochChanges: 0,
      rangeRequests: 0,
      round: 0, highQcRound: 0, lockedRound: 0, lastVotedRound: 0, committedHeight: options.committedHead.header.height, committedBlocks: 0,
      proposals: 0, votesSent: 0, votesReceived: 0, qcsFormed: 0, tcsFormed: 0, timeouts: 0, pairingChecks: 0, lastCommitLatencyMs: undefined, dropped: {}, halted: false,
    };
  }

  /** The current epoch's set (throws before start). */
  get validators(): ValidatorSet {
    if (!this.ep) throw new LedgerError('CONSENSUS_NOT_STARTED', 'the consensus engine has not started', 'internal');
    return this.ep.set;
  }

  get epoch(): number {
    return this.ep?.epoch ?? 0;
  }

  /** Whether `address` is in the current epoch's set (false before start). */
  isCurrentValidator(address: Uint8Array): boolean {
    return this.ep?.set.indexOf(address) !== undefined;
  }

  /** Loads the epoch, the safety state and the pending blocks, then enters the current round. */
  async start(): Promise<void> {
    if (this.running) return;
    this.ep = new EpochContext(await this.o.app.currentEpoch(), this.o.chainId, this.o.self);
    const saved = await this.o.store.loadSafety();
    if (this.evidenceList.length === 0) this.evidenceList.push(...(await this.o.store.loadEvidence()));
    this.tree = new BlockTree(this.o.committedHead);
    if (saved && saved.epoch > this.ep.epoch) {
      throw new LedgerError('CONSENSUS_STATE_AHEAD', `the consensus store is in epoch ${saved.epoch} but the chain is in epoch ${this.ep.epoch}`, 'internal');
    }
    if (saved?.epoch === this.ep.epoch) this.safety = saved;
    else if (saved || this.ep.epoch > 0 || bytesEqual(this.o.committedHead.hash, this.o.genesis.hash)) {
      // A new epoch (the node stopped right after its boundary committed): start its rules over.
      await this.o.store.deletePendingBlocks((await this.o.store.pendingBlocks()).map((b) => b.hash));
      this.safety = rules.initialSafety(this.ep.startQc, this.ep.epoch);
    } else throw new LedgerError('CONSENSUS_STATE_MISSING', 'the chain is past genesis but the consensus store holds no safety state', 'internal');
    this.m.epoch = this.ep.epoch;
    await this.restorePending();
    this.leaders = new LeaderSchedule(this.ep.set, this.ep.info.start.height, () => this.tree);
    this.leaders.committedBlocks(await this.recentCommitted());
    this.running = true;
    if (!this.subscribed) {
      this.subscribed = true;
      this.o.transport.onMessage((from, msg) => {
        if (this.running) this.enqueue(() => this.handle(from, msg));
      });
    }
    this.enqueue(async () => {
      // A crash between a QC and the commit it allowed: finish that commit now.
      const ep = this.ep;
      await this.processQc(this.safety.highQc, undefined);
      if (this.ep === ep) this.advance(rules.currentRound(this.safety), 'start');
    });
    await this.queue;
  }

  /**
   * Puts the saved uncommitted blocks back in the tree, parents first, each re-executed by the
   * app: the app keeps the state of uncommitted blocks in memory only, and a block in the tree
   * whose state the app lacks could be neither extended nor used to check its children.
   */
  private async restorePending(): Promise<void> {
    const saved = (await this.o.store.pendingBlocks()).sort((a, b) => a.header.height - b.header.height);
    const dropped: Uint8Array[] = [];
    for (const b of saved) {
      // committed already, or on a branch that died with the commit
      const parent = b.header.height > this.tree.root.header.height ? this.tree.get(b.header.parentHash) : undefined;
      if (!parent) {
        dropped.push(b.hash);
        continue;
      }
      try {
        await this.o.app.validateBlock(b, parent);
      } catch (err) {
        this.refuse(b, err, undefined);
        dropped.push(b.hash);
        continue;
      }
      this.tree.add(b);
    }
    await this.o.store.deletePendingBlocks(dropped);
  }

  /** The last committed blocks up to the head, as many as the leader schedule reads. */
  private async recentCommitted(): Promise<Block[]> {
    const root = this.tree.root.header.height;
    const from = Math.max(1, root - this.leaders.window + 1);
    const out: Block[] = [];
    for (let h = from; h <= root; h++) {
      const b = h === root ? this.tree.root : await this.o.app.getCommittedBlockAt(h);
      if (b) out.push(b);
    }
    return out;
  }

  async stop(): Promise<void> {
    this.running = false;
    this.pacemaker.stop();
    this.idleTimer?.cancel();
    this.backup.clear();
    await this.queue;
  }

  evidence(): Evidence[] {
    return [...this.evidenceList];
  }

  metrics(): ConsensusMetrics {
    return {
      ...this.m,
      round: this.pacemaker.round,
      highQcRound: this.safety?.highQc.round ?? 0,
      lockedRound: this.safety?.lockedQc.round ?? 0,
      lastVotedRound: this.safety?.lastVotedRound ?? 0,
      committedHeight: this.tree.root.header.height,
      pairingChecks: this.m.pairingChecks + (this.ep?.verifier.checks ?? 0),
      dropped: { ...this.m.dropped },
      halted: this.haltReport !== undefined,
    };
  }

  get committedHead(): Block {
    return this.tree.root;
  }

  /** Wait for every queued handler to finish (tests, shutdown). */
  idle(): Promise<void> {
    return this.queue;
  }

  private enqueue(task: () => Promise<void>): void {
    this.queue = this.queue.then(async () => {
      if (!this.running) return;
      try {
        await task();
      } catch (err) {
        this.emit('fault', err);
      }
    });
  }

  /** Counts a dropped message; `from` is set when the sender is to blame (the network penalizes it). */
  private drop(reason: string, from?: Uint8Array): void {
    this.m.dropped[reason] = (this.m.dropped[reason] ?? 0) + 1;
    this.emit('dropped', { reason, from });
  }

  /** A block the app refused: only a block wrong by itself costs its sender (the network penalizes it). */
  private refuse(b: Block, err: unknown, from: Uint8Array | undefined): void {
    this.emit('rejected', { block: b, error: err, from });
    const certified = bytesEqual(this.safety.highQc.blockHash, b.hash) || this.pendingQcs.has(toHex(b.hash));
    const { reason, senderAtFault } = this.divergence.refusal(b, err, certified);
    this.drop(reason, senderAtFault ? from : undefined);
  }

  /**
   * Where consensus stands here: the round, its certificates, and who leads the current round on
   * the branch of the high QC (undefined while that block is still being fetched).
   */
  status(): ConsensusStatus {
    const { epoch, round, highQcRound, lockedRound, lastVotedRound, committedHeight } = this.metrics();
    const active = this.leaders?.activeAt(this.safety.highQc.blockHash);
    return {
      epoch,
      round,
      highQcRound,
      lockedRound,
      lastVotedRound,
      committedHeight,
      leader: this.leaders?.leaderAfter(this.safety.highQc.blockHash, round)?.address,
      active: active?.map((i) => this.validators.at(i)!.address),
      halted: this.haltReport,
    };
  }

  /** Why this node stopped signing, or undefined while it takes part. */
  get haltReport(): HaltReport | undefined {
    return this.divergence.halted;
  }

  private async setSafety(next: SafetyState): Promise<void> {
    if (next === this.safety) return;
    await this.o.store.saveSafety(next);
    this.safety = next;
  }

  private isMe(address: Uint8Array): boolean {
    return bytesEqual(address, this.me);
  }

  private get isValidator(): boolean {
    return this.ep.isValidator;
  }

  private get verifier() {
    return this.ep.verifier;
  }

  /** A message of the current epoch. */
  private msg(body: ConsensusMessageBody): ConsensusMessage {
    return { ...body, epoch: this.ep.epoch };
  }

  private async handle(from: Uint8Array, msg: ConsensusMessage): Promise<void> {
    // Any peer may catch up from us, and we from it; the rest is for validators only.
    if (msg.type === 'sync-request') return this.onSyncRequest(from, msg.request.hash, msg.request.stopAtHeight, msg.request.max);
    if (msg.type === 'sync-response') return this.onSyncResponse(from, msg.blocks);
    if (msg.type === 'range-request') return this.onRangeRequest(from, msg.request.fromHeight, msg.request.max);
    if (msg.type === 'range-response') return this.onRangeResponse(from, msg.blocks);
    if (msg.type === 'epoch-request') return this.onEpochRequest(from, msg.epoch);
    if (msg.type === 'epoch-proof') return this.onEpochProof(from, msg.epoch, msg.proof);
    if (msg.epoch !== this.ep.epoch) return this.otherEpoch(from, msg);
    if (this.validators.indexOf(from) === undefined) return this.drop('non-validator');
    switch (msg.type) {
      case 'proposal':
        return this.onProposal(from, msg.proposal);
      case 'vote':
        this.m.votesReceived++;
        return this.onVote(msg.vote, false, from);
      case 'timeout':
        return this.onTimeout(from, msg.timeout, false);
      case 'tc':
        if (msg.tc.round <= (this.safety.highTc?.round ?? 0)) return;
        if (!this.verifier.verifyTc(msg.tc)) return this.drop('bad-tc', from);
        return this.processTc(msg.tc);
      case 'qc':
        if (msg.qc.round <= this.safety.highQc.round) return; // nothing new: skip the pairing check
        if (!this.verifier.verifyQc(msg.qc)) return this.drop('bad-qc', from);
        return this.processQc(msg.qc, from);
    }
  }

  // ---- proposals and votes ----

  private async onProposal(from: Uint8Array, p: Proposal): Promise<void> {
    const b = p.block;
    const round = b.header.round;
    // Whether the proposer leads this round depends on the branch it extends (leaders.ts), so it
    // is checked in receiveBlock once the parent is here; its key is needed now.
    const proposer = this.validators.indexOf(b.header.proposer);
    if (proposer === undefined) return this.drop('wrong-leader', from);
    const leader = this.validators.at(proposer)!;
    if (rules.proposalShapeError(b, p.tc)) return this.drop('malformed-proposal', from);
    const seen = this.proposalsSeen.get(round);
    if (seen && bytesEqual(seen.block.hash, b.hash)) return;
    // The transport authenticates `from`, so a proposal straight from its leader skips the pairing
    // check here: its signature counts as the leader's vote, which the next leader checks inside
    // the aggregate. A relayed proposal, and both sides of an equivocation, are checked one by one.
    const signed = (x: Proposal) => this.o.self.crypto.verify(voteDigest(this.o.chainId, this.ep.epoch, round, x.block.header.height, x.block.hash), x.signature, leader.blsPublicKey);
    const direct = bytesEqual(from, leader.address);
    if (!direct && !signed(p)) return this.drop('bad-signature', from);
    if (!seen) this.proposalsSeen.set(round, p);
    else if (signed(seen) && (!direct || signed(p))) await this.recordEvidence({ kind: 'double-proposal', epoch: this.ep.epoch, round, validator: leader.address, first: seen, second: p });
    if (!this.verifier.verifyQc(b.header.justify)) return this.drop('bad-qc', from);
    if (p.tc && !this.verifier.verifyTc(p.tc)) return this.drop('bad-tc', from);
    const ep = this.ep;
    if (p.tc) await this.processTc(p.tc);
    if (this.ep === ep) await this.processQc(b.header.justify, from);
    if (this.ep !== ep) return; // the QC ended the epoch: this block belongs to the old one
    await this.receiveBlock(b, from, { signature: p.signature, verified: !direct });
  }

  /**
   * Validates and adds a block whose signature or hash chain is already authenticated; then votes.
   * A proposal (`proposal` set) must come from its round's leader on the branch it extends, and
   * its signature counts as that leader's vote.
   */
  private async receiveBlock(b: Block, from: Uint8Array, proposal?: ProposalVote): Promise<void> {
    if (b.header.height <= this.tree.root.header.height) return;
    if (this.ep.isPastBoundary(b.header.height) && b.transactions.length > 0) return this.drop('transactions-past-boundary', from);
    if (proposal && this.tree.has(b.header.parentHash) && !this.isElected(b)) return this.drop('wrong-leader', from);
    if (!this.tree.has(b.hash)) {
      const parent = this.tree.get(b.header.parentHash);
      if (!parent) {
        // b's justify certifies its parent: a quorum may have accepted a block this node refused.
        this.divergence.certified(b.header.parentHash);
        if (this.haltReport) return;
        if (!this.orphans.add(b, from, proposal)) return this.drop('orphan-pool-full');
        // An orphan's parent that is itself an orphan is already on its way.
        if (!this.orphans.has(b.header.parentHash)) this.requestSync(from, b.header.parentHash, b.header.height - 1);
        return;
      }
      try {
        await this.o.app.validateBlock(b, parent);
      } catch (err) {
        return this.refuse(b, err, from);
      }
      await this.o.store.putPendingBlock(b);
      this.tree.add(b);
      this.times.markSeen(b.hash, this.clock.now());
      this.emit('block', b);
      const ep = this.ep;
      await this.onBlockAdded(b);
      if (this.ep !== ep) return;
    }
    if (proposal && this.isMe(this.leaders.leaderAfter(b.hash, b.header.round + 1)!.address)) {
      // The leader's signature is its vote; the next leader counts it.
      await this.onVote({ round: b.header.round, height: b.header.height, blockHash: b.hash, voter: b.header.proposer, signature: proposal.signature }, proposal.verified);
    }
    await this.maybeVote(b);
  }

  /** Whether b's proposer is the leader of its round on the branch b extends (its parent is in the tree). */
  private isElected(b: Block): boolean {
    const leader = this.leaders.leaderAfter(b.header.parentHash, b.header.round);
    return leader !== undefined && bytesEqual(leader.address, b.header.proposer);
  }

  private async onBlockAdded(b: Block): Promise<void> {
    const ep = this.ep;
    await this.processQc(b.header.justify, undefined);
    const key = toHex(b.hash);
    const qc = this.pendingQcs.get(key);
    if (qc && this.ep === ep) {
      this.pendingQcs.delete(key);
      await this.processQc(qc, undefined);
    }
    for (const o of this.orphans.takeChildren(b.hash)) if (this.ep === ep) await this.receiveBlock(o.block, o.from, o.proposal);
  }

  private async maybeVote(b: Block): Promise<void> {
    const round = b.header.round;
    if (!this.isValidator || this.haltReport || round !== this.pacemaker.round || !this.tree.has(b.hash)) return;
    if (!rules.safeToVote(this.safety, b, (h) => this.lookup(h)).ok) return;
    await this.setSafety(rules.recordVote(this.safety, round));
    const vote: Vote = { round, height: b.header.height, blockHash: b.hash, voter: this.me, signature: this.o.self.crypto.sign(voteDigest(this.o.chainId, this.ep.epoch, round, b.header.height, b.hash)) };
    this.m.votesSent++;
    // To the next leader, and to the block's proposer, which relays the QC if the next one is down.
    for (const to of this.voteCollectors(b)) {
      if (this.isMe(to)) await this.onVote(vote, true);
      else this.o.transport.send(to, this.msg({ type: 'vote', vote }));
    }
  }

  private lookup(hash: Uint8Array): { round: number; parentHash: Uint8Array } | undefined {
    const b = this.tree.get(hash);
    return b && { round: b.header.round, parentHash: b.header.parentHash };
  }

  /**
   * Who collects the votes for block b: the leader of the next round on b's branch, which
   * aggregates them, broadcasts the QC and proposes on it, and b's proposer as a backup. The backup
   * only holds the votes: if no proposal for the next round shows up within a third of the round
   * timeout (the next leader may be down), it aggregates them and relays the QC. Aggregating at
   * once would cost every replica a second pairing check per round for a QC it gets anyway.
   */
  private voteCollectors(b: Block): Uint8Array[] {
    const next = this.leaders.leaderAfter(b.hash, b.header.round + 1)!.address;
    const current = b.header.proposer;
    return bytesEqual(next, current) ? [next] : [next, current];
  }

  private async onVote(vote: Vote, trusted: boolean, from?: Uint8Array): Promise<void> {
    const b = this.tree.get(vote.blockHash);
    // A vote for a block not here yet: this node may be the next leader, still fetching it.
    const next = b ? this.isMe(this.voteCollectors(b)[0]!) : true;
    if (!next && !(b && this.isMe(b.header.proposer))) return this.drop('vote-not-for-me');
    if (vote.round + 1 < this.pacemaker.round) return;
    if (!next) return this.backup.hold({ vote, trusted, from });
    await this.collectVote(vote, trusted, from);
  }

  private async collectVote(vote: Vote, trusted: boolean, from: Uint8Array | undefined): Promise<void> {
    const res = this.ep.votes.add(vote, trusted);
    for (let i = 0; i < res.rejected; i++) this.drop('bad-vote', from);
    if (res.evidence) await this.recordEvidence(res.evidence);
    if (!res.qc) return;
    this.verifier.rememberQc(res.qc);
    this.m.qcsFormed++;
    this.emit('qc', res.qc);
    // Everyone learns the QC now rather than with the next proposal, which still has to be built;
    // the proposal carries the same QC, so no replica checks it twice.
    this.o.transport.broadcast(this.msg({ type: 'qc', qc: res.qc }));
    await this.processQc(res.qc, this.tree.get(res.qc.blockHash)?.header.proposer);
  }

  private async relayIfStalled(round: number): Promise<void> {
    const held = this.backup.take(round);
    // The next leader is alive (it proposed), or the QC is known already: nothing to relay.
    if (this.proposalsSeen.has(round + 1) || this.pacemaker.round > round + 1 || this.safety.highQc.round >= round) return;
    for (const h of held) await this.collectVote(h.vote, h.trusted, h.from);
  }

  private async recordEvidence(e: Evidence): Promise<void> {
    // One record per validator, epoch, round and kind: a flood of copies adds nothing.
    if (this.evidenceList.some((x) => x.kind === e.kind && x.epoch === e.epoch && x.round === e.round && bytesEqual(x.validator, e.validator))) return;
    await this.o.store.putEvidence(e);
    this.evidenceList.push(e);
    this.emit('evidence', e);
  }

  // ---- certificates, locking and commits ----

  /** A verified QC: raise the high QC, lock and commit if its block is known, and move rounds. */
  private async processQc(qc: QuorumCertificate, source: Uint8Array | undefined): Promise<void> {
    this.divergence.certified(qc.blockHash);
    await this.setSafety(rules.updateHighQc(this.safety, qc));
    const b2 = this.tree.get(qc.blockHash);
    if (b2) {
      this.noteCertified(b2);
      const ep = this.ep;
      await this.processCertified(b2, qc);
      if (this.ep !== ep) return;
    }
    else if (qc.round > 0 && qc.height > this.tree.root.header.height) {
      this.pendingQcs.set(toHex(qc.blockHash), qc);
      this.requestSync(source ?? this.anyPeer(), qc.blockHash, qc.height);
    }
    this.advance(qc.round + 1, 'qc');
  }

  /** Another validator to ask for a block no peer in particular announced: each ask goes to the next one, so a dead peer costs one try. */
  private anyPeer(): Uint8Array {
    const vs = this.validators.validators;
    for (let i = 0; i < vs.length; i++) {
      const v = vs[this.peerCursor++ % vs.length]!;
      if (!this.isMe(v.address)) return v.address;
    }
    return this.me;
  }

  /** The first time this node learns a QC for a block it holds: 'certified' with the wait since the block arrived. */
  private noteCertified(b: Block): void {
    const latencyMs = this.times.markCertified(b.hash, this.clock.now());
    if (latencyMs !== undefined) this.emit('certified', { block: b, latencyMs });
  }

  private async processCertified(b2: Block, qc2: QuorumCertificate): Promise<void> {
    const b1 = this.tree.parent(b2);
    if (!b1) return;
    await this.setSafety(rules.updateLock(this.safety, b2.header.justify));
    const b0 = this.tree.parent(b1);
    if (!b0 || b0 === this.tree.root) return;
    if (rules.threeChainCommits(b0.header.round, b1.header.round, b2.header.round)) await this.commit(b0, b1.header.justify, { b2, qc2 });
  }

  /** Commits the path to b0, which b0's child certifies with `qc`; b2 and its QC complete the 3-chain. */
  private async commit(b0: Block, qc: QuorumCertificate, chain: { b2: Block; qc2: QuorumCertificate }): Promise<void> {
    const { blocks, ends } = clipAtBoundary(this.tree.pathFromRoot(b0.hash), this.ep.info.lastHeight);
    if (blocks.length === 0) return;
    const last = blocks[blocks.length - 1]!;
    // Past a boundary, the commit stops at it; the block above it on the 3-chain certifies it.
    const above = ends ? this.tree.pathFromRoot(chain.b2.hash).filter((b) => b.header.height > last.header.height) : [];
    const certifying = ends ? above[0]!.header.justify : qc;
    try {
      await this.o.app.commit(blocks, certifying);
    } catch (err) {
      this.divergence.halt('commit-failed', { height: last.header.height, hash: toHex(last.hash), code: errorCode(err), error: (err as Error).message });
      throw err;
    }
    const removed = this.tree.commitTo(last.hash);
    this.leaders.committedBlocks(blocks);
    await this.o.store.deletePendingBlocks([...removed, last.hash]);
    const { latencyMs, qcToCommitMs } = this.times.committed(last.hash, this.clock.now(), [...removed, ...blocks.map((b) => b.hash)]);
    const rootHeight = last.header.height;
    this.orphans.pruneTo(rootHeight);
    for (const [k, qc] of this.pendingQcs) if (qc.height <= rootHeight) this.pendingQcs.delete(k);
    this.divergence.pruneTo(rootHeight);
    this.m.committedBlocks += blocks.length;
    if (latencyMs !== undefined) this.m.lastCommitLatencyMs = latencyMs;
    this.emit('commit', { blocks, qc: certifying, latencyMs, qcToCommitMs });
    if (ends) await this.endEpoch(last, { blocks: [last, ...above], qc: chain.qc2 });
  }

  private async processTc(tc: TimeoutCertificate): Promise<void> {
    await this.setSafety(rules.updateHighTc(this.safety, tc));
    const ep = this.ep;
    await this.processQc(tc.highQc, undefined);
    if (this.ep === ep) this.advance(tc.round + 1, 'tc');
  }

  // ---- epochs ----

  /**
   * The boundary block has committed: keep the proof, drop the blocks above it and start the
   * next epoch on it. The app now reports the new set, computed by the boundary block.
   */
  private async endEpoch(boundary: Block, proof: EpochProof): Promise<void> {
    const ended = this.ep;
    await this.o.store.putEpochProof(ended.epoch, proof);
    const info = await this.o.app.currentEpoch();
    if (info.epoch !== ended.epoch + 1 || !bytesEqual(info.start.hash, boundary.hash)) {
      throw new LedgerError('EPOCH_MISMATCH', `epoch ${ended.epoch} ended at ${toHex(boundary.hash)} but the app reports epoch ${info.epoch} from ${toHex(info.start.hash)}`, 'internal');
    }
    // The blocks above the boundary were only there to commit it.
    const above = (await this.o.store.pendingBlocks()).map((b) => b.hash);
    await this.o.store.deletePendingBlocks(above);
    this.times.forget(above);
    this.tree = new BlockTree(boundary);
    this.m.pairingChecks += ended.verifier.checks;
    this.ep = new EpochContext(info, this.o.chainId, this.o.self);
    this.leaders = new LeaderSchedule(this.ep.set, info.start.height, () => this.tree, this.leaders.recentCommitted);
    await this.setSafety(rules.initialSafety(this.ep.startQc, info.epoch));
    this.orphans.pruneTo(Number.MAX_SAFE_INTEGER);
    this.pendingQcs.clear();
    this.proposalsSeen.clear();
    this.ownTimeouts.clear();
    this.backup.clear();
    this.proposedRound = 0;
    this.m.epoch = info.epoch;
    this.m.epochChanges++;
    this.emit('epoch', { epoch: info.epoch, validators: info.validators, boundary });
    this.pacemaker.restart(this.ep.startQc.round + 1);
    this.emit('round', { round: this.pacemaker.round, via: 'epoch' });
    this.scheduleProposal(this.pacemaker.round);
    for (const f of this.epochSync.entered(info.epoch)) this.enqueue(() => this.handle(f.from, f.msg));
  }

  /** A message of another epoch: an older one tells its sender how the epoch ended; a newer one means we are behind. */
  private async otherEpoch(from: Uint8Array, msg: ConsensusMessage): Promise<void> {
    if (msg.epoch < this.ep.epoch) return this.sendProof(from, msg.epoch);
    this.epochSync.aheadOf(this.ep.epoch, from, msg);
  }

  private async onEpochRequest(from: Uint8Array, epoch: number): Promise<void> {
    if (epoch < this.ep.epoch) await this.sendProof(from, epoch);
  }

  private async sendProof(to: Uint8Array, epoch: number): Promise<void> {
    if (!this.epochSync.mayProve(to, epoch)) return;
    const proof = await this.o.store.loadEpochProof(epoch);
    if (proof) this.o.transport.send(to, { type: 'epoch-proof', epoch, proof });
  }

  /**
   * How our epoch ended, from any peer: its QC must verify under our set. The blocks then go in
   * like synced ones (the boundary may need its own ancestors first) and the QC commits the
   * boundary, which moves this node into the next epoch.
   */
  private async onEpochProof(from: Uint8Array, epoch: number, proof: EpochProof): Promise<void> {
    if (epoch !== this.ep.epoch) return;
    const bad = epochProofError(proof, this.ep.info.lastHeight);
    if (bad || !this.verifier.verifyQc(proof.qc)) return this.drop('bad-epoch-proof', from);
    if (await this.receiveBlocks(proof.blocks, from)) await this.processQc(proof.qc, from);
  }

  // ---- rounds, proposing and timeouts ----

  private advance(round: number, via: RoundEntry): void {
    if (!this.pacemaker.enter(round, via)) return;
    this.ep.votes.prune(round - 1);
    this.ep.timeouts.prune(round - 1);
    for (const r of this.proposalsSeen.keys()) if (r < round - 16) this.proposalsSeen.delete(r);
    for (const r of this.ownTimeouts.keys()) if (r < round) this.ownTimeouts.delete(r);
    this.backup.prune(round);
    this.emit('round', { round, via });
    this.scheduleProposal(round);
  }

  private scheduleProposal(round: number): void {
    this.idleTimer?.cancel();
    if (!this.isValidator || this.proposedRound >= round) return;
    const leader = this.leaders.leaderAfter(this.safety.highQc.blockHash, round);
    if (!leader || !this.isMe(leader.address)) return;
    const started = this.clock.now();
    const idleMs = this.o.idleBlockIntervalMs ?? 1_000;
    const poll = this.o.pollIntervalMs ?? 20;
    const check = () => {
      if (!this.running || this.pacemaker.round !== round) return;
      // Blocks above an uncommitted boundary go out at once: the epoch change waits for them.
      const head = this.safety.highQc;
      const busy = this.o.app.hasReadyTransactions() || this.ep.isPastBoundary(head.height + 1) || this.tree.hasTransactionsOnPath(head.blockHash);
      if (busy || this.clock.now() - started >= idleMs) this.enqueue(() => this.propose(round));
      else this.idleTimer = this.clock.setTimer(Math.min(poll, idleMs - (this.clock.now() - started)), check);
    };
    check();
  }

  private async propose(round: number): Promise<void> {
    if (this.haltReport || this.pacemaker.round !== round || this.proposedRound >= round || round <= this.safety.lastVotedRound) return;
    const justify = this.safety.highQc;
    const parent = this.tree.get(justify.blockHash);
    if (!parent) return; // still syncing it; the round will time out
    if (!this.isMe(this.leaders.leaderAfter(parent.hash, round)!.address)) return;
    const tc = justify.round + 1 === round ? undefined : this.safety.highTc;
    if (justify.round + 1 !== round && tc?.round !== round - 1) return;
    const height = parent.header.height + 1;
    const block = await this.o.app.buildBlock({ parent, round, height, justify, proposer: this.me, empty: this.ep.isPastBoundary(height) });
    const shape = rules.proposalShapeError(block, tc);
    if (shape || !bytesEqual(block.header.proposer, this.me) || block.header.round !== round) {
      throw new LedgerError('BAD_BUILT_BLOCK', `the app built a block that does not fit the proposal: ${shape ?? 'wrong round or proposer'}`, 'internal');
    }
    if (this.pacemaker.round !== round || this.proposedRound >= round) return;
    await this.setSafety(rules.recordVote(this.safety, round));
    this.proposedRound = round;
    const signature = this.o.self.crypto.sign(voteDigest(this.o.chainId, this.ep.epoch, round, block.header.height, block.hash));
    await this.o.store.putPendingBlock(block);
    this.tree.add(block);
    this.times.markSeen(block.hash, this.clock.now());
    this.emit('block', block);
    const proposal: Proposal = { block, tc, signature };
    this.proposalsSeen.set(round, proposal);
    this.m.proposals++;
    this.emit('proposal', proposal);
    this.o.transport.broadcast(this.msg({ type: 'proposal', proposal }));
    await this.onVote({ round, height: block.header.height, blockHash: block.hash, voter: this.me, signature }, true);
  }

  private async localTimeout(round: number): Promise<void> {
    if (!this.isValidator || this.haltReport || round !== this.pacemaker.round) return;
    let t = this.ownTimeouts.get(round);
    if (!t) {
      if (!rules.safeToTimeout(this.safety, round)) return;
      await this.setSafety(rules.recordTimeout(this.safety, round));
      const highQc = this.safety.highQc;
      t = { round, highQc, voter: this.me, signature: this.o.self.crypto.sign(timeoutDigest(this.o.chainId, this.ep.epoch, round, highQc.round)) };
      this.ownTimeouts.set(round, t);
      this.m.timeouts++;
      this.emit('timeout', { round });
    }
    this.o.transport.broadcast(this.msg({ type: 'timeout', timeout: t }));
    await this.onTimeout(this.me, t, true);
  }

  private async onTimeout(from: Uint8Array, t: Timeout, trusted: boolean): Promise<void> {
    if (this.validators.indexOf(t.voter) === undefined) return this.drop('non-validator');
    if (!trusted && !this.verifier.verifyQc(t.highQc)) return this.drop('bad-qc', from);
    const ep = this.ep;
    if (!trusted) await this.processQc(t.highQc, from);
    if (this.ep !== ep) return;
    if (t.round < this.pacemaker.round) {
      // The sender is behind: hand it the TC that moved us on, if we have one.
      const tc = this.safety.highTc;
      if (!trusted && tc && tc.round >= t.round) this.o.transport.send(from, this.msg({ type: 'tc', tc }));
      return;
    }
    const res = this.ep.timeouts.add(t, trusted);
    for (let i = 0; i < res.rejected; i++) this.drop('bad-timeout', from);
    if (res.tc) {
      this.verifier.rememberTc(res.tc);
      this.m.tcsFormed++;
      this.emit('tc', res.tc);
      return this.processTc(res.tc);
    }
    // More than 1/3 gave up on this round: at least one honest validator did, so join it.
    if (this.isValidator && !this.ownTimeouts.has(t.round) && this.validators.isValidity(this.ep.timeouts.weight(t.round))) {
      if (t.round > this.pacemaker.round) this.advance(t.round, 'tc');
      await this.localTimeout(t.round);
    }
  }

  // ---- catching up on missing blocks ----

  /** Ask `to` for the missing block `hash` at `height` and its ancestors: by hash when the gap is short, else by height. */
  private requestSync(to: Uint8Array, hash: Uint8Array, height: number): void {
    if (this.isMe(to)) return;
    if (height - this.tree.root.header.height > MAX_SYNC_BLOCKS) {
      this.syncTarget = Math.max(this.syncTarget, height);
      return this.requestRange(to);
    }
    if (!this.sync.shouldRequest(hash, this.clock.now())) return;
    this.o.transport.send(to, this.msg({ type: 'sync-request', request: { hash, stopAtHeight: this.tree.root.header.height, max: MAX_SYNC_BLOCKS } }));
  }

  private async onSyncRequest(from: Uint8Array, hash: Uint8Array, stopAtHeight: number, max: number): Promise<void> {
    const blocks = await collectAncestors(hash, stopAtHeight, max, async (h) => this.tree.get(h) ?? (await this.o.app.getCommittedBlock(h)));
    if (blocks.length > 0) this.o.transport.send(from, this.msg({ type: 'sync-response', blocks }));
  }

  private requestRange(to: Uint8Array): void {
    const fromHeight = Math.max(this.rangeNext, this.tree.root.header.height + 1);
    if (!this.ranges.shouldRequest(fromHeight, this.clock.now())) return;
    this.m.rangeRequests++;
    this.o.transport.send(to, this.msg({ type: 'range-request', request: { fromHeight, max: MAX_SYNC_BLOCKS } }));
  }

  private async onRangeRequest(from: Uint8Array, fromHeight: number, max: number): Promise<void> {
    const blocks = await collectRange(fromHeight, max, (h) => this.o.app.getCommittedBlockAt(h));
    if (blocks.length > 0) this.o.transport.send(from, this.msg({ type: 'range-response', blocks }));
  }

  /** Blocks by height: certified by the last one's QC, they go in like synced ones; ask on while far behind. */
  private async onRangeResponse(from: Uint8Array, blocks: Block[]): Promise<void> {
    const res = this.ranges.accept(blocks, this.ep.info.lastHeight);
    if (!res.ok) return this.drop(res.reason, res.reason === 'bad-sync' ? from : undefined);
    if (!this.verifier.verifyQc(res.qc)) return this.drop('bad-qc', from);
    if (!(await this.receiveBlocks(res.certified, from))) return;
    this.rangeNext = res.qc.height + 1;
    const ep = this.ep;
    await this.processQc(res.qc, from);
    if (this.ep !== ep) return;
    // Far behind: on by height. Close: the orphans' missing parent by hash at once, rather than
    // when a later message happens to name it again.
    if (this.syncTarget - this.tree.root.header.height > MAX_SYNC_BLOCKS) return this.requestRange(from);
    const missing = this.orphans.lowestMissingParent();
    if (missing) this.requestSync(from, missing.hash, missing.height);
  }

  private async onSyncResponse(from: Uint8Array, blocks: Block[]): Promise<void> {
    const bad = this.sync.acceptResponse(blocks);
    if (bad) return this.drop(bad, bad === 'bad-sync' ? from : undefined);
    await this.receiveBlocks(blocks, from);
  }

  /** Receives authenticated blocks in order; false when one of them ended the epoch (the rest belong to the old one). */
  private async receiveBlocks(blocks: Block[], from: Uint8Array): Promise<boolean> {
    const ep = this.ep;
    for (const b of blocks) {
      await this.receiveBlock(b, from);
      if (this.ep !== ep) return false;
    }
    return true;
  }
}
