import t from 'tap';
import type { CommitTarget } from '../../node/chain/app.js';
import { LedgerError } from '../../node/errors.js';
import { encodeBlock, type Block } from '../../node/protocol/block.js';
import { bytesEqual, toHex, utf8 } from '../../node/protocol/bytes.js';
import { encodeTransaction } from '../../node/protocol/transaction.js';
import { accountKey } from '../../node/protocol/records.js';
import { ChainStore } from '../../node/state/chain-store.js';
import { openDatabase, type Database, type StoreOp } from '../../node/state/db.js';
import { EMPTY_ROOT, getValueHash, updateTree } from '../../node/state/tree/index.js';
import { COUNTER, fillerAddress, genesis, nextBlock } from '../fixtures/chain-blocks.js';

const CHAIN = 'store-test';

async function fresh(t: { teardown(fn: () => unknown): void }): Promise<{ db: Database; store: ChainStore }> {
  const db = await openDatabase('memory');
  t.teardown(() => db.close());
  const store = await ChainStore.open(db, { chainId: CHAIN });
  const g = await genesis();
  await store.initGenesis(g.block, g.changes, g.treeNodes);
  return { db, store };
}

/** Blocks compare by their canonical encoding (stored bytes decode to Buffers, not Uint8Arrays). */
function blockHex(b: Block | undefined): string | undefined {
  return b && toHex(encodeBlock(b));
}

async function count(db: Database['state']): Promise<number> {
  let n = 0;
  for await (const _ of db.keys()) n++;
  return n;
}

async function allState(db: Database): Promise<Array<{ key: Uint8Array; value: Uint8Array }>> {
  const out = [];
  for await (const [key, value] of db.state.iterator()) out.push({ key, value });
  return out;
}

t.test('genesis: head, genesis hash, chain id, state and tree', async (t) => {
  const db = await openDatabase('memory');
  t.teardown(() => db.close());
  // The chain app commits through exactly this interface.
  const store: CommitTarget & ChainStore = await ChainStore.open(db, { chainId: CHAIN });
  t.equal(store.head(), undefined);
  t.equal(store.genesisHash, undefined);
  const g = await genesis();
  await store.initGenesis(g.block, g.changes, g.treeNodes);
  const head = store.head()!;
  t.equal(head.seq, 0);
  t.equal(head.height, 0);
  t.ok(bytesEqual(head.hash, g.block.hash));
  t.ok(bytesEqual(head.stateRoot, g.block.header.stateRoot));
  t.ok(bytesEqual(store.genesisHash!, g.block.hash));
  t.ok(bytesEqual((await store.blocks.bySeq(0))!.hash, g.block.hash));
  t.equal(await count(db.state), g.changes.length);
  t.equal(await count(db.tree), g.treeNodes.size);
  t.ok(await getValueHash(store.treeNodes(), head.stateRoot, accountKey(COUNTER)), 'the tree holds the genesis entries');
  await t.rejects(store.initGenesis(g.block, g.changes, g.treeNodes), { code: 'ALREADY_INITIALIZED' });
});

t.test('reopen: head and genesis survive; another chain id is refused', async (t) => {
  const { db, store } = await fresh(t);
  await store.commitBlock(await nextBlock(store));
  const again = await ChainStore.open(db, { chainId: CHAIN });
  t.same(again.head(), store.head());
  t.ok(bytesEqual(again.genesisHash!, store.genesisHash!));
  await t.rejects(ChainStore.open(db, { chainId: 'other-chain' }), { code: 'CHAIN_MISMATCH', kind: 'conflict' });
});

t.test('commitBlock writes block, indexes, receipts, tx index, state, tree and head', async (t) => {
  const { db, store } = await fresh(t);
  const stateBefore = await count(db.state);
  const args = await nextBlock(store, { fillers: 3, txs: 3, heightStep: 4 });
  await store.commitBlock(args);
  const head = store.head()!;
  t.same(head, { seq: 1, height: 4, hash: args.block.hash, stateRoot: args.block.header.stateRoot });
  const want = blockHex(args.block);
  t.equal(blockHex(await store.blocks.byHash(args.block.hash)), want);
  t.equal(blockHex(await store.blocks.bySeq(1)), want);
  t.equal(blockHex(await store.blocks.byHeight(4)), want);
  t.equal(await store.blocks.byHeight(2), undefined, 'a height gap reads as nothing');
  const latest = await store.blocks.latest();
  t.equal(latest?.seq, 1);
  t.equal(blockHex(latest?.block), want);
  for (const r of args.receipts) {
    t.same(await store.receipts.byTxHash(r.tx_hash), r);
    t.same(await store.txIndex.get(r.tx_hash), { seq: 1, index: r.tx_index });
    const found = await store.getTransaction(r.tx_hash);
    t.equal(toHex(encodeTransaction(found!.tx)), toHex(encodeTransaction(args.block.transactions[r.tx_index]!)));
    t.equal(found?.index, r.tx_index);
    t.same(found?.receipt, r);
  }
  t.equal(await store.getTransaction('00'.repeat(32)), undefined);
  t.equal((await store.accounts.get(COUNTER)).balance, 1n);
  t.equal(await count(db.state), stateBefore + 3);
  for (const [hash, node] of args.treeNodes) t.ok(bytesEqual((await db.tree.get(Buffer.from(hash, 'hex')))!, node));
  // The tree commits to exactly the stored state entries.
  const rebuilt = await updateTree({ getNode: async () => undefined }, EMPTY_ROOT, await allState(db));
  t.equal(toHex(rebuilt.root), toHex(head.stateRoot));
});

t.test('state deletions are applied', async (t) => {
  const { store } = await fresh(t);
  await store.commitBlock(await nextBlock(store));
  t.equal((await store.accounts.get(fillerAddress(1, 0))).nonce, 1n);
  await store.commitBlock(await nextBlock(store, { deletes: [accountKey(fillerAddress(1, 0))] }));
  t.same(await store.accounts.get(fillerAddress(1, 0)), { balance: 0n, nonce: 0n });
  t.equal(await store.stateReader().get(accountKey(fillerAddress(1, 0))), undefined);
});

t.test('refuses a seq gap, a wrong parent, a non-increasing height and mismatched receipts', async (t) => {
  const { store } = await fresh(t);
  const good = await nextBlock(store);
  await t.rejects(store.commitBlock({ ...good, seq: 2 }), { code: 'SEQ_GAP' });
  await t.rejects(store.commitBlock({ ...good, seq: 0 }), { code: 'SEQ_GAP' });
  const orphan = { ...good, block: { ...good.block, header: { ...good.block.header, parentHash: new Uint8Array(32).fill(9) } } };
  await t.rejects(store.commitBlock(orphan), { code: 'SEQ_GAP' });
  const low = await nextBlock(store, { heightStep: 0 });
  await t.rejects(store.commitBlock(low), { code: 'HEIGHT_NOT_INCREASING' });
  await t.rejects(store.commitBlock({ ...good, receipts: good.receipts.slice(1) }), { code: 'BAD_RECEIPTS' });
  const shuffled = [...good.receipts].reverse();
  await t.rejects(store.commitBlock({ ...good, receipts: shuffled }), { code: 'BAD_RECEIPTS' });
  t.equal(store.head()!.seq, 0, 'nothing was committed');
  await store.commitBlock(good);
  t.equal(store.head()!.seq, 1);
  await t.rejects(store.commitBlock(good), { code: 'SEQ_GAP' }, 'the same block twice');
});

t.test('a commit without genesis is refused', async (t) => {
  const db = await openDatabase('memory');
  t.teardown(() => db.close());
  const a = await fresh(t);
  const args = await nextBlock(a.store);
  const store = await ChainStore.open(db, { chainId: CHAIN });
  await t.rejects(store.commitBlock(args), { code: 'NO_GENESIS' });
});

t.test('a failing batch leaves nothing behind, in the store or in memory', async (t) => {
  const { db, store } = await fresh(t);
  const before = { head: store.head(), state: await allState(db), tree: await count(db.tree), blocks: await count(db.blocks) };
  const args = await nextBlock(store, { fillers: 5, txs: 4 });
  // The last operation is invalid (no key): the whole batch must be rejected.
  const bad = { type: 'put', sublevel: db.consensus, key: undefined, value: utf8('x') } as unknown as StoreOp;
  await t.rejects(store.commitBlock({ ...args, extraOps: [bad] }));
  t.equal(store.head(), before.head, 'in-memory head unchanged');
  t.same(await allState(db), before.state, 'state unchanged');
  t.equal(await count(db.tree), before.tree);
  t.equal(await count(db.blocks), before.blocks);
  t.equal(await count(db.seq), 1);
  t.equal(await count(db.receipts), 0);
  t.equal(await count(db.txIndex), 0);
  t.equal(await store.blocks.byHash(args.block.hash), undefined);
  // The store is still usable, and the same block commits cleanly afterwards.
  await store.commitBlock(args);
  t.equal(store.head()!.seq, 1);
});

t.test('a closed database fails the commit and keeps the old head', async (t) => {
  const { db, store } = await fresh(t);
  const args = await nextBlock(store);
  const head = store.head();
  await db.close();
  await t.rejects(store.commitBlock(args));
  t.equal(store.head(), head);
});

t.test('extraOps land in the same batch', async (t) => {
  const { db, store } = await fresh(t);
  await db.consensus.put(utf8('b-old'), utf8('pending'));
  const args = await nextBlock(store);
  await store.commitBlock({ ...args, extraOps: [{ type: 'del', sublevel: db.consensus, key: utf8('b-old') }] });
  t.equal(await db.consensus.get(utf8('b-old')), undefined);
});

t.test('concurrent commits are serialized against the head', async (t) => {
  const { store } = await fresh(t);
  const one = await nextBlock(store);
  // Build block 2 on top of block 1 through a scratch store holding the same chain.
  const scratchDb = await openDatabase('memory');
  t.teardown(() => scratchDb.close());
  const scratch = await ChainStore.open(scratchDb, { chainId: CHAIN });
  const g = await genesis();
  await scratch.initGenesis(g.block, g.changes, g.treeNodes);
  await scratch.commitBlock(one);
  const two = await nextBlock(scratch);
  await Promise.all([store.commitBlock(one), store.commitBlock(two)]);
  t.equal(store.head()!.seq, 2);
  t.ok(bytesEqual(store.head()!.hash, two.block.hash));
});

t.test('errors are LedgerErrors with stable codes', async (t) => {
  const { store } = await fresh(t);
  const good = await nextBlock(store);
  const err = await store.commitBlock({ ...good, seq: 5 }).catch((e: unknown) => e);
  t.ok(err instanceof LedgerError);
  t.same((err as LedgerError).data, { expected: 1, got: 5 });
});
