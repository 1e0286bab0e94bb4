import { EventEmitter } from 'node:events';
import { LedgerError } from '../errors.js';
import type { Block } from '../protocol/block.js';
import { bytesEqual } from '../protocol/bytes.js';
import type { HaltReport } from './divergence.js';
import { CatchUp } from './engine/catch-up.js';
import { Certifying } from './engine/certifying.js';
import { Committing } from './engine/committing.js';
import { EngineCore, type ConsensusEngineOptions, type ConsensusMetrics, type EngineSteps } from './engine/core.js';
import { EpochCrossing } from './engine/epoch-crossing.js';
import { Proposing } from './engine/proposing.js';
import { Receiving } from './engine/receiving.js';
import { Rounds } from './engine/rounds.js';
import { Voting } from './engine/voting.js';
import { EpochContext } from './epochs.js';
import { LeaderSchedule } from './leaders.js';
import * as rules from './safety.js';
import { BlockTree } from './tree.js';
import type { ConsensusMessage, Evidence } from './types.js';
import type { ValidatorSet } from './validators.js';

export type { ConsensusEngineOptions, ConsensusMetrics } from './engine/core.js';

/**
 * Chained HotStuff (Yin et al. 2019, Algorithm 3) in its LibraBFT form.
 *
 * Round r has one leader on each branch, chosen by reputation from the committed history
 * (leaders.ts). The leader extends the block certified by its highest QC and sends the block
 * with that QC as `header.justify` (and, when round r-1 ended by timeout, the TC that justifies
 * skipping). Its signature on the proposal is its own vote.
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
 *
 * This class is the composition root: it owns the queue, start and stop, and dispatches messages
 * to the parts in engine/ (proposing, receiving, voting, certifying, committing, rounds, catch-up,
 * epoch-crossing), which share the state in engine/core.ts.
 */

export interface ConsensusStatus extends Pick<ConsensusMetrics, 'epoch' | 'round' | 'highQcRound' | 'lockedRound' | 'lastVotedRound' | 'committedHeight'> {
  /** the leader of the current round on the high QC's branch */
  leader: Uint8Array | undefined;
  /** the validators that round-robin leadership goes to on that branch (leaders.ts) */
  active: Uint8Array[] | undefined;
  halted: HaltReport | undefined;
}

export class ConsensusEngine extends EventEmitter {
  private readonly c: EngineCore;
  private readonly proposing: Proposing;
  private readonly receiving: Receiving;
  private readonly voting: Voting;
  private readonly certifying: Certifying;
  private readonly committing: Committing;
  private readonly rounds: Rounds;
  private readonly catchUp: CatchUp;
  private readonly crossing: EpochCrossing;
  private subscribed = false;

  constructor(options: ConsensusEngineOptions) {
    super();
    // The parts reach each other only through these.
    const steps: EngineSteps = {
      handle: (from, msg) => this.handle(from, msg),
      receiveBlocks: (blocks, from) => this.receiving.receiveBlocks(blocks, from),
      maybeVote: (b) => this.voting.maybeVote(b),
      onVote: (vote, trusted, from) => this.voting.onVote(vote, trusted, from),
      relayIfStalled: (round) => this.voting.relayIfStalled(round),
      processQc: (qc, source) => this.certifying.processQc(qc, source),
      processTc: (tc) => this.certifying.processTc(tc),
      processCertified: (b2, qc2) => this.committing.processCertified(b2, qc2),
      endEpoch: (boundary, proof) => this.crossing.endEpoch(boundary, proof),
      advance: (round, via) => this.rounds.advance(round, via),
      localTimeout: (round) => this.rounds.localTimeout(round),
      scheduleProposal: (round) => this.proposing.scheduleProposal(round),
      cancelProposal: () => this.proposing.cancel(),
      requestSync: (to, hash, height) => this.catchUp.requestSync(to, hash, height),
      anyPeer: () => this.catchUp.anyPeer(),
    };
    const c = (this.c = new EngineCore(options, this, steps));
    this.proposing = new Proposing(c, steps);
    this.receiving = new Receiving(c, steps);
    this.voting = new Voting(c, steps);
    this.certifying = new Certifying(c, steps);
    this.committing = new Committing(c, steps);
    this.rounds = new Rounds(c, steps);
    this.catchUp = new CatchUp(c, steps);
    this.crossing = new EpochCrossing(c, steps);
  }

  /** The current epoch's set (throws before start). */
  get validators(): ValidatorSet {
    return this.c.validators;
  }

  get epoch(): number {
    return this.c.ep?.epoch ?? 0;
  }

  /** Whether `address` is in the current epoch's set (false before start). */
  isCurrentValidator(address: Uint8Array): boolean {
    return this.c.ep?.set.indexOf(address) !== undefined;
  }

  /**
   * The validators expected to lead the next `count` rounds, nearest first: the current round's
   * leader while its proposal has not arrived here, then the following ones. Read on this node's
   * highest certified block, which those proposals extend (or one just above it, whose active set
   * is almost always the same). Empty before start and on a node that does not validate (a full
   * node cannot count on reaching the leaders directly). Only a routing hint, never used for safety.
   */
  upcomingLeaders(count: number): Uint8Array[] {
    const c = this.c;
    if (!c.running || !c.isValidator) return [];
    const first = c.proposalsSeen.has(c.pacemaker.round) ? c.pacemaker.round + 1 : c.pacemaker.round;
    const out: Uint8Array[] = [];
    for (let r = first; r < first + count; r++) {
      const leader = c.leaders.leaderAfter(c.safety.highQc.blockHash, r);
      if (leader) out.push(leader.address);
    }
    return out;
  }

  /** Loads the epoch, the safety state and the pending blocks, then enters the current round. */
  async start(): Promise<void> {
    const c = this.c;
    if (c.running) return;
    c.ep = new EpochContext(await c.o.app.currentEpoch(), c.o.chainId, c.o.self);
    const saved = await c.o.store.loadSafety();
    if (c.evidenceList.length === 0) c.evidenceList.push(...(await c.o.store.loadEvidence()));
    c.tree = new BlockTree(c.o.committedHead);
    if (saved && saved.epoch > c.ep.epoch) {
      throw new LedgerError('CONSENSUS_STATE_AHEAD', `the consensus store is in epoch ${saved.epoch} but the chain is in epoch ${c.ep.epoch}`, 'internal');
    }
    if (saved?.epoch === c.ep.epoch) c.safety = saved;
    else if (saved || c.ep.epoch > 0 || bytesEqual(c.o.committedHead.hash, c.o.genesis.hash)) {
      // A new epoch (the node stopped right after its boundary committed): start its rules over.
      await c.o.store.deletePendingBlocks((await c.o.store.pendingBlocks()).map((b) => b.hash));
      c.safety = rules.initialSafety(c.ep.startQc, c.ep.epoch);
    } else throw new LedgerError('CONSENSUS_STATE_MISSING', 'the chain is past genesis but the consensus store holds no safety state', 'internal');
    c.m.epoch = c.ep.epoch;
    await this.restorePending();
    c.leaders = new LeaderSchedule(c.ep.set, c.ep.info.start.height, () => c.tree);
    c.leaders.committedBlocks(await this.recentCommitted());
    c.running = true;
    if (!this.subscribed) {
      this.subscribed = true;
      c.o.transport.onMessage((from, msg) => {
        if (c.running) c.enqueue(() => this.handle(from, msg));
      });
    }
    c.enqueue(async () => {
      // A crash between a QC and the commit it allowed: finish that commit now.
      const ep = c.ep;
      await this.certifying.processQc(c.safety.highQc, undefined);
      if (c.ep === ep) this.rounds.advance(rules.currentRound(c.safety), 'start');
    });
    await c.queue;
  }

  /**
   * Puts the saved uncommitted blocks back in the tree, parents first, each re-executed by the
   * app: the app keeps the state of uncommitted blocks in memory only, and a block in the tree
   * whose state the app lacks could be neither extended nor used to check its children.
   */
  private async restorePending(): Promise<void> {
    const c = this.c;
    const saved = (await c.o.store.pendingBlocks()).sort((a, b) => a.header.height - b.header.height);
    const dropped: Uint8Array[] = [];
    for (const b of saved) {
      // committed already, or on a branch that died with the commit
      const parent = b.header.height > c.tree.root.header.height ? c.tree.get(b.header.parentHash) : undefined;
      if (!parent) {
        dropped.push(b.hash);
        continue;
      }
      try {
        await c.o.app.validateBlock(b, parent);
      } catch (err) {
        c.refuse(b, err, undefined);
        dropped.push(b.hash);
        continue;
      }
      c.tree.add(b);
    }
    await c.o.store.deletePendingBlocks(dropped);
  }

  /** The last committed blocks up to the head, as many as the leader schedule reads. */
  private async recentCommitted(): Promise<Block[]> {
    const c = this.c;
    const root = c.tree.root.header.height;
    const from = Math.max(1, root - c.leaders.window + 1);
    const out: Block[] = [];
    for (let h = from; h <= root; h++) {
      const b = h === root ? c.tree.root : await c.o.app.getCommittedBlockAt(h);
      if (b) out.push(b);
    }
    return out;
  }

  async stop(): Promise<void> {
    this.c.running = false;
    this.c.pacemaker.stop();
    this.proposing.cancel();
    this.c.backup.clear();
    await this.c.queue;
  }

  evidence(): Evidence[] {
    return [...this.c.evidenceList];
  }

  metrics(): ConsensusMetrics {
    const c = this.c;
    return {
      ...c.m,
      round: c.pacemaker.round,
      roundTimeoutMs: c.pacemaker.timeoutMs,
      highQcRound: c.safety?.highQc.round ?? 0,
      lockedRound: c.safety?.lockedQc.round ?? 0,
      lastVotedRound: c.safety?.lastVotedRound ?? 0,
      committedHeight: c.tree.root.header.height,
      pairingChecks: c.m.pairingChecks + (c.ep?.verifier.checks ?? 0),
      dropped: { ...c.m.dropped },
      halted: this.haltReport !== undefined,
    };
  }

  get committedHead(): Block {
    return this.c.tree.root;
  }

  /**
   * The mempool admitted a transaction: when this node leads the round and waits for one, it
   * proposes now rather than at its next poll (pollIntervalMs).
   */
  transactionsReady(): void {
    if (this.c.running) this.proposing.transactionsReady();
  }

  /** Wait for every queued handler to finish (tests, shutdown). */
  idle(): Promise<void> {
    return this.c.queue;
  }

  /**
   * Where consensus stands here: the round, its certificates, and who leads the current round on
   * the branch of the high QC (undefined while that block is still being fetched).
   */
  status(): ConsensusStatus {
    const { epoch, round, highQcRound, lockedRound, lastVotedRound, committedHeight } = this.metrics();
    const active = this.c.leaders?.activeAt(this.c.safety.highQc.blockHash);
    return {
      epoch,
      round,
      highQcRound,
      lockedRound,
      lastVotedRound,
      committedHeight,
      leader: this.c.leaders?.leaderAfter(this.c.safety.highQc.blockHash, round)?.address,
      active: active?.map((i) => this.validators.at(i)!.address),
      halted: this.haltReport,
    };
  }

  /** Why this node stopped signing, or undefined while it takes part. */
  get haltReport(): HaltReport | undefined {
    return this.c.haltReport;
  }

  private async handle(from: Uint8Array, msg: ConsensusMessage): Promise<void> {
    const c = this.c;
    // Any peer may catch up from us, and we from it; the rest is for validators only.
    if (msg.type === 'sync-request') return this.catchUp.onSyncRequest(from, msg.request.hash, msg.request.stopAtHeight, msg.request.max);
    if (msg.type === 'sync-response') return this.catchUp.onSyncResponse(from, msg.blocks);
    if (msg.type === 'range-request') return this.catchUp.onRangeRequest(from, msg.request.fromHeight, msg.request.max);
    if (msg.type === 'range-response') return this.catchUp.onRangeResponse(from, msg.blocks);
    if (msg.type === 'epoch-request') return this.crossing.onEpochRequest(from, msg.epoch);
    if (msg.type === 'epoch-proof') return this.crossing.onEpochProof(from, msg.epoch, msg.proof);
    if (msg.epoch !== c.ep.epoch) return this.crossing.otherEpoch(from, msg);
    if (c.validators.indexOf(from) === undefined) return c.drop('non-validator');
    switch (msg.type) {
      case 'proposal':
        return this.receiving.onProposal(from, msg.proposal);
      case 'vote':
        c.m.votesReceived++;
        return this.voting.onVote(msg.vote, false, from);
      case 'timeout':
        return this.rounds.onTimeout(from, msg.timeout, false);
      case 'tc':
        if (msg.tc.round <= (c.safety.highTc?.round ?? 0)) return;
        if (!c.verifier.verifyTc(msg.tc)) return c.drop('bad-tc', from);
        return this.certifying.processTc(msg.tc);
      case 'qc':
        if (msg.qc.round <= c.safety.highQc.round) return; // nothing new: skip the pairing check
        if (!c.verifier.verifyQc(msg.qc)) return c.drop('bad-qc', from);
        return this.certifying.processQc(msg.qc, from);
    }
  }
}
