import t from 'tap';
import { bytesEqual, toHex } from '../../node/protocol/bytes.js';
import { assertNoFork, Cluster, transfer, waitFor } from './harness.js';

t.test('crash and restart of one validator from its ConsensusStore', async (t) => {
  const c = new Cluster(4);
  await c.start();
  await waitFor(() => c.nodes.every((n) => n.app.committed.length >= 3), 30_000, 'initial commits');
  await c.crash(1);
  const saved = await c.nodes[1]!.store.loadSafety();
  t.ok(saved && saved.lastVotedRound > 0, 'the safety state was persisted');
  const votedBefore = saved!.lastVotedRound;
  const at = c.nodes[0]!.app.committed.length;
  await waitFor(() => c.nodes[0]!.app.committed.length >= at + 3, 30_000, 'the others continue');
  const node = await c.restart(1);
  t.ok(node.engine.metrics().lastVotedRound >= votedBefore, 'the restarted node remembers its last vote');
  const target = c.nodes[0]!.app.committed.length + 3;
  await waitFor(() => c.nodes.every((n) => n.app.committed.length >= target), 60_000, 'the restarted node catches up');
  await c.stopAll();
  assertNoFork(c.nodes.map((n) => n.app));
  t.ok(node.engine.metrics().votesSent > 0, 'the restarted node votes again');
  t.same(c.faults, []);
});

t.test('7 validators with dropped and delayed messages stay consistent', async (t) => {
  const c = new Cluster(7);
  let n = 0;
  c.network.filter = () => {
    n++;
    if (n % 13 === 0) return false; // drop
    return n % 5 === 0 ? 40 : true; // delay some
  };
  await c.start();
  c.nodes[3]!.app.submit(transfer(0));
  await waitFor(() => c.nodes.every((x) => x.app.committed.length >= 6), 90_000, '6 commits on 7 validators');
  await c.stopAll();
  assertNoFork(c.nodes.map((x) => x.app));
  t.ok(c.network.dropped > 0, 'messages were dropped');
  t.same(c.faults, []);
});

t.test('a byzantine leader sending two proposals in one round: safety holds and the equivocation is recorded', async (t) => {
  const c = new Cluster(4);
  const byz = c.validators[1]!;
  const { BlsQuorumCrypto, voteDigest } = await import('../../node/consensus/crypto.js');
  const { blockHash } = await import('../../node/protocol/block.js');
  const { CHAIN } = await import('./harness.js');
  const signer = new BlsQuorumCrypto(byz.blsSecret);
  let equivocated = false;
  // Node 1's proposals go out as two different blocks: the original to half, a twin to the rest.
  c.network.filter = (from, to, msg) => {
    if (equivocated || msg.type !== 'proposal' || !bytesEqual(from, byz.address) || msg.proposal.block.header.round < 3) return true;
    const toIndex = c.validators.findIndex((v) => bytesEqual(v.address, to));
    if (toIndex !== 3) return true;
    equivocated = true;
    const b = msg.proposal.block;
    const header = { ...b.header, timestampMs: b.header.timestampMs + 1 };
    const twin = { header, hash: blockHash(header), transactions: b.transactions };
    const signature = signer.sign(voteDigest(CHAIN, 0, header.round, header.height, twin.hash));
    // Node 3 gets the twin right after the original: it sees both.
    c.network.inject(from, to, { type: 'proposal', epoch: 0, proposal: { block: twin, tc: msg.proposal.tc, signature } });
    return true;
  };
  await c.start();
  await waitFor(() => equivocated && c.nodes.every((x) => x.app.committed.length >= 8), 40_000, 'commits after the equivocation');
  await c.stopAll();
  assertNoFork(c.nodes.map((x) => x.app));
  const ev = c.nodes[3]!.engine.evidence();
  t.equal(ev.length, 1, 'node 3 recorded the equivocation');
  t.equal(ev[0]!.kind, 'double-proposal');
  t.ok(bytesEqual(ev[0]!.validator, byz.address), 'against the byzantine leader');
  t.same(c.faults, []);
});
