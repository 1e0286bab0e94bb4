import type { Block, QuorumCertificate } from '../protocol/block.js';

/** One validator: its Ed25519 identity address, its BLS vote key (48-byte G1) and voting weight. */
export interface Validator {
  address: Uint8Array;
  blsPublicKey: Uint8Array;
  weight: bigint;
}

/** The validator set in canonical order: bitmaps and leader rotation index into this array. */
export interface ValidatorSetData {
  validators: Validator[];
}

/** A vote for one block in one round, signed over voteDigest(chainId, epoch, round, height, blockHash). */
export interface Vote {
  round: number;
  height: number;
  blockHash: Uint8Array;
  voter: Uint8Array;
  signature: Uint8Array;
}

/** "I give up on `round`", signed over timeoutDigest(chainId, epoch, round, highQc.round). */
export interface Timeout {
  round: number;
  highQc: QuorumCertificate;
  voter: Uint8Array;
  signature: Uint8Array;
}

/**
 * A timeout certificate: timeouts for `round` from more than 2/3 of the weight. Each signer signed
 * its own high-QC round, so the TC lists those rounds (one per set bit of `signers`, in bitmap
 * order) and carries one aggregate signature over the distinct messages. `highQc` is the highest
 * of the signers' QCs: the next leader must extend at least it.
 */
export interface TimeoutCertificate {
  round: number;
  highQc: QuorumCertificate;
  signers: Uint8Array;
  highQcRounds: number[];
  signature: Uint8Array;
}

/**
 * A proposal: the block, and when the previous round ended by timeout, the TC that lets the
 * leader skip ahead. `signature` is the leader's own vote signature on the block, so it both
 * authenticates the proposal and counts as the leader's vote.
 */
export interface Proposal {
  block: Block;
  tc: TimeoutCertificate | undefined;
  signature: Uint8Array;
}

/** Ask a peer for `max` committed blocks by height (= seq), from `fromHeight` on. */
export interface RangeRequest {
  fromHeight: number;
  max: number;
}

/** Ask a peer for the ancestors of `hash` (inclusive), newest first walk, stopping above `stopAtHeight`. */
export interface SyncRequest {
  hash: Uint8Array;
  stopAtHeight: number;
  max: number;
}

/**
 * Proof that an epoch ended: its boundary block (the block at the epoch's last height), the
 * empty blocks built on it while it was still uncommitted, and the QC of the last of them, which
 * completes a 3-chain that commits the boundary. Every QC in it is of the ending epoch's set. A
 * node still in that epoch verifies it with the set it has and crosses into the next.
 */
export interface EpochProof {
  blocks: Block[];
  qc: QuorumCertificate;
}

/**
 * Every message names the epoch it belongs to: votes and certificates only verify within their
 * epoch (rounds start over in each), so a peer a step behind or ahead is told apart from a
 * misbehaving one. For `epoch-proof` it is the epoch that ended; for `epoch-request`, the
 * sender's current epoch, whose end it asks for.
 */
export type ConsensusMessage = ConsensusMessageBody & { epoch: number };

export type ConsensusMessageBody =
  | { type: 'proposal'; proposal: Proposal }
  | { type: 'vote'; vote: Vote }
  | { type: 'timeout'; timeout: Timeout }
  | { type: 'tc'; tc: TimeoutCertificate }
  /** a QC relayed by the leader that proposed its block, in case the next leader is down */
  | { type: 'qc'; qc: QuorumCertificate }
  | { type: 'sync-request'; request: SyncRequest }
  /** blocks oldest first; the last one is the requested hash */
  | { type: 'sync-response'; blocks: Block[] }
  | { type: 'range-request'; request: RangeRequest }
  /** committed blocks at consecutive heights from the requested one */
  | { type: 'range-response'; blocks: Block[] }
  | { type: 'epoch-request' }
  | { type: 'epoch-proof'; proof: EpochProof };

/** What must survive a crash before this validator sends any vote or timeout. */
export interface SafetyState {
  /** the epoch these rules apply to: a new epoch starts them over, rooted at its start block */
  epoch: number;
  /** the highest round this validator voted or timed out in; it never signs a vote at or below it */
  lastVotedRound: number;
  /** the QC of the 2-chain head: only blocks extending it (or justified by a higher QC) get votes */
  lockedQc: QuorumCertificate;
  /** the highest QC seen: a leader extends it */
  highQc: QuorumCertificate;
  /** the highest TC seen: it proves the current round was entered legitimately */
  highTc: TimeoutCertificate | undefined;
}

export type EvidenceKind = 'double-proposal' | 'double-vote';

/** Two conflicting signed items from one validator in one round of one epoch. */
export type Evidence =
  | { kind: 'double-proposal'; epoch: number; round: number; validator: Uint8Array; first: Proposal; second: Proposal }
  | { kind: 'double-vote'; epoch: number; round: number; validator: Uint8Array; first: Vote; second: Vote };

/**
 * One epoch as the committed chain records it. Epoch 0 starts from genesis; epoch e + 1 starts
 * from the boundary block of epoch e (the block at its `lastHeight`), whose round and hash make
 * the epoch's signer-less start QC. Rounds run on from that block's round.
 */
export interface EpochInfo {
  epoch: number;
  /** the set in canonical order */
  validators: Validator[];
  start: { height: number; round: number; hash: Uint8Array };
  /** the height whose block computes the next set; undefined when the set never changes */
  lastHeight: number | undefined;
}

/** The application side of consensus: the chain executes, validates and commits blocks. */
export interface ConsensusApp {
  /**
   * Build the block body on top of `parent` (the app executes it speculatively and sets state_root / transactions_root).
   * `empty`: carry no transactions (a block above an epoch's boundary block, which only helps commit it).
   */
  buildBlock(args: { parent: Block; round: number; height: number; justify: QuorumCertificate; proposer: Uint8Array; empty?: boolean }): Promise<Block>;
  /** The epoch of the next block to commit: once a boundary block has committed, the epoch it starts. */
  currentEpoch(): Promise<EpochInfo>;
  /**
   * Validate a block's contents (re-execution, state root, timestamp rules) on top of `parent`,
   * which is the committed head or a block this app validated or built since it started. Throw to
   * reject; the error's `kind` (LedgerError) says who is at fault:
   * - 'invalid': the block is wrong by itself, whatever the state (its sender is penalized);
   * - 'conflict': it disagrees with the state computed here (if a quorum certifies it anyway,
   *   this node's state is the wrong one: the engine stops signing);
   * - anything else: this node cannot judge it now (its clock, its own failure).
   */
  validateBlock(block: Block, parent: Block): Promise<void>;
  /** Newly committed blocks, oldest first, each exactly once. Must be durable when it resolves. */
  commit(blocks: Block[], commitQc: QuorumCertificate): Promise<void>;
  /** true when the mempool holds a transaction the next block could include (not one behind a nonce gap), so the leader should not idle */
  hasReadyTransactions(): boolean;
  /** how many transactions the mempool holds, ready or not (those in uncommitted blocks included) */
  pendingTransactionCount(): number;
  /** A committed block by hash, to serve peers that catch up (undefined when unknown). */
  getCommittedBlock(hash: Uint8Array): Promise<Block | undefined>;
  /** A committed block by height, to serve peers that catch up by height (undefined above the head). */
  getCommittedBlockAt(height: number): Promise<Block | undefined>;
}

/**
 * How consensus messages travel. `from`/`to` are validator addresses, and `from` must be
 * authenticated by the transport (libp2p: the Noise-verified peer key is the validator key): the
 * engine trusts a proposal that comes straight from its leader without a separate signature check.
 */
export interface ConsensusTransport {
  broadcast(msg: ConsensusMessage): void;
  send(to: Uint8Array, msg: ConsensusMessage): void;
  onMessage(handler: (from: Uint8Array, msg: ConsensusMessage) => void): void;
}
