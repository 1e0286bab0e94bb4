import t from 'tap';
import { bytesEqual } from '../../node/protocol/bytes.js';
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
  const c = new Cluster(1, { idleBlockIntervalMs: 1_000 });
  const node = c.nodes[0]!;
  await c.start();
  // Let the chain settle into idle rounds (empty blocks every second).
  await waitFor(() => node.app.committed.length >= 1, 5_000, 'first commit');
  const samples: number[] = [];
  for (let i = 0; i < 3; i++) {
    await new Promise((r) => setTimeout(r, 300));
    const tx = transfer(i);
    const before = node.app.committed.length;
    const t0 = performance.now();
    node.app.submit(tx);
    await waitFor(() => node.app.committed.slice(before).some((b) => b.transactions.some((x) => bytesEqual(x.signature, tx.signature))), 5_000, 'the transaction to commit');
    samples.push(performance.now() - t0);
  }
  await c.stopAll();
  t.comment(`submit -> commit latency (ms): ${samples.map((s) => s.toFixed(1)).join(', ')}`);
  t.comment(`proposal -> commit latency of the last block (ms): ${node.engine.metrics().lastCommitLatencyMs}`);
  for (const s of samples) t.ok(s < 1_000, `committed in ${s.toFixed(1)} ms, well under the idle interval`);
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
