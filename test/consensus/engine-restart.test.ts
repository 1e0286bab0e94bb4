import t from 'tap';
import { assertNoFork, Cluster, transfer, waitFor, type TestNode } from './harness.js';

/**
 * Restarts with uncommitted blocks in the consensus store. The app keeps the state of those
 * blocks in memory only, so a restarted engine must hand them back to it before it extends them
 * or checks their children (the harness's restart gives the engine a fresh app, as a process
 * restart does).
 */

let nonce = 0;
/** Keeps every leader busy: a few transactions a tick, in every node's mempool. */
function load(c: Cluster): () => void {
  const timer = setInterval(() => {
    for (let i = 0; i < 3; i++) {
      const tx = transfer(nonce++);
      for (const n of c.nodes) n.app.submit(tx);
    }
  }, 15);
  return () => clearInterval(timer);
}

async function crashWithPending(c: Cluster, i: number): Promise<number> {
  for (let tries = 0; tries < 200; tries++) {
    if ((await c.nodes[i]!.store.pendingBlocks()).length > 0) {
      await c.crash(i);
      const left = (await c.nodes[i]!.store.pendingBlocks()).length;
      if (left > 0) return left;
      await c.restart(i);
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`node ${i} never had an uncommitted block stored`);
}

const refusals = (n: TestNode) => Object.entries(n.engine.metrics().dropped).filter(([k]) => k.startsWith('block-') || k === 'invalid-block');

t.test('a validator restarted with uncommitted blocks stored re-executes them, votes and keeps agreeing', async (t) => {
  const c = new Cluster(4);
  const stop = load(c);
  t.teardown(stop);
  await c.start();
  for (let cycle = 0; cycle < 3; cycle++) {
    const victim = (cycle * 3 + 1) % 4;
    await waitFor(() => c.nodes.every((n) => n.app.committed.length >= 3 + cycle * 4), 30_000, 'commits');
    const left = await crashWithPending(c, victim);
    t.ok(left > 0, `cycle ${cycle}: node ${victim} crashed with ${left} uncommitted block(s) stored`);
    const node = await c.restart(victim);
    const target = Math.max(...c.nodes.map((n) => n.app.committed.length)) + 4;
    await waitFor(() => c.nodes.every((n) => n.app.committed.length >= target), 30_000, `cycle ${cycle}: every node reaches ${target}`);
    await waitFor(() => node.engine.metrics().votesSent > 0, 10_000, 'the restarted node votes');
  }
  stop();
  await c.stopAll();
  assertNoFork(c.nodes.map((n) => n.app));
  t.same(c.nodes.map(refusals), [[], [], [], []], 'no node refused a block');
  t.same(c.faults, []);
});

t.test('all four restarted at once with uncommitted blocks stored: the chain resumes', async (t) => {
  const c = new Cluster(4);
  const stop = load(c);
  t.teardown(stop);
  await c.start();
  await waitFor(() => c.nodes.every((n) => n.app.committed.length >= 5), 30_000, 'commits');
  await waitFor(() => false || c.nodes.some((n) => n.engine.metrics().round > 0), 1_000, 'rounds');
  for (let i = 0; i < 4; i++) await c.crash(i);
  const stored = await Promise.all(c.nodes.map(async (n) => (await n.store.pendingBlocks()).length));
  t.ok(stored.some((x) => x > 0), `uncommitted blocks stored: ${stored.join(', ')}`);
  const before = Math.max(...c.nodes.map((n) => n.app.committed.length));
  for (let i = 0; i < 4; i++) await c.restart(i);
  await waitFor(() => c.nodes.every((n) => n.app.committed.length >= before + 5), 60_000, 'progress after a full restart');
  stop();
  await c.stopAll();
  assertNoFork(c.nodes.map((n) => n.app));
  t.same(c.nodes.map(refusals), [[], [], [], []], 'no node refused a block');
  t.same(c.faults, []);
});

t.test('a single validator restarted with uncommitted blocks stored goes on building on them', async (t) => {
  const c = new Cluster(1);
  const stop = load(c);
  t.teardown(stop);
  await c.start();
  for (let cycle = 0; cycle < 5; cycle++) {
    await crashWithPending(c, 0);
    const before = c.nodes[0]!.app.committed.length;
    await c.restart(0);
    await waitFor(() => c.nodes[0]!.app.committed.length >= before + 3, 10_000, `cycle ${cycle}: commits after the restart`);
  }
  stop();
  await c.stopAll();
  t.same(c.faults, []);
});

t.test('a node whose state disagrees with a quorum stops signing, says why, and blames no peer', async (t) => {
  const c = new Cluster(4);
  const stop = load(c);
  t.teardown(stop);
  const penalized: string[] = [];
  for (const n of c.nodes) n.engine.on('dropped', (e: { reason: string; from?: Uint8Array }) => e.from && penalized.push(e.reason));
  await c.start();
  await waitFor(() => c.nodes.every((n) => n.app.committed.length >= 3), 30_000, 'commits');
  const bad = c.nodes[2]!;
  const halted = new Promise<{ reason: string }>((resolve) => bad.engine.once('halted', resolve));
  bad.app.diverged = true;
  const report = await halted;
  t.equal(report.reason, 'certified-block-refused', 'it halts once a quorum certifies a block it refused');
  t.equal(bad.engine.haltReport?.reason, 'certified-block-refused');
  t.ok(bad.engine.metrics().halted, 'metrics say so');
  await bad.engine.idle();
  const votes = bad.engine.metrics().votesSent;
  const timeouts = bad.engine.metrics().timeouts;
  const target = c.nodes[0]!.app.committed.length + 5;
  await waitFor(() => c.nodes[0]!.app.committed.length >= target, 30_000, 'the other three go on');
  t.equal(bad.engine.metrics().votesSent, votes, 'no vote after the halt');
  t.equal(bad.engine.metrics().timeouts, timeouts, 'no timeout after the halt');
  t.ok((bad.engine.metrics().dropped['block-state-mismatch'] ?? 0) > 0, 'refusals are counted as a state mismatch');
  t.same(penalized, [], 'no peer was penalized for a block this node could not match');
  stop();
  await c.stopAll();
  assertNoFork(c.nodes.map((n) => n.app));
});
