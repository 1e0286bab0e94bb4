import t from 'tap';
import { CachedProbe, failing, notConfigured, ok, summarize, type HealthCheck } from '../../../plugins/common/health.js';

t.test('summarize: degraded only when a configured part fails; what is not set up is a warning', async (t) => {
  t.same(summarize({ a: ok('a works') }), { status: 'ok', checks: { a: ok('a works') }, warnings: [] });
  const fresh = summarize({ a: ok('a works'), mail: notConfigured('no SMTP'), feed: notConfigured('no feed') });
  t.equal(fresh.status, 'ok', 'parts left unset do not degrade the service');
  t.same(fresh.warnings, ['no SMTP', 'no feed']);
  const broken = summarize({ mail: notConfigured('no SMTP'), feed: failing('the feed does not answer') });
  t.equal(broken.status, 'degraded');
  t.same(broken.warnings, ['the feed does not answer', 'no SMTP'], 'failures first');
  t.same(broken.checks.feed, { status: 'failing', detail: 'the feed does not answer' });
});

t.test('CachedProbe: one probe per period, shared by concurrent callers, a throw is a failing check', async (t) => {
  let now = 0;
  let calls = 0;
  let answer: () => Promise<HealthCheck> = async () => ok('up');
  const probe = new CachedProbe(() => {
    calls++;
    return answer();
  }, 1000, () => now);

  const [a, b] = await Promise.all([probe.check(), probe.check()]);
  t.same([a, b, calls], [ok('up'), ok('up'), 1], 'concurrent callers share one probe');
  answer = async () => failing('down');
  now = 999;
  t.same(await probe.check(), ok('up'), 'kept within the period');
  t.equal(calls, 1);
  now = 1000;
  t.same(await probe.check(), failing('down'), 'asked again once the period is over');
  t.equal(calls, 2);
  answer = async () => {
    throw new Error('socket hang up\nat line 2');
  };
  now = 2000;
  t.same(await probe.check(), failing('the check itself failed: socket hang up at line 2'));
  t.equal(calls, 3);
  t.same(await probe.check(), failing('the check itself failed: socket hang up at line 2'), 'a failure is kept for the period too');
  t.equal(calls, 3);
});
