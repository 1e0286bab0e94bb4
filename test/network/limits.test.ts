import t from 'tap';
import { DEFAULT_PEER_LIMITS, MAX_CONSENSUS_FRAME_BYTES, PeerScores, TokenBucket } from '../../node/network/limits.js';
import { MAX_SYNC_RESPONSE_BYTES } from '../../node/consensus/codec.js';

t.test('a token bucket allows one second of burst, then its rate', async (t) => {
  const b = new TokenBucket(10, 0);
  let n = 0;
  while (b.take(1, 0)) n++;
  t.equal(n, 10, 'burst of one second');
  t.notOk(b.take(1, 50), 'half a token after 50 ms');
  t.ok(b.take(1, 100), 'one token after 100 ms');
  t.ok(b.take(5, 700), 'refilled');
  t.notOk(b.take(2, 600), 'a clock going back refills nothing');
});

t.test('a full bucket admits one request above its capacity, then owes it', async (t) => {
  const b = new TokenBucket(100, 0);
  t.ok(b.take(250, 0), 'full: admitted');
  t.notOk(b.take(1, 1_000), 'still in debt after one second');
  t.notOk(b.take(100, 2_400), 'not yet full again');
  t.ok(b.take(100, 2_500), 'full again after 2.5 s');
});

t.test('penalties lower the score, a ban follows the threshold, and both wear off', async (t) => {
  const s = new PeerScores({ banThreshold: -100, banMs: 60_000, recoveryPerSecond: 1 });
  t.equal(s.score('p', 0), 0);
  t.notOk(s.penalize('p', 60, 0));
  t.equal(s.score('p', 10_000), -50, 'recovers one point a second');
  t.ok(s.penalize('p', 50, 10_000), 'reaching the threshold bans');
  t.ok(s.isBanned('p', 69_999));
  t.notOk(s.penalize('p', 500, 20_000), 'no second ban while banned');
  t.notOk(s.isBanned('p', 70_000), 'the ban expires');
  t.equal(s.score('p', 70_000), 0, 'and the peer starts over');
  t.notOk(s.isBanned('q', 0));
  s.penalize('q', 1, 0);
  s.prune(5_000);
  t.equal(s.score('q', 5_000), 0);
});

t.test('defaults: the consensus frame cap holds the largest sync answer', async (t) => {
  t.ok(MAX_CONSENSUS_FRAME_BYTES > MAX_SYNC_RESPONSE_BYTES);
  t.equal(DEFAULT_PEER_LIMITS.maxConsensusFrameBytes, MAX_CONSENSUS_FRAME_BYTES);
  t.ok(DEFAULT_PEER_LIMITS.consensusBytesPerSecond >= MAX_CONSENSUS_FRAME_BYTES, 'a full bucket passes a maximal frame');
  t.ok(Object.isFrozen(DEFAULT_PEER_LIMITS));
});
