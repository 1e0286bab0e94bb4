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

t.test('sleep ends early on abort and leaves no timer', async (t) => {
  const c = new AbortController();
  const start = Date.now();
  const p = sleep(60_000, c.signal);
  c.abort();
  await p;
  t.ok(Date.now() - start < 1_000);
  await sleep(10_000, c.signal);
  t.pass('an aborted signal resolves at once');
});
