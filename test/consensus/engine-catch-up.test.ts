import t from 'tap';
import type { Validator } from '../../node/consensus/types.js';
import { assertNoFork, Cluster, transfer, waitFor } from './harness.js';

// Building the gap takes a while on a busy machine; nothing here measures speed.
t.setTimeout(300_000);

t.test('a node down for several epochs catches up with a chain that keeps running', async (t) => {
  // Each epoch is crossed from its proof, with the blocks below the boundary fetched by height
  // and then by hash: no step may wait for a later message or a timer to go on.
  const c: Cluster = new Cluster(5, {}, { length: 100, sets: (): Validator[] => c.validators.slice(0, 4).map((v) => v.validator) });
  await c.start();
  let nonce = 0;
  const feeder = setInterval(() => {
    const tx = transfer(nonce++);
    for (const n of c.nodes) n.app.submit(tx);
  }, 20);
  t.teardown(() => clearInterval(feeder));
  await c.crash(4);
  await waitFor(() => [0, 1, 2, 3].every((i) => c.nodes[i]!.app.head.header.height >= 350), 200_000, '350 blocks without node 4');
  const node = await c.restart(4);
  await waitFor(() => node.app.head.header.height >= c.nodes[0]!.app.head.header.height - 3, 60_000, 'node 4 catches up while the chain runs on');
  clearInterval(feeder);
  await c.stopAll();
  assertNoFork(c.nodes.map((n) => n.app));
  const m = node.engine.metrics();
  t.ok(m.epoch >= 3, `it crossed into epoch ${m.epoch}`);
  t.ok(m.rangeRequests >= 3, `asking by height (${m.rangeRequests} requests)`);
  t.same(c.faults, []);
});
