import { join } from 'node:path';
import { Registry } from 'prom-client';
import { buildGenesisBlock } from '../../node/chain/genesis-block.js';
import { keyPairFromSeed } from '../../node/crypto/ed25519.js';
import { createLogger } from '../../node/logging.js';
import { Mempool } from '../../node/mempool/index.js';
import { HeadSignal } from '../../node/plugins/block-stream.js';
import { PluginHost } from '../../node/plugins/host.js';
import { addressBytesFromPublicKey, formatAddress } from '../../node/protocol/address.js';
import { blockHash, transactionsRoot, type Block, type BlockHeader } from '../../node/protocol/block.js';
import { toHex } from '../../node/protocol/bytes.js';
import { MIN_VALIDATOR_STAKE } from '../../node/protocol/params.js';
import { SUCCESS, type Receipt } from '../../node/protocol/receipt.js';
import { signTransaction, transactionHash, type Transaction } from '../../node/protocol/transaction.js';
import { ChainStore } from '../../node/state/chain-store.js';
import { openDatabase, type Database } from '../../node/state/db.js';
import { createExplorer } from '../../plugins/explorer/index.js';
import type { StoreFactory } from '../../plugins/explorer/store/open.js';

/** The chain's command-line options, shared by the explorer benches: 3,000 blocks, about 102k transactions. */
export const CHAIN_OPTIONS = {
  'small-blocks': { type: 'string', default: '2000' },
  'big-blocks': { type: 'string', default: '1000' },
  'txs-per-block': { type: 'string', default: '100' },
  senders: { type: 'string', default: '50' },
} as const;

/**
 * A chain for the explorer benches, written straight into a real LevelDB store: signed transfers,
 * round-robin over `senders` fixed keys, with success receipts, on a one-validator genesis. No
 * consensus runs (the quorum certificates are placeholders): what the benches measure is the
 * explorer over a store of that shape.
 */
export class BenchChain {
  static readonly CHAIN = 'bench-explorer';
  readonly validator = keyPairFromSeed(new Uint8Array(32).fill(200));
  readonly senders: ReturnType<typeof keyPairFromSeed>[];
  private readonly nonces = new Map<number, bigint>();
  txCount = 0;

  private constructor(
    readonly db: Database,
    readonly store: ChainStore,
    senders: number,
  ) {
    this.senders = Array.from({ length: senders }, (_, i) => keyPairFromSeed(new Uint8Array(32).fill(i + 1)));
  }

  /** A new chain (genesis only) in `dir`. */
  static async open(dir: string, senders = 50): Promise<BenchChain> {
    const db = await openDatabase(join(dir, 'chain'));
    const store = await ChainStore.open(db, { chainId: BenchChain.CHAIN });
    const chain = new BenchChain(db, store, senders);
    const g = await buildGenesisBlock({
      genesisTimeMs: Date.now(),
      accounts: [],
      validators: [{ address: addressBytesFromPublicKey(chain.validator.publicKey), ed25519PublicKey: chain.validator.publicKey, blsPublicKey: new Uint8Array(48).fill(1), stake: MIN_VALIDATOR_STAKE, reputation: 0 }],
    });
    await store.initGenesis(g.block, g.changes, g.treeNodes);
    return chain;
  }

  /** Appends `small` one-transfer blocks, then `big` blocks of `per`; returns the seq after each part. */
  async build(small: number, big: number, per: number): Promise<{ smallTop: number; top: number }> {
    const started = performance.now();
    for (let i = 0; i < small; i++) await this.commit(1);
    const smallTop = this.store.head()!.seq;
    for (let i = 0; i < big; i++) await this.commit(per);
    const top = this.store.head()!.seq;
    console.log(`built ${top} blocks, ${this.txCount} transactions in ${Math.round((performance.now() - started) / 1000)} s`);
    return { smallTop, top };
  }

  /** The address of sender `i`. */
  address(i: number): string {
    return formatAddress(addressBytesFromPublicKey(this.senders[i]!.publicKey));
  }

  /** Appends one block of `n` signed transfers, round-robin over the senders, with success receipts. */
  async commit(n: number): Promise<void> {
    const head = this.store.head()!;
    const seq = head.seq + 1;
    const transactions: Transaction[] = [];
    for (let i = 0; i < n; i++) {
      const s = this.txCount++ % this.senders.length;
      const nonce = this.nonces.get(s) ?? 0n;
      this.nonces.set(s, nonce + 1n);
      const to = addressBytesFromPublicKey(this.senders[(s + 1) % this.senders.length]!.publicKey);
      transactions.push(signTransaction(BenchChain.CHAIN, { senderPubkey: this.senders[s]!.publicKey, nonce, payload: { kind: 'Transfer', to, amount: 1n } }, this.senders[s]!.seed));
    }
    const header: BlockHeader = {
      height: head.height + 1,
      round: head.height + 1,
      parentHash: head.hash,
      stateRoot: head.stateRoot,
      transactionsRoot: transactionsRoot(BenchChain.CHAIN, transactions),
      timestampMs: Date.now(),
      proposer: addressBytesFromPublicKey(this.validator.publicKey),
      justify: { round: head.height, height: head.height, blockHash: head.hash, signers: Uint8Array.of(1), signature: new Uint8Array(96) },
    };
    const block: Block = { header, hash: blockHash(header), transactions };
    const receipts: Receipt[] = transactions.map((tx, i) => ({
      tx_hash: transactionHash(BenchChain.CHAIN, tx),
      status: SUCCESS,
      block_height: header.height,
      fee_paid: 1000n,
      events: [],
      block_hash: toHex(block.hash),
      block_seq: seq,
      tx_index: i,
    }));
    await this.store.commitBlock({ block, seq, changes: [], treeNodes: new Map(), receipts });
  }

  /** The explorer plugin on this chain, on a free port, as the node's plugin host runs it; its index in `store` (default: the node's LevelDB). */
  async startExplorer(store?: StoreFactory): Promise<{ url: string; head: HeadSignal; stop: () => Promise<void> }> {
    const head = new HeadSignal();
    const host = new PluginHost({
      chainId: BenchChain.CHAIN,
      network: 'testnet',
      store: this.store,
      db: this.db,
      mempool: new Mempool({ chainId: BenchChain.CHAIN, network: 'testnet', state: this.store.stateReader() }),
      head,
      metrics: new Registry(),
      log: createLogger({ level: 'silent' }),
    });
    const [state] = await host.start([createExplorer(store ? { store } : {})], { explorer: { enabled: true, host: '127.0.0.1', port: 0 } });
    return { url: (state as { url: string }).url, head, stop: () => host.stop() };
  }
}
