import t, { type Test } from 'tap';
import { HeadSignal, committedBlocks } from '../../node/plugins/block-stream.js';
import { fromHex, toHex } from '../../node/protocol/bytes.js';
import { transactionHash } from '../../node/protocol/transaction.js';
import { ChainStore } from '../../node/state/chain-store.js';
import { openDatabase } from '../../node/state/db.js';
import { genesis, nextBlock } from '../fixtures/chain-blocks.js';

/** A chain of `blocks` blocks after genesis, with 0 to 3 transactions each. */
async function chain(t: Test, blocks: number) {
  const db = await openDatabase('memory');
  t.teardown(() => db.close());
  const store = await ChainStore.open(db, { chainId: 'stream-test' });
  const g = await genesis();
  await store.initGenesis(g.block, g.changes, g.treeNodes);
  for (let i = 1; i <= blocks; i++) await store.commitBlock(await nextBlock(store, { fillers: 0, txs: i % 4 }));
  return { db, store };
}

t.test('a long catch-up gets every block once, in order, each with its receipts in transaction order', async (t) => {
  const { store } = await chain(t, 90);
  const abort = new AbortController();
  const seen: number[] = [];
  for await (const c of committedBlocks(store, new HeadSignal(), 3, abort.signal)) {
    seen.push(c.seq);
    t.equal(toHex(c.block.hash), toHex((await store.blocks.bySeq(c.seq))!.hash));
    t.same(
      c.receipts.map((r) => [r.block_seq, r.tx_index]),
      c.block.transactions.map((_, i) => [c.seq, i]),
    );
    if (c.seq === 90) abort.abort();
  }
  t.same(seen, Array.from({ length: 88 }, (_, i) => 3 + i));
});

t.test('a stopped reader ends the stream after the block it took', async (t) => {
  const { store } = await chain(t, 20);
  const abort = new AbortController();
  const seen: number[] = [];
  for await (const c of committedBlocks(store, new HeadSignal(), 0, abort.signal)) {
    seen.push(c.seq);
    if (c.seq === 9) abort.abort();
  }
  t.same(seen, Array.from({ length: 10 }, (_, i) => i));
});

t.test('a committed block whose receipt is gone fails the stream', async (t) => {
  const { db, store } = await chain(t, 12);
  const block = (await store.blocks.bySeq(7))!;
  await db.receipts.del(fromHex(transactionHash(store.chainId, block.transactions[1]!)));
  const seen: number[] = [];
  await t.rejects(
    (async () => {
      for await (const c of committedBlocks(store, new HeadSignal(), 0)) seen.push(c.seq);
    })(),
    { code: 'RECEIPT_MISSING' },
  );
  t.ok(seen.every((s) => s < 7), 'no block at or after the broken one');
});
