import t from 'tap';
import { bytesEqual, toHex } from '../../node/protocol/bytes.js';
import { assertNoFork, Cluster, transfer, waitFor } from './harness.js';

t.test('4 validators commit the same blocks in the same order', async (t) => {
  const c = new Cluster(4);
  await c.start();
  c.nodes[1]!.app.submit(transfer(0));
  c.nodes[2]!.app.submit(transfer(1));
  await waitFor(() => c.nodes.every((n) => n.app.committed.length >= 8), 30_000, '8 commits everywhere');
  await c.stopAll();
  assertNoFork(c.nodes.map((n) => n.app));
  const heights = c.nodes[0]!.app.committed.map((b) => b.header.height);
  t.same(heights.slice(0, 8), [1, 2, 3, 4, 5, 6, 7, 8], 'contiguous heights');
  const proposers = new Set(c.nodes[0]!.app.committed.map((b) => toHex(b.header.proposer)));
  t.ok(proposers.size >= 3, 'leaders rotate');
  const txCommitted = c.nodes[0]!.app.committed.flatMap((b) => b.transactions).length;
  t.ok(txCommitted >= 1, 'submitted transactions were committed');
  for (const n of c.nodes) t.equal(n.engine.metrics().timeouts, 0, 'no timeouts on a healthy network');
  const qcs = c.nodes.reduce((sum, n) => sum + n.engine.metrics().qcsFormed, 0);
  const rounds = c.nodes[0]!.engine.metrics().round;
  t.ok(qcs <= rounds, `one QC aggregated per round on a healthy network, the backup collector stays idle (${qcs} QCs in ${rounds} rounds)`);
  t.same(c.faults, []);
});

t.test('a crashed validator costs a timeout or two, then leads no round until it votes again', async (t) => {
  const c = new Cluster(4);
  const timedOut = c.nodes.map(() => new Set<number>());
  c.nodes.forEach((n, i) => n.engine.on('timeout', (e: { round: number }) => timedOut[i]!.add(e.round)));
  await c.start();
  await waitFor(() => c.nodes.every((n) => n.app.committed.length >= 8), 30_000, 'initial commits');
  await c.crash(2);
  const at = c.nodes[0]!.app.committed.length;
  await waitFor(() => [0, 1, 3].every((i) => c.nodes[i]!.app.committed.length >= at + 30), 60_000, '30 more commits without node 2');
  for (const i of [0, 1, 3]) t.ok(timedOut[i]!.size <= 3, `node ${i} timed out in ${timedOut[i]!.size} round(s) over 30 commits: ${[...timedOut[i]!].join(',')}`);
  const dead = c.validators[2]!.address;
  const recent = c.nodes[0]!.app.committed.slice(-20);
  t.notOk(recent.some((b) => bytesEqual(b.header.proposer, dead)), 'the last 20 blocks were proposed by the live validators');
  t.ok(new Set(recent.map((b) => toHex(b.header.proposer))).size === 3, 'which still take turns');
  const node = await c.restart(2);
  await waitFor(() => node.engine.metrics().proposals > 0, 60_000, 'the restarted validator to lead a round again');
  await c.stopAll();
  assertNoFork(c.nodes.map((n) => n.app));
  t.same(c.faults, []);
});

t.test('with 2 of 4 stopped nothing commits and nothing forks; progress resumes when they return', async (t) => {
  const c = new Cluster(4);
  await c.start();
  await waitFor(() => c.nodes.every((n) => n.app.committed.length >= 3), 30_000, 'initial commits');
  await c.crash(2);
  await c.crash(3);
  // Blocks that already had their 3-chain may still land; after that, nothing.
  await new Promise((r) => setTimeout(r, 1_000));
  const frozen = c.nodes.map((n) => n.app.committed.length);
  await new Promise((r) => setTimeout(r, 3_000));
  t.same(c.nodes.map((n) => n.app.committed.length), frozen, 'no commits without a quorum');
  t.ok(c.nodes[0]!.engine.metrics().timeouts >= 1, 'the live nodes keep timing out');
  await c.restart(2);
  await c.restart(3);
  const target = Math.max(...frozen) + 4;
  await waitFor(() => c.nodes.every((n) => n.app.committed.length >= target), 60_000, 'progress after the nodes return');
  await c.stopAll();
  assertNoFork(c.nodes.map((n) => n.app));
  t.same(c.faults, []);
});


t.test('upcomingLeaders names who proposes the next rounds', async (t) => {
  const c = new Cluster(4);
  const named = new Map<number, string[]>();
  const e = c.nodes[0]!.engine;
  t.same(e.upcomingLeaders(2), [], 'none before start');
  e.on('round', ({ round }: { round: number }) => named.set(round, e.upcomingLeaders(2).map(toHex)));
  await c.start();
  c.nodes[1]!.app.submit(transfer(0));
  await waitFor(() => c.nodes.every((n) => n.app.committed.length >= 12), 30_000, '12 commits everywhere');
  await c.stopAll();
  let checked = 0;
  for (const b of c.nodes[0]!.app.committed) {
    const at = named.get(b.header.round);
    if (!at) continue;
    t.equal(at[0], toHex(b.header.proposer), `round ${b.header.round}: the first one named proposed it`);
    t.equal(at.length, 2);
    const next = named.get(b.header.round + 1);
    if (next) t.equal(at[1], next[0], `round ${b.header.round}: the second one named leads the round after`);
    checked++;
  }
  t.ok(checked >= 8, `${checked} rounds checked`);
  t.same(e.upcomingLeaders(2), [], 'none after stop');
});

t.test('a validator writes its safety state twice a block: its vote, and the QC with the lock it allows', async (t) => {
  const c = new Cluster(4);
  const writes = c.nodes.map((n) => {
    const count = { n: 0 };
    const save = n.store.saveSafety.bind(n.store);
    n.store.saveSafety = (s) => {
      count.n++;
      return save(s);
    };
    return count;
  });
  await c.start();
  await waitFor(() => c.nodes.every((n) => n.app.committed.length >= 20), 30_000, '20 commits everywhere');
  await c.stopAll();
  t.equal(c.nodes.reduce((sum, n) => sum + n.engine.metrics().timeouts, 0), 0, 'no round timed out, so every round is a vote and a QC');
  for (const [i, n] of c.nodes.entries()) {
    const blocks = n.app.committed.length;
    // a few rounds beyond the last commit are in flight at the stop
    t.ok(writes[i]!.n <= 2 * blocks + 8, `node ${i}: ${writes[i]!.n} writes for ${blocks} committed blocks (about ${3 * blocks} when the high QC and the lock were written apart)`);
  }
  t.same(c.faults, []);
});
