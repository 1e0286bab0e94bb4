import t from 'tap';
import { EpochSync } from '../../node/consensus/epoch-sync.js';
import { ManualClock } from '../../node/consensus/pacemaker.js';
import type { ConsensusMessage } from '../../node/consensus/types.js';

const peerA = new Uint8Array(20).fill(1);
const peerB = new Uint8Array(20).fill(2);
const msg = (epoch: number): ConsensusMessage => ({ type: 'epoch-request', epoch });

t.test('a peer ahead is asked after a delay, once per delay; the next epoch\'s messages wait', async (t) => {
  const clock = new ManualClock();
  const asked: Array<[number, number]> = [];
  const s = new EpochSync(clock, 500, (peer, epoch) => asked.push([peer[0]!, epoch]));
  s.aheadOf(3, peerA, msg(4));
  s.aheadOf(3, peerA, msg(4));
  s.aheadOf(3, peerB, msg(6));
  clock.advance(499);
  t.same(asked, [], 'not at once: the QC that ends the epoch may be on its way');
  clock.advance(1);
  t.same(asked, [[1, 3]], 'one request per delay');
  const early = s.entered(4);
  t.equal(early.length, 2, 'the two epoch-4 messages are handed back; the epoch-6 one is not kept');
  t.same(asked, [[1, 3], [2, 4]], 'a peer is further ahead: ask it at once');
  t.same(s.entered(5), [], 'handed back once');
});

t.test('proofs go to a peer at most once a second per epoch', async (t) => {
  const clock = new ManualClock();
  const s = new EpochSync(clock, 500, () => undefined);
  t.ok(s.mayProve(peerA, 1));
  t.notOk(s.mayProve(peerA, 1));
  t.ok(s.mayProve(peerA, 2), 'another epoch');
  t.ok(s.mayProve(peerB, 1), 'another peer');
  clock.advance(1_000);
  t.ok(s.mayProve(peerA, 1));
});
