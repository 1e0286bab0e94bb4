import t from 'tap';
import { MemoryLevel } from 'memory-level';
import { LevelConsensusStore } from '../../node/consensus/store-level.js';
import { MemoryConsensusStore } from '../../node/consensus/store.js';
import { genesisBlock, transfer } from './harness.js';

const g = genesisBlock();
const other = { ...g, header: { ...g.header, height: 1 } };
const b2 = { ...other, hash: new Uint8Array(32).fill(2), transactions: [transfer(1)] };
const safety = { epoch: 1, lastVotedRound: 4, lockedQc: g.header.justify, highQc: { ...g.header.justify, round: 3 }, highTc: undefined };

for (const [name, make] of [
  ['memory', async () => new MemoryConsensusStore()],
  ['level', async () => {
    const db = new MemoryLevel<Uint8Array, Uint8Array>({ keyEncoding: 'view', valueEncoding: 'view' });
    return new LevelConsensusStore(db.sublevel<Uint8Array, Uint8Array>('consensus', { keyEncoding: 'view', valueEncoding: 'view' }));
  }],
] as const) {
  t.test(`${name} store keeps safety state and pending blocks`, async (t) => {
    const s = await make();
    t.equal(await s.loadSafety(), undefined);
    await s.saveSafety(safety);
    t.same(await s.loadSafety(), safety);
    await s.putPendingBlock(g);
    await s.putPendingBlock(b2);
    t.equal((await s.pendingBlocks()).length, 2);
    await s.deletePendingBlocks([g.hash]);
    const left = await s.pendingBlocks();
    t.equal(left.length, 1);
    t.equal(left[0]!.transactions.length, 1, 'transactions survive the round trip');
  });

  t.test(`${name} store keeps equivocation evidence in arrival order`, async (t) => {
    const s = await make();
    t.same(await s.loadEvidence(), []);
    const vote = (hash: number) => ({ round: 7, height: 3, blockHash: new Uint8Array(32).fill(hash), voter: new Uint8Array(20).fill(9), signature: new Uint8Array(96).fill(hash) });
    const proposal = (ts: number) => ({ block: { ...b2, header: { ...b2.header, round: 5, timestampMs: ts } }, tc: undefined, signature: new Uint8Array(96).fill(ts) });
    await s.putEvidence({ kind: 'double-vote', epoch: 2, round: 7, validator: new Uint8Array(20).fill(9), first: vote(1), second: vote(2) });
    await s.putEvidence({ kind: 'double-proposal', epoch: 2, round: 5, validator: b2.header.proposer, first: proposal(1), second: proposal(2) });
    const ev = await s.loadEvidence();
    t.same(ev.map((e) => [e.kind, e.round]), [['double-vote', 7], ['double-proposal', 5]]);
    t.same(ev[0]!.kind === 'double-vote' && ev[0]!.second.blockHash, new Uint8Array(32).fill(2), 'both signed messages are kept');
    t.same(ev[1]!.kind === 'double-proposal' && ev[1]!.second.block.header.timestampMs, 2);
  });
}
