import t from 'tap';
import { EventLoopLagSampler } from '../../node/rpc/overload.js';

const blockFor = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

t.test('a blocked event loop shows as lag at once, before the sampler can tick', async (t) => {
  const sampler = new EventLoopLagSampler(20).start();
  t.teardown(() => sampler.stop());
  await new Promise((r) => setTimeout(r, 60));
  blockFor(400);
  // the sampler's tick is overdue by at least 400 - 20 ms, whatever the machine's load
  t.ok(sampler.lagMs() >= 380, `lag ${sampler.lagMs()} ms while blocked`);
  await new Promise((r) => setTimeout(r, 0));
  t.ok(sampler.lagMs() >= 380, 'the tick that ran late keeps reporting it until the next one');
});

t.test('an idle loop has little lag; a stopped sampler reports none', async (t) => {
  let now = 1000;
  const sampler = new EventLoopLagSampler(100, () => now).start();
  t.equal(sampler.lagMs(), 0, 'nothing overdue yet');
  now += 350;
  t.equal(sampler.lagMs(), 250, 'the next tick is 250 ms overdue');
  sampler.stop();
  t.equal(sampler.lagMs(), 0);
});
