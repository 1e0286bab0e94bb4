import { VerificationRepository } from './verification-repository.js';
import { CredentialRepository } from './credential-repository.js';
import { EpochRepository } from './epoch-repository.js';
import { LedgerError } from '../errors.js';
import type { StateChange, StateReader } from '../execution/overlay.js';
import type { Block } from '../protocol/block.js';
import { ByteReader, ByteWriter, bytesEqual, fromHex, toHex, utf8 } from '../protocol/bytes.js';
import type { Receipt } from '../protocol/receipt.js';
import { VALIDATOR_SET_KEY } from '../protocol/records.js';
import type { Transaction } from '../protocol/transaction.js';
import { StateCache } from './state-cache.js';
import { CachedNodeReader, type TreeNodeReader } from './tree/index.js';
import type { Database, StoreOp } from './db.js';
import {
  AccountRepository,
  BlockRepository,
  DidRepository,
  ReceiptRepository,
  TxIndexRepository,
  ValidatorRepository,
  type TxLocation,
} from './repositories.js';

export interface ChainHead {
  seq: number;
  /** the proposal height of the head block */
  height: number;
  hash: Uint8Array;
  stateRoot: Uint8Array;
}

export interface CommitArgs {
  block: Block;
  seq: number;
  /** the block's state writes (null deletes), exactly what the tree update consumed */
  changes: StateChange[];
  /** new tree nodes: lowercase hex hash -> encoded node */
  treeNodes: Map<string, Uint8Array>;
  /** one per transaction, in block order */
  receipts: Receipt[];
  /** other writes that must land in the same batch (e.g. the consensus store's deletions) */
  extraOps?: StoreOp[];
}

export interface ChainStoreOptions {
  chainId: string;
  /** how many tree nodes to keep in memory in front of LevelDB */
  treeCacheNodes?: number;
}

const META = { chainId: utf8('chain_id'), genesisHash: utf8('genesis_hash'), head: utf8('head') } as const;
/** about 20 MB of nodes: the top levels of the tree, which every block reads, stay resident */
const DEFAULT_TREE_CACHE = 100_000;

/**
 * The committed chain in LevelDB. Each block is committed in ONE atomic batch (block, seq and
 * height indexes, receipts, tx index, state writes, tree nodes, head), so a crash leaves either
 * the old head or the new one. In-memory caches change only after the batch is durable.
 */
export class ChainStore {
  readonly accounts: AccountRepository;
  readonly validators: ValidatorRepository;
  readonly dids: DidRepository;
  readonly credentials: CredentialRepository;
  readonly verifications: VerificationRepository;
  readonly blocks: BlockRepository;
  readonly receipts: ReceiptRepository;
  readonly txIndex: TxIndexRepository;
  readonly epochs: EpochRepository;
  private readonly state: StateCache;
  private readonly nodes: CachedNodeReader;
  private current: ChainHead | undefined;
  private genesis: Uint8Array | undefined;
  /** commits run one at a time, each checked against the head the previous one left */
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly db: Database,
    readonly chainId: string,
    treeCacheNodes: number,
  ) {
    this.state = new StateCache({ get: (key) => db.state.get(key) });
    this.nodes = new CachedNodeReader({ getNode: (hash) => db.tree.get(hash) }, treeCacheNodes);
    this.accounts = new AccountRepository(this.state);
    this.validators = new ValidatorRepository(this.state, db.state);
    this.dids = new DidRepository(this.state);
    this.credentials = new CredentialRepository(this.state, db.state);
    this.verifications = new VerificationRepository(this.state, db.state);
    this.blocks = new BlockRepository(db.blocks, db.seq, db.height);
    this.receipts = new ReceiptRepository(db.receipts);
    this.txIndex = new TxIndexRepository(db.txIndex);
    this.epochs = new EpochRepository(db.epochs);
  }

  /** Loads the head; refuses (CHAIN_MISMATCH) a store written for another chain id. */
  static async open(db: Database, options: ChainStoreOptions): Promise<ChainStore> {
    const store = new ChainStore(db, options.chainId, options.treeCacheNodes ?? DEFAULT_TREE_CACHE);
    const [chainIdBytes, genesis, head] = await db.meta.getMany([META.chainId, META.genesisHash, META.head]);
    const stored = chainIdBytes === undefined ? undefined : new TextDecoder().decode(chainIdBytes);
    if (stored !== undefined && stored !== options.chainId) {
      throw new LedgerError('CHAIN_MISMATCH', `the data directory belongs to chain ${stored}, not ${options.chainId}`, 'conflict', {
        stored,
        expected: options.chainId,
      });
    }
    if ((stored === undefined) !== (head === undefined) || (genesis === undefined) !== (head === undefined)) {
      throw new LedgerError('CORRUPT_STORE', 'the store has a head without a chain id or genesis, or the reverse', 'internal');
    }
    store.genesis = genesis;
    store.current = head === undefined ? undefined : decodeHead(head);
    if (store.current) {
      const atSeq = await store.blocks.hashBySeq(store.current.seq);
      if (!atSeq || !bytesEqual(atSeq, store.current.hash)) throw new LedgerError('CORRUPT_STORE', 'the head names a block the seq index does not hold', 'internal');
      await store.epochs.keepCurrent(await store.state.get(VALIDATOR_SET_KEY));
    }
    return store;
  }

  head(): Readonly<ChainHead> | undefined {
    return this.current;
  }

  get genesisHash(): Uint8Array | undefined {
    return this.genesis;
  }

  /** Committed state: the entries the head's state root commits to. */
  stateReader(): StateReader {
    return this.state;
  }

  /** Committed tree nodes, behind a bounded in-memory cache. */
  treeNodes(): TreeNodeReader {
    return this.nodes;
  }

  /** O(1) transaction lookup through the tx index. */
  async getTransaction(txHash: string): Promise<(TxLocation & { tx: Transaction; block: Block; receipt: Receipt }) | undefined> {
    const loc = await this.txIndex.get(txHash);
    if (!loc) return undefined;
    const [block, receipt] = await Promise.all([this.blocks.bySeq(loc.seq), this.receipts.byTxHash(txHash)]);
    const tx = block?.transactions[loc.index];
    if (!block || !tx || !receipt) throw new LedgerError('CORRUPT_STORE', `the tx index names transaction ${txHash} but it is not stored`, 'internal');
    return { ...loc, tx, block, receipt };
  }

  /** Writes block seq 0 with the genesis state, the chain id and the genesis hash. */
  initGenesis(block: Block, changes: StateChange[], treeNodes: Map<string, Uint8Array>): Promise<void> {
    return this.serialize(async () => {
      if (this.current) throw new LedgerError('ALREADY_INITIALIZED', 'the store already has a genesis block', 'conflict');
      const meta: StoreOp[] = [
        { type: 'put', sublevel: this.db.meta, key: META.chainId, value: utf8(this.chainId) },
        { type: 'put', sublevel: this.db.meta, key: META.genesisHash, value: block.hash },
      ];
      await this.write({ block, seq: 0, changes, treeNodes, receipts: [], extraOps: meta });
      this.genesis = block.hash;
    });
  }

  /** Commits the block at head.seq + 1, whose parent must be the head (else SEQ_GAP). */
  commitBlock(args: CommitArgs): Promise<void> {
    return this.serialize(async () => {
      const head = this.current;
      if (!head) throw new LedgerError('NO_GENESIS', 'the store has no genesis block', 'internal');
      if (args.seq !== head.seq + 1) {
        throw new LedgerError('SEQ_GAP', `expected seq ${head.seq + 1}, got ${args.seq}`, 'conflict', { expected: head.seq + 1, got: args.seq });
      }
      if (!bytesEqual(args.block.header.parentHash, head.hash)) {
        throw new LedgerError('SEQ_GAP', `block ${toHex(args.block.hash)} does not extend the head ${toHex(head.hash)}`, 'conflict', {
          parent: toHex(args.block.header.parentHash),
          head: toHex(head.hash),
        });
      }
      if (args.block.header.height <= head.height) {
        throw new LedgerError('HEIGHT_NOT_INCREASING', `height ${args.block.header.height} is not above the head's ${head.height}`, 'conflict');
      }
      await this.write(args);
    });
  }

  private serialize<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async write(args: CommitArgs): Promise<void> {
    const { block, seq, receipts } = args;
    checkReceipts(block, seq, receipts);
    const head: ChainHead = { seq, height: block.header.height, hash: block.hash, stateRoot: block.header.stateRoot };
    const ops: StoreOp[] = [
      ...this.blocks.putOps(block, seq),
      ...this.receipts.putOps(receipts),
      ...this.txIndex.putOps(receipts),
      ...this.epochs.putOps(args.changes),
    ];
    for (const c of args.changes) {
      ops.push(c.value === null ? { type: 'del', sublevel: this.db.state, key: c.key } : { type: 'put', sublevel: this.db.state, key: c.key, value: c.value });
    }
    for (const [hash, node] of args.treeNodes) ops.push({ type: 'put', sublevel: this.db.tree, key: fromHex(hash, 32, 'tree node hash'), value: node });
    ops.push(...(args.extraOps ?? []));
    ops.push({ type: 'put', sublevel: this.db.meta, key: META.head, value: encodeHead(head) });
    await this.db.root.batch(ops);
    this.current = head;
    this.state.apply(args.changes);
    this.nodes.add(args.treeNodes);
  }
}

/** Receipts must match the block one to one, or the tx index would point at the wrong place. */
function checkReceipts(block: Block, seq: number, receipts: readonly Receipt[]): void {
  const hash = toHex(block.hash);
  const ok =
    receipts.length === block.transactions.length &&
    receipts.every((r, i) => r.tx_index === i && r.block_seq === seq && r.block_hash === hash && r.block_height === block.header.height);
  if (!ok) throw new LedgerError('BAD_RECEIPTS', `receipts do not match block ${hash} at seq ${seq}`, 'internal');
}

function encodeHead(h: ChainHead): Uint8Array {
  return new ByteWriter().u64(BigInt(h.seq)).u64(BigInt(h.height)).bytes(h.hash).bytes(h.stateRoot).finish();
}

function decodeHead(bytes: Uint8Array): ChainHead {
  const r = new ByteReader(bytes);
  const head = { seq: Number(r.u64()), height: Number(r.u64()), hash: r.bytes(32), stateRoot: r.bytes(32) };
  r.end();
  return head;
}
