import t from 'tap';
import { EventLoopLagSampler } from '../../node/rpc/overload.js';

const blockFor = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

t.test('a blocked event loop shows as lag at once, before the sampler can tick', async (t) => {
  // the sampler reads this clock; the loop is also really blocked, so that its timer runs late
  let now = 1000;
  const sampler = new EventLoopLagSampler(20, () => now).start();
  t.teardown(() => sampler.stop());
  now += 400;
  blockFor(40);
  t.equal(sampler.lagMs(), 380, 'the tick is 400 - 20 ms overdue while the loop is blocked');
  // the late tick runs first (its timer is overdue), then this one
  await new Promise((r) => setTimeout(r, 0));
  now += 10;
  t.equal(sampler.lagMs(), 380, 'the tick that ran late keeps reporting it until the next one');
  // the next tick, on time by this clock, clears it
  await new Promise((r) => setTimeout(r, 60));
  t.equal(sampler.lagMs(), 0, 'an on-time tick reports no lag');
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
