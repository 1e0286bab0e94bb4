import t from 'tap';
import { ReplayWindow } from '../../../../plugins/relay/coordination/replay-window.js';

t.test('a (sender, id) pair is accepted once within the window', async (t) => {
  let now = 0;
  const guard = new ReplayWindow({ windowMs: 1000, max: 3, now: () => now });
  t.ok(guard.firstSeen('did:a', 'm1'));
  t.notOk(guard.firstSeen('did:a', 'm1'), 'replayed');
  t.ok(guard.firstSeen('did:b', 'm1'), 'another sender may use the same id');
  t.ok(guard.firstSeen(null, 'm1'), 'anonymous is its own sender');
  now = 1500;
  t.ok(guard.firstSeen('did:a', 'm1'), 'after the window it is new again');
});

t.test('bounded: the oldest entries go first', async (t) => {
  const now = 0;
  const guard = new ReplayWindow({ windowMs: 60_000, max: 2, now: () => now });
  guard.firstSeen('s', '1');
  guard.firstSeen('s', '2');
  guard.firstSeen('s', '3');
  t.ok(guard.firstSeen('s', '1'), 'the oldest was forgotten');
  t.notOk(guard.firstSeen('s', '3'));
});
