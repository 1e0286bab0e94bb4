import t from 'tap';
import { ChainApp } from '../../node/chain/app.js';
import { buildGenesisBlock } from '../../node/chain/genesis-block.js';
import { keyPairFromSeed } from '../../node/crypto/ed25519.js';
import { LedgerError } from '../../node/errors.js';
import { Mempool } from '../../node/mempool/index.js';
import { addressBytesFromPublicKey } from '../../node/protocol/address.js';
import { blockHash, transactionsRoot, type Block, type BlockHeader, type QuorumCertificate } from '../../node/protocol/block.js';
import { signTransaction, type Transaction } from '../../node/protocol/transaction.js';
import { ChainStore } from '../../node/state/chain-store.js';
import { openDatabase } from '../../node/state/db.js';
import { VALIDATORS } from '../fixtures/chain-blocks.js';

const CHAIN = 'app-test';
const NETWORK = 'testnet';
const sender = keyPairFromSeed(new Uint8Array(32).fill(41));
const senderAddress = addressBytesFromPublicKey(sender.publicKey);
const proposer = VALIDATORS[0]!.address;
const NOW = 10_000_000;

/** A store at genesis with a funded sender, and a factory for apps over it (one per "process"). */
async function setup() {
  const db = await openDatabase('memory');
  const store = await ChainStore.open(db, { chainId: CHAIN });
  const g = await buildGenesisBlock({ genesisTimeMs: 1_000, accounts: [{ address: senderAddress, balance: 10n ** 18n }], validators: VALIDATORS });
  await store.initGenesis(g.block, g.changes, g.treeNodes);
  const app = () => {
    const mempool = new Mempool({ chainId: CHAIN, network: NETWORK, state: store.stateReader() });
    const a = new ChainApp({ chainId: CHAIN, network: NETWORK, store, mempool, maxBlockTransactions: 5, now: () => NOW });
    return { app: a, mempool };
  };
  return { store, genesis: g.block, app };
}

function transfer(nonce: number): Transaction {
  return signTransaction(CHAIN, { senderPubkey: sender.publicKey, nonce: BigInt(nonce), payload: { kind: 'Transfer', to: new Uint8Array(20).fill(9), amount: 1n } }, sender.seed);
}

const qcFor = (b: Block, round: number): QuorumCertificate => ({ round, height: b.header.height, blockHash: b.hash, signers: Uint8Array.of(1), signature: new Uint8Array(96) });

function build(app: ChainApp, parent: Block, round: number): Promise<Block> {
  return app.buildBlock({ parent, round, height: parent.header.height + 1, justify: qcFor(parent, round - 1), proposer });
}

/** The same block with some header fields or transactions changed, rehashed. */
function altered(b: Block, header: Partial<BlockHeader>, transactions = b.transactions): Block {
  const h = { ...b.header, ...header };
  return { header: h, hash: blockHash(h), transactions };
}

async function refusal(p: Promise<unknown>): Promise<LedgerError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof LedgerError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

t.test('a block built by one app validates on another over the same committed state', async (t) => {
  const { genesis, app } = await setup();
  const a = app();
  for (let i = 0; i < 3; i++) await a.mempool.admit(transfer(i));
  const b1 = await build(a.app, genesis, 1);
  const b2 = await build(a.app, b1, 2);
  t.equal(b1.transactions.length, 3);
  t.equal(b2.transactions.length, 0, 'what the parent carries is not included again');
  const other = app().app;
  await other.validateBlock(b1, genesis);
  await other.validateBlock(b2, b1);
  t.pass('both validate');
});

t.test('a child block selects past what its uncommitted ancestors carry, without running it again', async (t) => {
  const { genesis, app } = await setup();
  const a = app();
  for (let i = 0; i < 8; i++) await a.mempool.admit(transfer(i));
  const selected: number[] = [];
  const select = a.mempool.select.bind(a.mempool);
  a.mempool.select = (max, opts) => {
    const out = select(max, opts);
    selected.push(out.length);
    return out;
  };
  const b1 = await build(a.app, genesis, 1);
  const b2 = await build(a.app, b1, 2);
  t.same([b1.transactions.length, b2.transactions.length], [5, 3], 'the limit of 5 counts only new transactions');
  t.same(selected, [5, 3], 'b2 was built from nonces 5 to 7 only: nonces 0 to 4 were passed over, not executed and refused');
  t.same(b2.transactions.map((tx) => tx.nonce), [5n, 6n, 7n]);
});

t.test('after a restart a child of an uncommitted block is refused until the parent is re-executed', async (t) => {
  const { genesis, app } = await setup();
  const before = app();
  await before.mempool.admit(transfer(0));
  const b1 = await build(before.app, genesis, 1);
  await before.mempool.admit(transfer(1));
  const b2 = await build(before.app, b1, 2);

  const after = app().app; // a new process: the pending state of b1 is gone
  const err = await refusal(after.validateBlock(b2, b1));
  t.equal(err.code, 'PARENT_STATE_UNKNOWN', 'not a state root mismatch read off the wrong state');
  t.equal(err.kind, 'internal', 'this node cannot judge it: nobody is to blame');
  const built = await refusal(build(after, b1, 2));
  t.equal(built.code, 'PARENT_STATE_UNKNOWN', 'nor does it build on a parent it has not executed');

  await after.validateBlock(b1, genesis);
  await after.validateBlock(b2, b1);
  const b3 = await build(after, b2, 3);
  await after.commit([b1, b2, b3], qcFor(b3, 3));
  t.pass('once re-executed, the branch validates, extends and commits');
});

t.test('what a refusal says about the block: wrong by itself, at odds with local state, or ahead of the clock', async (t) => {
  const { genesis, app } = await setup();
  const a = app();
  await a.mempool.admit(transfer(0));
  const good = await build(a.app, genesis, 1);
  const check = async (b: Block, code: string, kind: string, what: string) => {
    const err = await refusal(app().app.validateBlock(b, genesis));
    t.match({ code: err.code, kind: err.kind }, { code, kind }, what);
    return err;
  };
  const root = await check(altered(good, { stateRoot: new Uint8Array(32).fill(1) }), 'STATE_ROOT_MISMATCH', 'conflict', 'a wrong state root disagrees with local state');
  t.match(root.data, { height: 1, expected: '01'.repeat(32), actual: Buffer.from(good.header.stateRoot).toString('hex') }, 'with both roots');
  await check(altered(good, { transactionsRoot: new Uint8Array(32) }), 'BAD_TX_ROOT', 'invalid', 'a wrong transactions root is wrong by itself');
  await check(altered(good, { timestampMs: genesis.header.timestampMs }), 'BAD_TIMESTAMP', 'invalid', 'a timestamp not after the parent');
  await check(altered(good, { timestampMs: NOW + 60_000 }), 'TIMESTAMP_AHEAD', 'limit', 'a timestamp ahead of this clock');
  await check(altered(good, { parentHash: new Uint8Array(32).fill(3) }), 'BAD_PARENT', 'invalid', 'another parent');
  const forged = { ...good.transactions[0]!, signature: new Uint8Array(64).fill(5) };
  await check(altered(good, { transactionsRoot: transactionsRoot(CHAIN, [forged]) }, [forged]), 'BAD_SIGNATURE', 'invalid', 'a forged transaction');
  const many = Array.from({ length: 6 }, (_, i) => transfer(i));
  await check(altered(good, { transactionsRoot: transactionsRoot(CHAIN, many) }, many), 'BLOCK_TOO_LARGE', 'invalid', 'too many transactions');
  const gap = [transfer(7)];
  await check(altered(good, { transactionsRoot: transactionsRoot(CHAIN, gap) }, gap), 'EXECUTION_FAILED', 'conflict', 'a transaction that cannot execute on local state');
});

t.test('a commit of a block this app never executed must extend the committed head', async (t) => {
  const { genesis, app } = await setup();
  const a = app();
  const b1 = await build(a.app, genesis, 1);
  const b2 = await build(a.app, b1, 2);
  const fresh = app().app;
  const err = await refusal(fresh.commit([b2], qcFor(b2, 2)));
  t.equal(err.code, 'COMMIT_OUT_OF_ORDER');
  await fresh.commit([b1, b2], qcFor(b2, 2));
  t.pass('in order, it executes them against committed state and commits');
  const bad = altered(await build(a.app, b2, 3), { stateRoot: new Uint8Array(32).fill(2) });
  const mismatch = await refusal(app().app.commit([bad], qcFor(bad, 3)));
  t.equal(mismatch.code, 'STATE_ROOT_MISMATCH');
  t.equal(mismatch.kind, 'conflict');
});

t.test('the leader is told to propose only for a transaction the next block could include', async (t) => {
  const { app } = await setup();
  const a = app();
  t.notOk(a.app.hasReadyTransactions(), 'empty mempool');
  await a.mempool.admit(transfer(2));
  t.notOk(a.app.hasReadyTransactions(), 'nonce 2 waits for 0 and 1');
  await a.mempool.admit(transfer(0));
  t.ok(a.app.hasReadyTransactions(), 'nonce 0 is ready');
});
