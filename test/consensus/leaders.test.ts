import t from 'tap';
import { activeValidators, electLeader, LeaderSchedule, reputationWindow } from '../../node/consensus/leaders.js';
import { BlockTree } from '../../node/consensus/tree.js';
import { ValidatorSet } from '../../node/consensus/validators.js';
import { blockHash, type Block, type BlockHeader } from '../../node/protocol/block.js';
import { genesisBlock, makeValidators } from './harness.js';

const vs = makeValidators(4);
const set = new ValidatorSet({ validators: vs.map((v) => v.validator) });
const address = (i: number) => vs[i]!.address;

/** A child of `parent` proposed by validator `proposer`, whose justify QC `signers` signed. */
function child(parent: Block, proposer: number, signers: number[], round = parent.header.round + 1): Block {
  const header: BlockHeader = {
    ...parent.header,
    height: parent.header.height + 1,
    round,
    parentHash: parent.hash,
    proposer: address(proposer),
    justify: { round: parent.header.round, height: parent.header.height, blockHash: parent.hash, signers: set.bitmap(signers), signature: new Uint8Array(96) },
  };
  return { header, hash: blockHash(header), transactions: [] };
}

/** A chain on genesis: one block per [proposer, signers] step. */
function chain(steps: Array<[number, number[]]>): Block[] {
  const out: Block[] = [];
  let parent = genesisBlock();
  for (const [p, s] of steps) out.push((parent = child(parent, p, s)));
  return out;
}

t.test('the window is one block per validator, and at least 4', async (t) => {
  t.same([1, 3, 4, 7, 21].map(reputationWindow), [4, 4, 4, 7, 21]);
});

t.test('a short history leaves everyone active: plain round-robin', async (t) => {
  const history = chain([[0, [0, 1, 2]], [1, [0, 1, 2]]]).reverse();
  t.same(activeValidators(set, history, 0), [0, 1, 2, 3]);
  t.same([4, 5, 6, 7].map((r) => set.indexOf(electLeader(set, activeValidators(set, history, 0), r).address)), [0, 1, 2, 3]);
});

t.test('a validator that neither proposed nor signed in the window is skipped, and comes back when it signs', async (t) => {
  const quiet = chain([[0, [0, 1, 2]], [1, [0, 1, 2]], [2, [0, 1, 2]], [0, [0, 1, 2]]]).reverse();
  const active = activeValidators(set, quiet, 0);
  t.same(active, [0, 1, 2], 'validator 3 left out');
  t.same([9, 10, 11, 12].map((r) => set.indexOf(electLeader(set, active, r).address)), [0, 1, 2, 0], 'round-robin over the active ones');
  const signedOnce = chain([[0, [0, 1, 2]], [1, [0, 1, 3]], [2, [0, 1, 2]], [0, [0, 1, 2]]]).reverse();
  t.same(activeValidators(set, signedOnce, 0), [0, 1, 2, 3], 'one signature in the window is enough');
  const proposedOnce = chain([[3, [0, 1, 2]], [1, [0, 1, 2]], [2, [0, 1, 2]], [0, [0, 1, 2]]]).reverse();
  t.same(activeValidators(set, proposedOnce, 0), [0, 1, 2, 3], 'so is one proposal');
});

t.test('the schedule reads a branch of the tree, then the committed blocks below it', async (t) => {
  const blocks = chain([[0, [0, 1, 2, 3]], [1, [0, 1, 2, 3]], [2, [0, 1, 2]], [0, [0, 1, 2]], [1, [0, 1, 2]], [2, [0, 1, 2]]]);
  const tree = new BlockTree(blocks[2]!);
  for (const b of blocks.slice(3)) tree.add(b);
  const schedule = new LeaderSchedule(set, 0, () => tree);
  schedule.committedBlocks(blocks.slice(0, 3));
  t.equal(schedule.recentCommitted.length, 3);
  t.same(schedule.activeAt(blocks[5]!.hash), [0, 1, 2], 'blocks 3 to 6: validator 3 silent');
  t.same(schedule.activeAt(blocks[4]!.hash), [0, 1, 2, 3], 'blocks 2 to 5: it signed block 2');
  t.same(schedule.activeAt(blocks[2]!.hash), [0, 1, 2, 3], 'at the committed head');
  t.equal(schedule.activeAt(new Uint8Array(32)), undefined, 'a block not in the tree has no known history');
  t.equal(schedule.leaderAfter(blocks[5]!.hash, 7)?.address, address(1), 'round 7 after block 6: active[7 mod 3]');
  const fork = child(blocks[3]!, 3, [0, 1, 3], 9);
  tree.add(fork);
  t.same(schedule.activeAt(fork.hash), [0, 1, 2, 3], 'another branch has its own history');
});

t.test('the history runs on across an epoch start; an earlier epoch\'s block counts by its proposer only', async (t) => {
  const blocks = chain([[3, [0, 1, 3]], [0, [0, 1, 3]], [1, [0, 1, 2]], [2, [0, 1, 2]], [0, [0, 1, 2]]]);
  const tree = new BlockTree(blocks[4]!);
  const sameEpoch = new LeaderSchedule(set, 0, () => tree, blocks);
  t.same(sameEpoch.activeAt(blocks[4]!.hash), [0, 1, 2, 3], 'blocks 2 to 5: validator 3 signed the QC in block 2');
  const nextEpoch = new LeaderSchedule(set, 2, () => tree, sameEpoch.recentCommitted);
  t.same(nextEpoch.activeAt(blocks[4]!.hash), [0, 1, 2], 'an epoch that started at height 2 reads block 2 by its proposer: validator 3 is out');
  const quietBefore = chain([[0, [0, 1, 2]], [1, [0, 1, 2]], [2, [0, 1, 2]], [0, [0, 1, 2]], [1, [0, 1, 2, 3]]]);
  const root = new BlockTree(quietBefore[4]!);
  t.same(new LeaderSchedule(set, 4, () => root, quietBefore).activeAt(quietBefore[4]!.hash), [0, 1, 2, 3], 'a signature in the new epoch brings it back');
  t.same(activeValidators(set, [...quietBefore].reverse().slice(0, 4), 4), [0, 1, 2, 3]);
  t.same(activeValidators(set, [...quietBefore].reverse().slice(1, 5), 4), [0, 1, 2], 'the old epoch\'s blocks alone: proposers');
});

t.test('history that leaves no more than 2/3 of the weight active narrows nothing', async (t) => {
  const twoProposers = chain([[0, [0, 1, 2]], [1, [0, 1, 2]], [0, [0, 1, 2]], [1, [0, 1, 2]]]).reverse();
  t.same(activeValidators(set, twoProposers, 4), [0, 1, 2, 3], 'an earlier epoch\'s blocks show only validators 0 and 1: half the weight');
  t.same(activeValidators(set, twoProposers, 0), [0, 1, 2], 'the same blocks in the set\'s own epoch carry their signers');
});
