import t from 'tap';
import { crashPlanFromEnv, withCrashPoint, type CrashPlan } from '../node/crash-points.js';
import { MemoryConsensusStore } from '../node/consensus/store.js';
import { initialSafety } from '../node/consensus/safety.js';
import { ChainStore } from '../node/state/chain-store.js';
import { openDatabase } from '../node/state/db.js';
import { genesis, nextBlock } from './fixtures/chain-blocks.js';

const die = (): never => {
  throw new Error('crash point reached');
};

async function setup(plan: CrashPlan) {
  const store = await ChainStore.open(await openDatabase('memory'), { chainId: 'crash-points' });
  const g = await genesis();
  await store.initGenesis(g.block, g.changes, g.treeNodes);
  const consensus = new MemoryConsensusStore();
  return { store, consensus, wrapped: withCrashPoint(plan, store, consensus, die), genesisBlock: g.block };
}

t.test('the plan comes from LEDGER_TEST_CRASH_AT, or the older LEDGER_TEST_CRASH_AT_SEQ', async (t) => {
  t.equal(crashPlanFromEnv({}), undefined);
  t.same(crashPlanFromEnv({ LEDGER_TEST_CRASH_AT: 'safety-saved@12' }), { point: 'safety-saved', seq: 12 });
  t.same(crashPlanFromEnv({ LEDGER_TEST_CRASH_AT_SEQ: '7' }), { point: 'block-written', seq: 7 });
  for (const bad of ['nowhere@3', 'block-write', 'block-write@-1', 'block-write@x']) {
    t.throws(() => crashPlanFromEnv({ LEDGER_TEST_CRASH_AT: bad }), { code: 'BAD_CRASH_PLAN' }, `${bad} is refused`);
  }
});

t.test('block-write dies before the batch of the planned seq, block-written after it', async (t) => {
  const before = await setup({ point: 'block-write', seq: 2 });
  await before.wrapped.chain.commitBlock(await nextBlock(before.store));
  await t.rejects(before.wrapped.chain.commitBlock(await nextBlock(before.store)), { message: 'crash point reached' });
  t.equal(before.store.head()!.seq, 1, 'seq 2 never written');
  const after = await setup({ point: 'block-written', seq: 2 });
  await after.wrapped.chain.commitBlock(await nextBlock(after.store));
  await t.rejects(after.wrapped.chain.commitBlock(await nextBlock(after.store)), { message: 'crash point reached' });
  t.equal(after.store.head()!.seq, 2, 'seq 2 durable when it dies');
});

t.test('the consensus store\'s steps die after their write, once the chain reached the seq', async (t) => {
  for (const [point, step] of [
    ['pending-stored', (c: MemoryConsensusStore, b: any) => c.putPendingBlock(b)],
    ['safety-saved', (c: MemoryConsensusStore, b: any) => c.saveSafety(initialSafety({ round: 0, height: 0, blockHash: b.hash, signers: new Uint8Array(0), signature: new Uint8Array(0) }))],
    ['pending-deleted', (c: MemoryConsensusStore, b: any) => c.deletePendingBlocks([b.hash])],
  ] as const) {
    const s = await setup({ point, seq: 1 });
    await step(s.wrapped.consensus as MemoryConsensusStore, s.genesisBlock);
    t.pass(`${point}: nothing at seq 0`);
    await s.store.commitBlock(await nextBlock(s.store));
    await t.rejects(step(s.wrapped.consensus as MemoryConsensusStore, s.genesisBlock), { message: 'crash point reached' }, `${point}: dies at seq 1`);
  }
  const s = await setup({ point: 'pending-stored', seq: 1 });
  await s.store.commitBlock(await nextBlock(s.store));
  await t.rejects(s.wrapped.consensus.putPendingBlock(s.genesisBlock), { message: 'crash point reached' });
  t.equal((await s.consensus.pendingBlocks()).length, 1, 'the write it follows is done');
});
