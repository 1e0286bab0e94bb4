import t from 'tap';
import { BackupVotes } from '../../node/consensus/backup-votes.js';
import { ManualClock } from '../../node/consensus/pacemaker.js';

const vote = (round: number, fill: number) => ({ round, height: round, blockHash: new Uint8Array(32).fill(fill), voter: new Uint8Array(20).fill(fill), signature: new Uint8Array(96) });

t.test('held votes come due once per round, a delay after the first', async (t) => {
  const clock = new ManualClock();
  const due: number[] = [];
  const b = new BackupVotes(clock, 1_000, (r) => due.push(r));
  b.hold({ vote: vote(5, 1), trusted: false, from: undefined });
  clock.advance(600);
  b.hold({ vote: vote(5, 2), trusted: true, from: undefined });
  b.hold({ vote: vote(6, 1), trusted: false, from: undefined });
  clock.advance(400);
  t.same(due, [5], 'round 5 is due 1 s after its first vote');
  t.equal(b.take(5).length, 2);
  t.same(b.take(5), [], 'taken once');
  b.prune(8);
  t.same(b.take(6), [], 'round 6 was pruned once round 8 began');
  clock.advance(1_000);
  t.same(due, [5, 6], 'its timer still fires; the engine finds nothing held');
  b.hold({ vote: vote(9, 1), trusted: false, from: undefined });
  b.clear();
  clock.advance(2_000);
  t.same(due, [5, 6], 'clear cancels the timers');
});
