import t from 'tap';
import type { Block, QuorumCertificate } from '../../node/protocol/block.js';
import * as rules from '../../node/consensus/safety.js';
import type { TimeoutCertificate } from '../../node/consensus/types.js';

const h = (n: number) => new Uint8Array(32).fill(n);
const qc = (round: number, hashByte: number, height = round): QuorumCertificate => ({ round, height, blockHash: h(hashByte), signers: new Uint8Array(1), signature: new Uint8Array(96) });
const genesisQc = { ...qc(0, 0), signers: new Uint8Array(0), signature: new Uint8Array(0) };

/** A block with hash byte `id`, round, parent id; its justify certifies the parent. */
function block(id: number, round: number, parent: number, parentRound: number, height = parentRound + 1): Block {
  return {
    hash: h(id),
    transactions: [],
    header: { height, round, parentHash: h(parent), stateRoot: h(0), transactionsRoot: h(0), timestampMs: 1, proposer: new Uint8Array(20), justify: qc(parentRound, parent, height - 1) },
  };
}

// A small tree: genesis(0) <- 1(r1) <- 2(r2) <- 3(r3); and a fork 0 <- 9(r4)
const blocks = new Map<number, Block>([1, 2, 3].map((i) => [i, block(i, i, i - 1, i - 1)]));
blocks.set(9, block(9, 4, 0, 0));
const lookup: rules.AncestorLookup = (hash) => {
  if (hash[0] === 0) return { round: 0, parentHash: h(0) };
  const b = blocks.get(hash[0]!);
  return b && { round: b.header.round, parentHash: b.header.parentHash };
};

t.test('initial state and current round', async (t) => {
  const s = rules.initialSafety(genesisQc);
  t.equal(s.lastVotedRound, 0);
  t.equal(rules.currentRound(s), 1);
  const tc: TimeoutCertificate = { round: 5, highQc: genesisQc, signers: new Uint8Array(1), highQcRounds: [0], signature: new Uint8Array(96) };
  t.equal(rules.currentRound(rules.updateHighTc(s, tc)), 6, 'a TC moves the round past it');
  t.equal(rules.currentRound(rules.updateHighQc(s, qc(7, 1))), 8, 'a QC moves the round past it');
});

t.test('high QC and high TC only grow', async (t) => {
  const s = rules.updateHighQc(rules.initialSafety(genesisQc), qc(4, 1));
  t.equal(rules.updateHighQc(s, qc(3, 2)), s, 'a lower QC changes nothing');
  t.equal(rules.updateHighQc(s, qc(5, 2)).highQc.round, 5);
});

t.test('never vote twice in a round or for a round at or below the last vote', async (t) => {
  let s = rules.initialSafety(genesisQc);
  t.ok(rules.safeToVote(s, blocks.get(1)!, lookup).ok);
  s = rules.recordVote(s, 1);
  const d = rules.safeToVote(s, blocks.get(1)!, lookup);
  t.notOk(d.ok, 'second vote in round 1 refused');
  t.notOk(rules.safeToVote(rules.recordVote(s, 3), blocks.get(2)!, lookup).ok, 'a lower round refused');
  t.ok(rules.safeToVote(s, blocks.get(2)!, lookup).ok, 'the next round is fine');
  t.equal(rules.recordVote(s, 0).lastVotedRound, 1, 'recording a lower round does not lower it');
});

t.test('the lock: vote only for blocks extending it or justified by a newer QC', async (t) => {
  let s = rules.initialSafety(genesisQc);
  // A QC for block 3 locks block 2 (3.justify certifies 2).
  s = rules.updateLock(s, blocks.get(3)!.header.justify);
  t.equal(s.lockedQc.round, 2);
  t.equal(rules.updateLock(s, qc(1, 1)), s, 'the lock never goes back');
  const child = block(4, 5, 3, 3);
  t.ok(rules.safeToVote(s, child, lookup).ok, 'a block extending the locked block');
  const fork = block(10, 5, 9, 4);
  t.ok(rules.safeToVote(s, fork, lookup).ok, 'a fork justified by a QC newer than the lock (round 4 > 2)');
  const staleFork = block(11, 5, 1, 1);
  t.notOk(rules.safeToVote(s, staleFork, lookup).ok, 'a fork off an older block with an older QC');
  t.ok(rules.extendsBlock(child, qc(2, 2), lookup));
  t.notOk(rules.extendsBlock(staleFork, qc(2, 2), lookup));
});

t.test('proposal shape: parent link, height, round justification', async (t) => {
  t.equal(rules.proposalShapeError(blocks.get(2)!, undefined), undefined);
  const skip = block(5, 4, 2, 2);
  t.match(rules.proposalShapeError(skip, undefined), /without a timeout certificate/);
  const tc = (round: number, high: number): TimeoutCertificate => ({ round, highQc: qc(high, 2), signers: new Uint8Array(1), highQcRounds: [high], signature: new Uint8Array(96) });
  t.equal(rules.proposalShapeError(skip, tc(3, 2)), undefined, 'skipping with a TC for the round before');
  t.match(rules.proposalShapeError(skip, tc(2, 2)), /not for the previous round/);
  const lowJustify = block(5, 4, 1, 1);
  t.match(rules.proposalShapeError(lowJustify, tc(3, 2)), /older than the highest QC/);
  const badParent = { ...blocks.get(2)!, header: { ...blocks.get(2)!.header, parentHash: h(7) } };
  t.match(rules.proposalShapeError(badParent, undefined), /does not extend/);
  const b6 = block(6, 3, 2, 2);
  t.match(rules.proposalShapeError({ ...b6, header: { ...b6.header, height: 9 } }, undefined), /height/);
  t.match(rules.proposalShapeError(block(6, 2, 2, 2), undefined), /justify round/);
});

t.test('timeouts: current round or later, and no vote in that round afterwards', async (t) => {
  let s = rules.initialSafety(genesisQc);
  t.notOk(rules.safeToTimeout(s, 0));
  t.ok(rules.safeToTimeout(s, 1));
  t.ok(rules.safeToTimeout(s, 3), 'joining a later round');
  s = rules.recordTimeout(s, 1);
  t.notOk(rules.safeToVote(s, blocks.get(1)!, lookup).ok, 'no vote after timing out the round');
});

t.test('3-chain commit rule needs consecutive rounds', async (t) => {
  t.ok(rules.threeChainCommits(4, 5, 6));
  t.notOk(rules.threeChainCommits(4, 6, 7), 'a gap between b0 and b1');
  t.notOk(rules.threeChainCommits(4, 5, 7), 'a gap between b1 and b2');
});
