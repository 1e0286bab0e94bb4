import { keyPairFromSeed } from '../../node/crypto/ed25519.js';
import { blake3 } from '../../node/crypto/hash.js';
import { addressBytesFromPublicKey } from '../../node/protocol/address.js';
import { blockHash, transactionsRoot, type Block, type BlockHeader, type QuorumCertificate } from '../../node/protocol/block.js';
import { bytesEqual, concatBytes, toHex } from '../../node/protocol/bytes.js';
import { signTransaction, transactionHash, type Transaction } from '../../node/protocol/transaction.js';
import { BlsQuorumCrypto, blsKeyFromSeed } from '../../node/consensus/crypto.js';
import { ConsensusEngine, type ConsensusEngineOptions } from '../../node/consensus/engine.js';
import { LedgerError } from '../../node/errors.js';
import { LoopbackNetwork } from '../../node/consensus/loopback.js';
import { MemoryConsensusStore } from '../../node/consensus/store.js';
import type { ConsensusApp, EpochInfo, Validator } from '../../node/consensus/types.js';

/** Test support: a small deterministic app, deterministic validator keys, and N-node networks. */

export const CHAIN = 'consensus-test';

export function genesisBlock(): Block {
  const header: BlockHeader = {
    height: 0,
    round: 0,
    parentHash: new Uint8Array(32),
    stateRoot: new Uint8Array(32),
    transactionsRoot: new Uint8Array(32),
    timestampMs: 1_000,
    proposer: new Uint8Array(20),
    justify: { round: 0, height: 0, blockHash: new Uint8Array(32), signers: new Uint8Array(0), signature: new Uint8Array(0) },
  };
  return { header, hash: blockHash(header), transactions: [] };
}

const user = keyPairFromSeed(new Uint8Array(32).fill(200));

export function transfer(nonce: number): Transaction {
  return signTransaction(CHAIN, { senderPubkey: user.publicKey, nonce: BigInt(nonce), payload: { kind: 'Transfer', to: new Uint8Array(20).fill(9), amount: 1n } }, user.seed);
}

/** Which set validates each epoch; without `length` the first set validates forever. */
export interface EpochPlan {
  length?: number;
  sets: (epoch: number) => Validator[];
}

/**
 * A deterministic app: the state root of a block is BLAKE3(parent state root || tx root), and a
 * committed chain must grow one parent at a time. It throws if consensus commits out of order.
 * Epochs follow `plan`: epoch e covers heights [e * length, (e + 1) * length).
 */
export class TestApp implements ConsensusApp {
  readonly committed: Block[] = [];
  private readonly committedByHash = new Map<string, Block>();
  private readonly known = new Map<string, Block>();
  mempool: Transaction[] = [];
  /** when set, proposals from this proposer are rejected */
  rejectFrom: Uint8Array | undefined;
  /** when set, every block disagrees with this app's state (a node whose state went wrong) */
  diverged = false;
  commitCalls = 0;

  constructor(
    readonly genesis: Block,
    readonly plan: EpochPlan,
    committed: Block[] = [],
  ) {
    for (const b of [genesis, ...committed]) this.remember(b);
    this.committed.push(...committed);
  }

  private remember(b: Block): void {
    this.known.set(toHex(b.hash), b);
    this.committedByHash.set(toHex(b.hash), b);
  }

  get head(): Block {
    return this.committed[this.committed.length - 1] ?? this.genesis;
  }

  submit(tx: Transaction): void {
    this.mempool.push(tx);
  }

  private includedAbove(parent: Block): Set<string> {
    const out = new Set<string>();
    let b: Block | undefined = parent;
    while (b && !this.committedByHash.has(toHex(b.hash))) {
      for (const tx of b.transactions) out.add(transactionHash(CHAIN, tx));
      b = this.known.get(toHex(b.header.parentHash));
    }
    return out;
  }

  async currentEpoch(): Promise<EpochInfo> {
    const length = this.plan.length;
    const epoch = length === undefined ? 0 : Math.floor((this.head.header.height + 1) / length);
    const start = epoch === 0 ? this.genesis : this.committed.find((b) => b.header.height === epoch * length! - 1)!;
    return {
      epoch,
      validators: this.plan.sets(epoch),
      start: { height: start.header.height, round: start.header.round, hash: start.hash },
      lastHeight: length === undefined ? undefined : (epoch + 1) * length - 1,
    };
  }

  async buildBlock(args: { parent: Block; round: number; height: number; justify: QuorumCertificate; proposer: Uint8Array; empty?: boolean }): Promise<Block> {
    if (!this.known.has(toHex(args.parent.hash))) throw new LedgerError('PARENT_STATE_UNKNOWN', `parent ${toHex(args.parent.hash)} was not executed here`, 'internal');
    const already = this.includedAbove(args.parent);
    const txs = args.empty ? [] : this.mempool.filter((tx) => !already.has(transactionHash(CHAIN, tx)));
    const txRoot = transactionsRoot(CHAIN, txs);
    const header: BlockHeader = {
      height: args.height,
      round: args.round,
      parentHash: args.parent.hash,
      stateRoot: blake3(concatBytes(args.parent.header.stateRoot, txRoot)),
      transactionsRoot: txRoot,
      timestampMs: Math.max(Date.now(), args.parent.header.timestampMs + 1),
      proposer: args.proposer,
      justify: args.justify,
    };
    const block = { header, hash: blockHash(header), transactions: txs };
    this.known.set(toHex(block.hash), block);
    return block;
  }

  /** Like the chain's app: a parent must be committed or built or validated by this instance (its state lives in memory only). */
  async validateBlock(block: Block, parent: Block): Promise<void> {
    const h = block.header;
    if (this.rejectFrom && bytesEqual(h.proposer, this.rejectFrom)) throw new LedgerError('TEST_REJECT', 'proposer rejected by test', 'invalid');
    if (!bytesEqual(h.parentHash, parent.hash)) throw new LedgerError('BAD_PARENT', 'bad parent', 'invalid');
    if (h.timestampMs <= parent.header.timestampMs) throw new LedgerError('BAD_TIMESTAMP', 'bad timestamp', 'invalid');
    const txRoot = transactionsRoot(CHAIN, block.transactions);
    if (!bytesEqual(h.transactionsRoot, txRoot)) throw new LedgerError('BAD_TX_ROOT', 'bad tx root', 'invalid');
    if (!this.known.has(toHex(parent.hash))) throw new LedgerError('PARENT_STATE_UNKNOWN', `parent ${toHex(parent.hash)} was not executed here`, 'internal');
    if (this.diverged || !bytesEqual(h.stateRoot, blake3(concatBytes(parent.header.stateRoot, txRoot)))) throw new LedgerError('STATE_ROOT_MISMATCH', 'bad state root', 'conflict');
    this.known.set(toHex(block.hash), block);
  }

  /** The app of a restarted process: the committed chain survives, what was only in memory does not. */
  restarted(): TestApp {
    const app = new TestApp(this.genesis, this.plan, this.committed);
    app.mempool = [...this.mempool];
    return app;
  }

  async commit(blocks: Block[], commitQc: QuorumCertificate): Promise<void> {
    this.commitCalls++;
    for (const b of blocks) {
      if (!bytesEqual(b.header.parentHash, this.head.hash)) throw new Error(`commit out of order at height ${b.header.height}`);
      this.committed.push(b);
      this.remember(b);
      const done = new Set(b.transactions.map((tx) => transactionHash(CHAIN, tx)));
      this.mempool = this.mempool.filter((tx) => !done.has(transactionHash(CHAIN, tx)));
    }
    const last = blocks[blocks.length - 1]!;
    if (!bytesEqual(commitQc.blockHash, last.hash)) throw new Error('the commit QC does not certify the last committed block');
  }

  hasReadyTransactions(): boolean {
    return this.mempool.length > 0;
  }

  pendingTransactionCount(): number {
    return this.mempool.length;
  }

  async getCommittedBlock(hash: Uint8Array): Promise<Block | undefined> {
    return this.committedByHash.get(toHex(hash));
  }

  async getCommittedBlockAt(height: number): Promise<Block | undefined> {
    return height === 0 ? this.genesis : this.committed[height - 1];
  }
}

export interface TestValidator {
  address: Uint8Array;
  blsSecret: Uint8Array;
  validator: Validator;
}

export function makeValidators(n: number): TestValidator[] {
  return Array.from({ length: n }, (_, i) => {
    const seed = new Uint8Array(32).fill(i + 1);
    const address = addressBytesFromPublicKey(keyPairFromSeed(seed).publicKey);
    const bls = blsKeyFromSeed(seed);
    return { address, blsSecret: bls.secretKey, validator: { address, blsPublicKey: bls.publicKey, weight: 1n } };
  });
}

export const FAST = { baseTimeoutMs: 1_500, multiplier: 1.5, maxTimeoutMs: 6_000, retransmitMs: 700 };

export interface TestNode {
  v: TestValidator;
  app: TestApp;
  store: MemoryConsensusStore;
  engine: ConsensusEngine;
}

export class Cluster {
  readonly network: LoopbackNetwork;
  readonly validators: TestValidator[];
  readonly nodes: TestNode[] = [];
  readonly genesis = genesisBlock();
  /** errors engines reported; a test asserts there are none */
  readonly faults: unknown[] = [];

  readonly plan: EpochPlan;

  /** n nodes; by default all n validate every epoch */
  constructor(n: number, readonly extra: Partial<ConsensusEngineOptions> = {}, plan?: EpochPlan) {
    this.network = new LoopbackNetwork();
    this.validators = makeValidators(n);
    this.plan = plan ?? { sets: () => this.validators.map((x) => x.validator) };
    for (let i = 0; i < n; i++) this.nodes.push(this.create(i, new TestApp(this.genesis, this.plan), new MemoryConsensusStore()));
  }

  create(i: number, app: TestApp, store: MemoryConsensusStore): TestNode {
    const v = this.validators[i]!;
    const engine = new ConsensusEngine({
      chainId: CHAIN,
      self: { address: v.address, crypto: new BlsQuorumCrypto(v.blsSecret) },
      app,
      transport: this.network.connect(v.address),
      store,
      genesis: this.genesis,
      committedHead: app.head,
      pacemaker: FAST,
      idleBlockIntervalMs: 50,
      ...this.extra,
    });
    engine.on('fault', (err: unknown) => this.faults.push(err));
    return { v, app, store, engine };
  }

  async start(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.engine.start()));
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.engine.stop()));
  }

  /** Crash node i: stop it and cut it off. */
  async crash(i: number): Promise<void> {
    const node = this.nodes[i]!;
    this.network.disconnect(node.v.address);
    await node.engine.stop();
  }

  /** Restart node i from its own store and committed chain (new engine and app instances, as after a process restart). */
  async restart(i: number): Promise<TestNode> {
    const old = this.nodes[i]!;
    const node = this.create(i, old.app.restarted(), old.store);
    this.nodes[i] = node;
    await node.engine.start();
    return node;
  }
}

export async function waitFor(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Every pair of committed chains agrees on their common prefix. */
export function assertNoFork(apps: TestApp[]): void {
  for (const a of apps) {
    for (const b of apps) {
      const n = Math.min(a.committed.length, b.committed.length);
      for (let i = 0; i < n; i++) {
        if (!bytesEqual(a.committed[i]!.hash, b.committed[i]!.hash)) throw new Error(`fork at committed index ${i}`);
      }
    }
  }
}
