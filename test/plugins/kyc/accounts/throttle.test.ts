import t from 'tap';
import { LOGIN_PER_ADDRESS, LOGIN_PER_EMAIL, LoginThrottle, Throttle } from '../../../../plugins/kyc/accounts/throttle.js';

t.test('a sliding window: locked at max failures, open as the oldest leaves', async (t) => {
  let now = 1_000_000;
  const th = new Throttle({ max: 3, windowMs: 60_000 }, () => now);
  th.hit('k');
  now += 10_000;
  th.hit('k');
  t.equal(th.retryAfter('k'), 0);
  now += 10_000;
  th.hit('k');
  t.equal(th.retryAfter('k'), 40, 'until the first failure is 60 s old');
  now += 40_001;
  t.equal(th.retryAfter('k'), 0, 'the first failure left the window');
  th.hit('k');
  t.ok(th.retryAfter('k') > 0);
  th.clear('k');
  t.equal(th.retryAfter('k'), 0);
  t.equal(th.retryAfter('other'), 0, 'keys are separate');
});

t.test('login: per email and per address, and a success clears only the email', async (t) => {
  let now = 0;
  const lt = new LoginThrottle(() => now);
  t.equal(LOGIN_PER_EMAIL.max, 5);
  t.equal(LOGIN_PER_EMAIL.windowMs, 15 * 60_000);
  for (let i = 0; i < LOGIN_PER_EMAIL.max; i++) lt.fail('a@x.org', '10.0.0.1');
  t.match(lt.check('a@x.org', '10.0.0.2'), { by: 'email', retryAfter: 900 });
  t.equal(lt.check('b@x.org', '10.0.0.1'), undefined, 'another email from the address is still allowed');
  lt.succeed('a@x.org');
  t.equal(lt.check('a@x.org', '10.0.0.2'), undefined);
  for (let i = 0; i < LOGIN_PER_ADDRESS.max - LOGIN_PER_EMAIL.max; i++) lt.fail(`u${i}@x.org`, '10.0.0.1');
  t.match(lt.check('new@x.org', '10.0.0.1'), { by: 'address' });
  now += 15 * 60_000 + 1;
  t.equal(lt.check('new@x.org', '10.0.0.1'), undefined);
});
