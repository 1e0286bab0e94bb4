/**
 * bench/block: what one block costs a validator, by stage and by size, on a LevelDB store on disk:
 * the leader's build (select, execute, state tree, hash), a replica's admission of the block's
 * transactions from their wire bytes (decode, hash, Ed25519, mempool), its validation of the block
 * decoded from the proposal's bytes (signatures already checked at admission), and the commit (one
 * atomic write). Each stage is timed as wall time and as CPU time of this process, in milliseconds and in
 * Ed25519 verifications timed in the same run (bench/lib/ed25519-unit.ts).
 *
 *   npm run bench:block -- [--sizes 10,50,200,1000] [--senders 500] [--blocks 5]
 *
 * The CPU time counts LevelDB's own threads too (its writes and compactions), so it can exceed the
 * wall time. Prints a table and writes bench/results/block.json.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ChainApp } from '../node/chain/app.js';
import { buildGenesisBlock } from '../node/chain/genesis-block.js';
import { BlsQuorumCrypto, blsKeyFromSeed } from '../node/consensus/crypto.js';
import { keyPairFromSeed } from '../node/crypto/ed25519.js';
import { Mempool } from '../node/mempool/index.js';
import { addressBytesFromPublicKey } from '../node/protocol/address.js';
import { decodeBlock, encodeBlock, type Block, type QuorumCertificate } from '../node/protocol/block.js';
import { MIN_VALIDATOR_STAKE } from '../node/protocol/params.js';
import { decodeTransaction, encodeTransaction, signTransaction, type Transaction } from '../node/protocol/transaction.js';
import { ChainStore } from '../node/state/chain-store.js';
import { openDatabase } from '../node/state/db.js';
import { timeEd25519Verify } from './lib/ed25519-unit.js';
import { machine, percentile } from './lib/stats.js';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '10,50,200,1000' },
    senders: { type: 'string', default: '500' },
    blocks: { type: 'string', default: '5' },
    out: { type: 'string', default: 'bench/results/block.json' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log('bench/block: build, validate and commit cost of one block by size\n\n  npm run bench:block -- [--sizes 10,50,200,1000] [--senders 500] [--blocks 5] [--out file]');
  process.exit(0);
}
const sizes = values.sizes!.split(',').map(Number);
const senderCount = Number(values.senders);
const blocksPerSize = Number(values.blocks);
if (!sizes.every((n) => Number.isInteger(n) && n >= 0) || !Number.isInteger(senderCount) || senderCount < 2 || !Number.isInteger(blocksPerSize) || blocksPerSize < 1) {
  console.error('--sizes takes whole numbers from 0, --senders a whole number from 2, --blocks one from 1');
  process.exit(2);
}
const CHAIN = 'bench-block';
const NETWORK = 'testnet';

const senders = Array.from({ length: senderCount }, (_, i) => {
  const seed = new Uint8Array(32);
  new DataView(seed.buffer).setUint32(0, i + 1);
  const k = keyPairFromSeed(seed);
  return { ...k, address: addressBytesFromPublicKey(k.publicKey), nonce: 0n };
});
const validatorKeys = [1, 2, 3, 4].map((b) => {
  const ed = keyPairFromSeed(new Uint8Array(32).fill(b));
  return { address: addressBytesFromPublicKey(ed.publicKey), ed25519PublicKey: ed.publicKey, blsPublicKey: blsKeyFromSeed(new Uint8Array(32).fill(b)).publicKey, stake: MIN_VALIDATOR_STAKE, reputation: 100 };
});

/** One validator's store and app, in its own directory. */
async function node(dir: string) {
  const db = await openDatabase(dir);
  const store = await ChainStore.open(db, { chainId: CHAIN });
  const g = await buildGenesisBlock({ genesisTimeMs: 1_000, accounts: senders.map((s) => ({ address: s.address, balance: 10n ** 18n })), validators: validatorKeys });
  await store.initGenesis(g.block, g.changes, g.treeNodes);
  const mempool = new Mempool({ chainId: CHAIN, network: NETWORK, state: store.stateReader(), maxPerSender: 10_000, maxNonceGap: 10_000 });
  const app = new ChainApp({ chainId: CHAIN, network: NETWORK, store, mempool, maxBlockTransactions: Math.max(...sizes) });
  return { db, store, mempool, app, genesis: g.block };
}

/** `n` transfers, round-robin over the senders, each sender's nonces in order. */
function transfers(n: number): Transaction[] {
  const out: Transaction[] = [];
  for (let i = 0; i < n; i++) {
    const s = senders[i % senders.length]!;
    const to = senders[(i + 1) % senders.length]!.address;
    out.push(signTransaction(CHAIN, { senderPubkey: s.publicKey, nonce: s.nonce++, payload: { kind: 'Transfer', to, amount: 1n } }, s.seed));
  }
  return out;
}

const qc = (b: Block, round: number): QuorumCertificate => ({ round, height: b.header.height, blockHash: b.hash, signers: Uint8Array.of(15), signature: new Uint8Array(96) });

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; wallMs: number; cpuMs: number }> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const value = await fn();
  const wallMs = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { value, wallMs, cpuMs: (c.user + c.system) / 1000 };
}

const median = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 50);

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'ledger-bench-block-'));
  const unitBefore = timeEd25519Verify().us;
  const leader = await node(join(dir, 'leader'));
  const replica = await node(join(dir, 'replica'));
  const bls = new BlsQuorumCrypto(blsKeyFromSeed(new Uint8Array(32).fill(1)).secretKey);
  let parent = leader.genesis;
  let round = 1;
  const rows: Array<Record<string, number>> = [];
  for (const size of sizes) {
    const stages: Record<string, { wall: number[]; cpu: number[] }> = {};
    const add = (name: string, r: { wallMs: number; cpuMs: number }) => {
      const s = (stages[name] ??= { wall: [], cpu: [] });
      s.wall.push(r.wallMs);
      s.cpu.push(r.cpuMs);
    };
    for (let k = 0; k < blocksPerSize; k++) {
      const txs = transfers(size);
      for (const tx of txs) await leader.mempool.admit(tx);
      // the replica gets its copies as gossip brings them: bytes, decoded on arrival
      const wire = txs.map((tx) => encodeTransaction(tx).slice());
      add('admit', await timed(async () => {
        for (const bytes of wire) await replica.mempool.admit(decodeTransaction(bytes));
      }));
      const built = await timed(() => leader.app.buildBlock({ parent, round, height: parent.header.height + 1, justify: qc(parent, round - 1), proposer: validatorKeys[0]!.address }));
      const block = built.value;
      if (block.transactions.length !== size) throw new Error(`built ${block.transactions.length} transactions, expected ${size}`);
      add('build', built);
      const proposal = encodeBlock(block);
      let received = block;
      add('validate', await timed(() => {
        received = decodeBlock(proposal);
        return replica.app.validateBlock(received, parent);
      }));
      add('vote (BLS sign)', await timed(async () => bls.sign(block.hash)));
      add('commit', await timed(() => replica.app.commit([received], qc(received, round))));
      await leader.app.commit([block], qc(block, round));
      await leader.mempool.onCommitted([], leader.store.stateReader(), block.transactions.map((t) => t.senderPubkey));
      add('mempool update', await timed(() => replica.mempool.onCommitted([], replica.store.stateReader(), block.transactions.map((t) => t.senderPubkey))));
      parent = block;
      round++;
    }
    const row: Record<string, number> = { transactions: size };
    for (const [name, s] of Object.entries(stages)) {
      row[`${name} wall ms`] = +median(s.wall).toFixed(2);
      row[`${name} cpu ms`] = +median(s.cpu).toFixed(2);
    }
    rows.push(row);
  }
  const unit = (unitBefore + timeEd25519Verify().us) / 2;
  await leader.db.root.close();
  await replica.db.root.close();
  await rm(dir, { recursive: true, force: true });

  const table = rows.map((r) => {
    const n = r.transactions!;
    const cpu = (s: string) => r[`${s} cpu ms`]!;
    const replicaCpu = cpu('admit') + cpu('validate') + cpu('vote (BLS sign)') + cpu('commit') + cpu('mempool update');
    return {
      txs: n,
      'build ms (wall/cpu)': `${r['build wall ms']} / ${cpu('build')}`,
      'admit ms (wall/cpu)': `${r['admit wall ms']} / ${cpu('admit')}`,
      'validate ms (wall/cpu)': `${r['validate wall ms']} / ${cpu('validate')}`,
      'commit ms (wall/cpu)': `${r['commit wall ms']} / ${cpu('commit')}`,
      'mempool ms (wall/cpu)': `${r['mempool update wall ms']} / ${cpu('mempool update')}`,
      'replica CPU per tx (µs, Ed25519)': n === 0 ? 'n/a' : `${((replicaCpu * 1000) / n).toFixed(0)}, ${((replicaCpu * 1000) / n / unit).toFixed(2)}`,
    };
  });
  console.log(`one Ed25519 verification: ${unit.toFixed(1)} µs`);
  console.table(table);
  await mkdir(join(values.out!, '..'), { recursive: true });
  await writeFile(values.out!, JSON.stringify({ benchmark: 'block', date: new Date().toISOString(), machine: machine(), senders: senderCount, blocks_per_size: blocksPerSize, ed25519_us: unit, rows }, null, 2) + '\n');
  console.log(`wrote ${values.out}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
