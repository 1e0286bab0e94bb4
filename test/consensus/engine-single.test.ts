import t from 'tap';
import { bytesEqual } from '../../node/protocol/bytes.js';
import { ManualClock } from '../../node/consensus/pacemaker.js';
import { Cluster, transfer, waitFor } from './harness.js';

t.test('one validator commits a chain, each block once and in order', async (t) => {
  const c = new Cluster(1);
  const node = c.nodes[0]!;
  const commits: number[] = [];
  node.engine.on('commit', (e: { blocks: { header: { height: number } }[] }) => commits.push(...e.blocks.map((b) => b.header.height)));
  await c.start();
  await waitFor(() => node.app.committed.length >= 5, 10_000, '5 committed blocks');
  await c.stopAll();
  t.same(commits.slice(0, 5), [1, 2, 3, 4, 5], 'heights committed in order, no gaps, no repeats');
  node.app.committed.forEach((b, i) => t.equal(b.header.height, i + 1));
  t.equal(node.engine.metrics().timeouts, 0, 'no timeouts with one validator');
  t.same(c.faults, []);
});

t.test('one validator: a submitted transaction commits within about three rounds', async (t) => {
  // An idle block would come long after the test's timeout: only the transaction can start the rounds that commit it.
  const c = new Cluster(1, { idleBlockIntervalMs: 600_000 });
  const node = c.nodes[0]!;
  await c.start();
  for (let i = 0; i < 3; i++) {
    const tx = transfer(i);
    const before = node.app.committed.length;
    node.app.submit(tx);
    await waitFor(() => node.app.committed.slice(before).some((b) => b.transactions.some((x) => bytesEqual(x.signature, tx.signature))), 60_000, 'the transaction to commit');
    // its own block, after at most the two empty ones that committed the transaction before it
    const blocks = node.app.committed.slice(before).findIndex((b) => b.transactions.some((x) => bytesEqual(x.signature, tx.signature))) + 1;
    t.ok(blocks <= 3, `transaction ${i} is in block ${blocks} of those committed after it was sent`);
  }
  await c.stopAll();
  t.same(c.faults, []);
});

t.test('a leader waiting for transactions proposes when told one is ready, not at its next poll', async (t) => {
  // A poll far longer than the test: only transactionsReady() can start the proposal.
  const c = new Cluster(1, { idleBlockIntervalMs: 60_000, pollIntervalMs: 60_000 });
  const node = c.nodes[0]!;
  await c.start();
  const tx = transfer(0);
  node.app.submit(tx);
  await new Promise((r) => setTimeout(r, 300));
  t.equal(node.engine.metrics().proposals, 0, 'without the call, the leader keeps waiting');
  node.engine.transactionsReady();
  await waitFor(() => node.app.committed.some((b) => b.transactions.some((x) => bytesEqual(x.signature, tx.signature))), 5_000, 'the transaction to commit');
  await c.stopAll();
  t.same(c.faults, []);
});

t.test('a leader with transactions keeps the least interval between blocks, and proposes a full block at once', async (t) => {
  // The engine's clock moves only when the test says, so the interval is checked to the millisecond.
  const clock = new ManualClock(1_000);
  const c = new Cluster(1, { clock, idleBlockIntervalMs: 60_000, minBlockIntervalMs: 150, fullBlockTransactions: 20 });
  const node = c.nodes[0]!;
  const settle = async () => {
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
  };
  await c.start();
  for (let i = 0; i < 6; i++) node.app.submit(transfer(i));
  node.engine.transactionsReady();
  await settle();
  t.equal(node.engine.metrics().proposals, 1, 'the first block goes at once: its parent was never seen here');
  // the two blocks that commit the six, each 150 ms after its parent
  for (const n of [2, 3]) {
    clock.advance(149);
    await settle();
    t.equal(node.engine.metrics().proposals, n - 1, `block ${n} waits at 149 ms`);
    clock.advance(1);
    await settle();
    t.equal(node.engine.metrics().proposals, n, `block ${n} goes at 150 ms`);
  }
  t.ok(node.app.committed.some((b) => b.transactions.length === 6), 'the six committed');
  // 20 ready transactions fill a block: it goes without the clock moving
  clock.advance(10);
  for (let i = 6; i < 26; i++) node.app.submit(transfer(i));
  node.engine.transactionsReady();
  await settle();
  t.equal(node.engine.metrics().proposals, 4, 'the full block went 10 ms after its parent');
  await c.stopAll();
  t.same(c.faults, []);
});
