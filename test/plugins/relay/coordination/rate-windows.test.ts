import t from 'tap';
import { RateWindows } from '../../../../plugins/relay/coordination/rate-windows.js';

t.test('a fixed one-minute window per DID', async (t) => {
  let now = 1_000_000;
  const limiter = new RateWindows({ now: () => now });
  for (let i = 1; i <= 3; i++) t.match(limiter.hit('did:a', 3), { allowed: true, count: i });
  t.match(limiter.hit('did:a', 3), { allowed: false, retryAfter: 60 }, 'the fourth in the minute is refused');
  t.equal(limiter.current('did:a'), 3, 'refusals are not counted');
  t.match(limiter.hit('did:b', 3), { allowed: true }, 'another DID has its own window');
  now += 45_000;
  t.match(limiter.hit('did:a', 3), { allowed: false, retryAfter: 15 });
  t.equal(limiter.retryAfter('did:a'), 15, 'the same answer without a hit');
  t.equal(limiter.retryAfter('did:unknown'), 60, 'a DID with no window waits a whole one');
  now += 15_000;
  t.match(limiter.hit('did:a', 3), { allowed: true, count: 1 }, 'a new window');
});

t.test('idle DIDs are forgotten when the map is full', async (t) => {
  let now = 0;
  const limiter = new RateWindows({ now: () => now, maxKeys: 2 });
  limiter.hit('did:a', 10);
  limiter.hit('did:b', 10);
  now = 61_000;
  limiter.hit('did:c', 10);
  t.equal(limiter.current('did:a'), 0);
  t.equal(limiter.current('did:c'), 1);
});
