import t from 'tap';
import type { Validator } from '../../node/consensus/types.js';
import { assertNoFork, Cluster, waitFor } from './harness.js';

// Building the gap takes a while on a busy machine; nothing here measures speed.
t.setTimeout(300_000);

t.test('a node down for 80 blocks, across an epoch boundary, catches up by height and crosses it with the proof', async (t) => {
  // validators 0-3 carry the chain at full speed; node 4 follows it without voting
  const c: Cluster = new Cluster(5, {}, { length: 70, sets: (): Validator[] => c.validators.slice(0, 4).map((v) => v.validator) });
  await c.start();
  await c.crash(4);
  await waitFor(() => [0, 1, 2, 3].every((i) => c.nodes[i]!.app.head.header.height >= 80), 150_000, '80 blocks without node 4');
  const node = await c.restart(4);
  const target = c.nodes[0]!.app.head.header.height;
  await waitFor(() => node.app.head.header.height >= target, 120_000, 'node 4 catches up');
  await c.stopAll();
  assertNoFork(c.nodes.map((n) => n.app));
  const m = node.engine.metrics();
  t.ok(m.rangeRequests >= 1, `it asked by height (${m.rangeRequests} requests for ${target} blocks)`);
  t.equal(m.dropped['orphan-pool-full'], undefined, 'without filling the orphan pool');
  t.ok(m.epoch >= 1, `it crossed into epoch ${m.epoch}`);
  t.same(c.faults, []);
});
