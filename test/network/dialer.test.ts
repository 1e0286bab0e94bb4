import t from 'tap';
import { parseBootstrap, sleep } from '../../node/network/dialer.js';
import { peerIdFromSeed } from '../../node/network/identity.js';

t.test('bootstrap addresses with and without a peer id', async (t) => {
  const id = peerIdFromSeed(new Uint8Array(32).fill(1));
  const a = parseBootstrap(`/ip4/10.0.0.2/tcp/30333/p2p/${id}`);
  t.equal(a.peerId?.toString(), id);
  const b = parseBootstrap('/ip4/10.0.0.2/tcp/30333');
  t.equal(b.peerId, undefined);
  t.equal(b.target.toString(), '/ip4/10.0.0.2/tcp/30333');
  t.throws(() => parseBootstrap('10.0.0.2:30333'));
});

/** timers keeping the process alive */
const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

t.test('sleep ends early on abort and leaves no timer', async (t) => {
  const c = new AbortController();
  const before = timers();
  // a day: far beyond the test's timeout, so only the abort can end it
  const p = sleep(86_400_000, c.signal);
  t.equal(timers(), before + 1, 'sleeping holds a timer');
  c.abort();
  await p;
  t.equal(timers(), before, 'the abort cleared it');
  await sleep(86_400_000, c.signal);
  t.equal(timers(), before, 'an aborted signal resolves at once, without a timer');
});
