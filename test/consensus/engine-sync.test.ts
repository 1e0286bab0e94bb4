import t, { type Test } from 'tap';
import type { Validator } from '../../node/consensus/types.js';
import { assertNoFork, Cluster, FAST, waitFor } from './harness.js';

/** short round timeouts: the crashed validator's rounds cost little, so the others run ahead fast */
const QUICK = { pacemaker: { ...FAST, baseTimeoutMs: 250, retransmitMs: 250 } };

/** A validator down from the start for longer than one hash-sync answer catches up by height, then votes. */
async function downAndBack(t: Test, c: Cluster, gap: number): Promise<void> {
  await c.start();
  await c.crash(3);
  const from = c.nodes[3]!.app.head.header.height;
  await waitFor(() => [0, 1, 2].every((i) => c.nodes[i]!.app.head.header.height >= from + gap), 60_000, `${gap} blocks without node 3`);
  const node = await c.restart(3);
  const target = c.nodes[0]!.app.head.header.height;
  await waitFor(() => node.app.head.header.height >= target, 60_000, 'node 3 catches up');
  const votes = node.engine.metrics().votesSent;
  await waitFor(() => node.engine.metrics().votesSent > votes, 30_000, 'node 3 votes again');
  await c.stopAll();
  assertNoFork(c.nodes.map((n) => n.app));
  const m = node.engine.metrics();
  t.ok(m.rangeRequests >= Math.floor(gap / 64), `it asked by height (${m.rangeRequests} requests for ${target - from} blocks)`);
  t.equal(m.dropped['orphan-pool-full'], undefined, 'without filling the orphan pool');
  t.same(c.faults, []);
}

t.test('a validator down for 100 blocks, across an epoch boundary, catches up by height and crosses it with the proof', async (t) => {
  const c: Cluster = new Cluster(4, QUICK, { length: 70, sets: (): Validator[] => c.validators.map((v) => v.validator) });
  await downAndBack(t, c, 100);
  t.ok(c.nodes[3]!.engine.metrics().epoch >= 1, `node 3 is in epoch ${c.nodes[3]!.engine.metrics().epoch}`);
});
