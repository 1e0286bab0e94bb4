import t from 'tap';
import { bytesEqual, toHex } from '../../node/protocol/bytes.js';
import type { Validator } from '../../node/consensus/types.js';
import { assertNoFork, Cluster, transfer, waitFor } from './harness.js';

const LENGTH = 6;

t.test('the set changes at each boundary: a validator leaves, another joins, and the chain runs on', async (t) => {
  // epochs alternate between validators 0-3 and 1-4
  let c!: Cluster;
  const sets = (e: number): Validator[] => (e % 2 === 0 ? [0, 1, 2, 3] : [1, 2, 3, 4]).map((i) => c.validators[i]!.validator);
  c = new Cluster(5, {}, { length: LENGTH, sets });
  const epochs: number[] = [];
  c.nodes[2]!.engine.on('epoch', (e: { epoch: number }) => epochs.push(e.epoch));
  await c.start();
  let nonce = 0;
  const feeder = setInterval(() => {
    const tx = transfer(nonce++);
    for (const n of c.nodes) n.app.submit(tx);
  }, 30);
  await waitFor(() => c.nodes.every((n) => n.app.head.header.height >= 4 * LENGTH), 60_000, `every node at height ${4 * LENGTH}`);
  clearInterval(feeder);
  await c.stopAll();
  assertNoFork(c.nodes.map((n) => n.app));
  t.same(c.faults, []);

  const chain = c.nodes[0]!.app.committed;
  t.same(chain.slice(0, 4 * LENGTH).map((b) => b.header.height), Array.from({ length: 4 * LENGTH }, (_, i) => i + 1), 'contiguous heights across every boundary');
  for (let e = 0; e < 4; e++) {
    const blocks = chain.filter((b) => Math.floor(b.header.height / LENGTH) === e);
    const members = new Set(sets(e).map((v) => toHex(v.address)));
    t.ok(blocks.every((b) => members.has(toHex(b.header.proposer))), `epoch ${e}: every block proposed by a member of its set`);
    if (e === 0) continue;
    const first = chain.find((b) => b.header.height === e * LENGTH)!;
    const boundary = chain.find((b) => b.header.height === e * LENGTH - 1)!;
    t.ok(bytesEqual(first.header.parentHash, boundary.hash), `epoch ${e} starts on the boundary block`);
    t.equal(first.header.justify.signers.length, 0, `epoch ${e}: its first block is justified by the signer-less start QC`);
    t.equal(first.header.justify.round, boundary.header.round, 'whose round is the boundary round');
  }
  const joiner = toHex(c.validators[4]!.address);
  t.ok(chain.some((b) => Math.floor(b.header.height / LENGTH) === 1 && toHex(b.header.proposer) === joiner), 'the validator that joined proposes in its epoch');
  t.ok(c.nodes[4]!.engine.metrics().votesSent > 0, 'and votes');
  t.ok(epochs.slice(0, 3).join() === '1,2,3', `a node crosses each epoch once, in order: ${epochs.join()}`);
  t.ok(c.nodes.every((n) => n.engine.metrics().epoch >= 3));

  const committedTxs = chain.flatMap((b) => b.transactions.map((tx) => tx.nonce));
  t.equal(new Set(committedTxs).size, committedTxs.length, 'no transaction is committed twice');
  t.same(committedTxs, [...committedTxs].sort((a, b) => (a < b ? -1 : 1)), 'and none is skipped over a boundary');
});

t.test('a validator that was down across two boundaries crosses them from the epoch proofs and votes again', async (t) => {
  const c: Cluster = new Cluster(4, {}, { length: LENGTH, sets: (): Validator[] => c.validators.map((v) => v.validator) });
  await c.start();
  await waitFor(() => c.nodes.every((n) => n.app.committed.length >= 2), 30_000, 'first commits');
  await c.crash(3);
  await waitFor(() => [0, 1, 2].every((i) => c.nodes[i]!.app.head.header.height >= 2 * LENGTH + 2), 60_000, 'two boundaries without node 3');
  const behind = c.nodes[3]!.engine.metrics().epoch;
  t.equal(behind, 0, 'node 3 stopped in epoch 0');
  const node = await c.restart(3);
  const target = c.nodes[0]!.app.head.header.height + 2;
  await waitFor(() => node.app.head.header.height >= target && node.engine.metrics().epoch === c.nodes[0]!.engine.metrics().epoch, 60_000, 'node 3 catches up');
  const votes = node.engine.metrics().votesSent;
  await waitFor(() => node.engine.metrics().votesSent > votes, 30_000, 'node 3 votes again');
  await c.stopAll();
  assertNoFork(c.nodes.map((n) => n.app));
  t.ok(node.engine.metrics().epoch >= 2, `node 3 is in epoch ${node.engine.metrics().epoch}`);
  t.same(c.faults, []);
});

t.test('a one-validator network crosses boundaries on its own', async (t) => {
  const c: Cluster = new Cluster(1, {}, { length: LENGTH, sets: (): Validator[] => [c.validators[0]!.validator] });
  await c.start();
  await waitFor(() => c.nodes[0]!.app.head.header.height >= 3 * LENGTH, 30_000, `height ${3 * LENGTH}`);
  await c.stopAll();
  t.ok(c.nodes[0]!.engine.metrics().epoch >= 3);
  t.same(c.nodes[0]!.app.committed.slice(0, 3 * LENGTH).map((b) => b.header.height), Array.from({ length: 3 * LENGTH }, (_, i) => i + 1));
  t.same(c.faults, []);
});
