import { EventEmitter } from 'node:events';
import type { EpochInfo } from '../consensus/types.js';
import { InclusionError } from '../execution/apply.js';
import type { BlockContext } from '../execution/context.js';
import { buildBlockBody, executeBlock, type ExecutedTx } from '../execution/block.js';
import { isLedgerError, LedgerError } from '../errors.js';
import { blockHash, transactionsRoot, type Block, type BlockHeader, type QuorumCertificate } from '../protocol/block.js';
import { bytesEqual, toHex } from '../protocol/bytes.js';
import type { Receipt } from '../protocol/receipt.js';
import { transactionHash, type Transaction } from '../protocol/transaction.js';
import type { StateChange, StateReader } from '../execution/overlay.js';
import { lastHeightOf, readValidatorSet } from '../execution/validator-set.js';
import type { TreeNodeReader } from '../state/tree/index.js';
import { updateTree } from '../state/tree/index.js';
import { PendingBlocks } from './pending.js';

/** What the chain needs from the mempool. */
export interface BlockSource {
  /** ready transactions in block order, passing over those `skip` names (already on the branch) */
  select(maxCount: number, opts?: { skip?: (hash: string) => boolean }): Transaction[];
  /** whether each signature verifies; checks only those not verified before, in one batch */
  verifySignatures(txs: readonly Transaction[]): Promise<boolean[]>;
  /** whether select() would return anything now */
  hasReady(): boolean;
  /** every pending transaction, ready or not */
  readonly size: number;
}

/** What the chain needs from the store. */
export interface CommitTarget {
  stateReader(): StateReader;
  treeNodes(): TreeNodeReader;
  head(): { seq: number; height: number; hash: Uint8Array; stateRoot: Uint8Array } | undefined;
  readonly blocks: { byHash(hash: Uint8Array): Promise<Block | undefined>; byHeight(height: number): Promise<Block | undefined> };
  commitBlock(args: {
    block: Block;
    seq: number;
    changes: StateChange[];
    treeNodes: Map<string, Uint8Array>;
    receipts: Receipt[];
  }): Promise<void>;
}

export interface CommittedBlock {
  block: Block;
  seq: number;
  receipts: Receipt[];
}

export interface ChainAppOptions {
  chainId: string;
  network: string;
  store: CommitTarget;
  mempool: BlockSource;
  maxBlockTransactions: number;
  /** how far ahead of the local clock a proposal's timestamp may be */
  maxClockDriftMs?: number;
  now?: () => number;
}

/**
 * The consensus engine's view of the chain: it builds and validates blocks by executing them
 * speculatively on top of their parent, and commits them in one atomic write each. Emits
 * `committed` (CommittedBlock) after each block is durable.
 */
export class ChainApp extends EventEmitter {
  private readonly pending: PendingBlocks;
  private readonly now: () => number;
  private readonly drift: number;

  constructor(private readonly o: ChainAppOptions) {
    super();
    this.pending = new PendingBlocks({ state: o.store.stateReader(), nodes: o.store.treeNodes(), headHash: () => o.store.head()?.hash });
    this.now = o.now ?? Date.now;
    this.drift = o.maxClockDriftMs ?? 5_000;
  }

  hasReadyTransactions(): boolean {
    return this.o.mempool.hasReady();
  }

  pendingTransactionCount(): number {
    return this.o.mempool.size;
  }

  private context(header: Pick<BlockHeader, 'height' | 'round' | 'parentHash' | 'timestampMs' | 'proposer'>): BlockContext {
    const { height, round, parentHash, timestampMs, proposer } = header;
    return { network: this.o.network, height, round, parentHash, timestampMs, proposer };
  }

  getCommittedBlock(hash: Uint8Array): Promise<Block | undefined> {
    return this.o.store.blocks.byHash(hash);
  }

  getCommittedBlockAt(height: number): Promise<Block | undefined> {
    return this.o.store.blocks.byHeight(height);
  }

  /** The epoch the committed state records: its set, the block it starts from and its last height. */
  async currentEpoch(): Promise<EpochInfo> {
    const set = await readValidatorSet(this.o.store.stateReader());
    if (!set) {
      throw new LedgerError('NO_VALIDATOR_SET', 'the chain state records no validator set: this data directory predates epochs; start from a fresh one', 'internal');
    }
    const start = await this.o.store.blocks.byHeight(set.firstHeight === 0 ? 0 : set.firstHeight - 1);
    if (!start) throw new LedgerError('EPOCH_START_MISSING', `the block that starts epoch ${set.epoch} is not in the store`, 'internal');
    return {
      epoch: set.epoch,
      validators: set.validators,
      start: { height: start.header.height, round: start.header.round, hash: start.hash },
      lastHeight: lastHeightOf(set),
    };
  }

  /**
   * The state after block `hash` when it is pending here; the committed state when it is not (at or
   * below the committed head, or not executed here).
   */
  stateAfter(hash: Uint8Array): StateReader {
    try {
      return this.pending.readersAfter(hash).state;
    } catch (err) {
      if (isLedgerError(err) && err.code === 'PARENT_STATE_UNKNOWN') return this.o.store.stateReader();
      throw err;
    }
  }

  async buildBlock(args: { parent: Block; round: number; height: number; justify: QuorumCertificate; proposer: Uint8Array; empty?: boolean }): Promise<Block> {
    const { parent } = args;
    const timestampMs = Math.max(this.now(), parent.header.timestampMs + 1);
    const { state, nodes } = this.pending.readersAfter(parent.hash);
    const already = this.pending.includedTxHashes(parent.hash);
    // What the uncommitted ancestors carry is passed over here, not executed again only to fail on its nonce.
    const candidates = args.empty ? [] : this.o.mempool.select(this.o.maxBlockTransactions, { skip: (hash) => already.has(hash) });
    const ctx = this.context({ height: args.height, round: args.round, parentHash: parent.hash, timestampMs, proposer: args.proposer });
    const final = await buildBlockBody(state, this.o.chainId, ctx, candidates);
    const tree = await updateTree(nodes, parent.header.stateRoot, final.changes);
    const header: BlockHeader = {
      height: args.height,
      round: args.round,
      parentHash: parent.hash,
      stateRoot: tree.root,
      transactionsRoot: transactionsRoot(this.o.chainId, final.txs.map((e) => e.tx)),
      timestampMs,
      proposer: args.proposer,
      justify: args.justify,
    };
    const block: Block = { header, hash: blockHash(header), transactions: final.txs.map((e) => e.tx) };
    this.pending.add({ block, executed: final.txs, changes: final.changes, treeNodes: tree.nodes });
    return block;
  }

  /**
   * Checks a block against its parent. What it throws says who is at fault (see ConsensusApp):
   * kind 'invalid' when the block is wrong by itself (its sender is to blame), 'conflict' when it
   * disagrees with the state this node computed (the block is wrong, or this node is), 'limit'
   * when its timestamp is ahead of this node's clock, 'internal' when the parent's state is not
   * known here.
   */
  async validateBlock(block: Block, parent: Block): Promise<void> {
    const h = block.header;
    if (this.pending.get(block.hash)) return; // built or validated here already
    if (!bytesEqual(h.parentHash, parent.hash)) throw reject('BAD_PARENT', 'parent_hash does not match the parent');
    if (h.timestampMs <= parent.header.timestampMs) throw reject('BAD_TIMESTAMP', `timestamp ${h.timestampMs} is not after the parent's ${parent.header.timestampMs}`);
    if (block.transactions.length > this.o.maxBlockTransactions) throw reject('BLOCK_TOO_LARGE', `${block.transactions.length} transactions, at most ${this.o.maxBlockTransactions}`);
    if (!bytesEqual(h.transactionsRoot, transactionsRoot(this.o.chainId, block.transactions))) throw reject('BAD_TX_ROOT', 'transactions_root mismatch');
    const bad = (await this.o.mempool.verifySignatures(block.transactions)).indexOf(false);
    if (bad >= 0) throw reject('BAD_SIGNATURE', `transaction ${transactionHash(this.o.chainId, block.transactions[bad]!)} has a bad signature`);
    const ahead = h.timestampMs - this.now();
    if (ahead > this.drift) {
      throw new LedgerError('TIMESTAMP_AHEAD', `timestamp is ${ahead} ms ahead of this node's clock (at most ${this.drift} ms)`, 'limit', { ahead_ms: ahead, max_ms: this.drift });
    }
    const { state, nodes } = this.pending.readersAfter(parent.hash);
    let exec;
    try {
      exec = await executeBlock(state, this.o.chainId, this.context(h), block.transactions);
    } catch (err) {
      if (!(err instanceof InclusionError)) throw err;
      throw new LedgerError('EXECUTION_FAILED', `block cannot be executed on the state after its parent: ${err.message}`, 'conflict', { height: h.height, tx_error: err.code });
    }
    const tree = await updateTree(nodes, parent.header.stateRoot, exec.changes);
    if (!bytesEqual(tree.root, h.stateRoot)) throw stateRootMismatch(block, tree.root);
    this.pending.add({ block, executed: exec.txs, changes: exec.changes, treeNodes: tree.nodes });
  }

  async commit(blocks: Block[], _commitQc: QuorumCertificate): Promise<void> {
    for (const block of blocks) {
      const head = this.o.store.head();
      const seq = head ? head.seq + 1 : 0;
      let p = this.pending.get(block.hash);
      if (!p) {
        // Not executed here yet: it must sit on the committed head, whose state is the store's.
        if (!head || !bytesEqual(block.header.parentHash, head.hash)) {
          throw new LedgerError('COMMIT_OUT_OF_ORDER', `block ${toHex(block.hash)} at height ${block.header.height} does not extend the committed head`, 'internal');
        }
        const exec = await executeBlock(this.o.store.stateReader(), this.o.chainId, this.context(block.header), block.transactions);
        const tree = await updateTree(this.o.store.treeNodes(), head.stateRoot, exec.changes);
        if (!bytesEqual(tree.root, block.header.stateRoot)) throw stateRootMismatch(block, tree.root);
        p = { block, executed: exec.txs, changes: exec.changes, treeNodes: tree.nodes };
      }
      const receipts = p.executed.map((e, i) => receipt(e, block, seq, i));
      await this.o.store.commitBlock({ block, seq, changes: p.changes, treeNodes: p.treeNodes, receipts });
      this.pending.prune(block.header.height);
      this.emit('committed', { block, seq, receipts } satisfies CommittedBlock);
    }
  }
}

function receipt(e: ExecutedTx, block: Block, seq: number, index: number): Receipt {
  return {
    tx_hash: toHex(e.hash),
    status: e.outcome.status,
    block_height: block.header.height,
    fee_paid: e.outcome.feePaid,
    events: e.outcome.events,
    block_hash: toHex(block.hash),
    block_seq: seq,
    tx_index: index,
  };
}

/** The block is invalid by itself, whatever this node's state: its sender is at fault. */
function reject(code: string, message: string): LedgerError {
  return new LedgerError(code, message, 'invalid');
}

/** The block disagrees with this node's execution of it: the block is wrong, or this node is. */
function stateRootMismatch(block: Block, computed: Uint8Array): LedgerError {
  const h = block.header;
  return new LedgerError('STATE_ROOT_MISMATCH', `state root mismatch in block ${toHex(block.hash)} at height ${h.height}: the block says ${toHex(h.stateRoot)}, execution here gives ${toHex(computed)}`, 'conflict', {
    height: h.height,
    expected: toHex(h.stateRoot),
    actual: toHex(computed),
  });
}
