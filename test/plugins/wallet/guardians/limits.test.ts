import t from 'tap';
import { openDatabase } from '../../../../node/state/db.js';
import { PluginDb } from '../../../../plugins/common/store/tables.js';
import { StoredThrottle } from '../../../../plugins/wallet/guardians/limits.js';

t.test('a stored limit counts per rule and subject, says how long to wait, survives a restart and is swept', async (t) => {
  const level = await openDatabase('memory');
  t.teardown(() => level.close());
  const db = new PluginDb(level.pluginStore('wallet'));
  let now = 1_700_000_000_000;
  const rule = { max: 2, windowMs: 60_000 };
  const byIp = new StoredThrottle(db, 'ip', rule, () => now);

  t.equal(await byIp.take('192.0.2.1'), 0);
  now += 10_000;
  t.equal(await byIp.take('192.0.2.1'), 0);
  t.equal(await byIp.take('192.0.2.1'), 50, 'the third waits until the first leaves the window');
  t.equal(await byIp.take('192.0.2.2'), 0, 'another subject has its own count');
  t.equal(await new StoredThrottle(db, 'key', rule, () => now).take('192.0.2.1'), 0, 'and another rule');
  t.equal(await new StoredThrottle(db, 'ip', rule, () => now).take('192.0.2.1'), 50, 'a restart (a new throttle on the same store) keeps the count');

  const racing = await Promise.all(Array.from({ length: 6 }, () => byIp.take('192.0.2.3')));
  t.same(racing.filter((w) => w === 0).length, 2, 'concurrent attempts: exactly max are counted');

  now += 50_000;
  t.equal(await byIp.take('192.0.2.1'), 0, 'once the first hit left the window, one more goes');
  t.equal(await byIp.take('192.0.2.1'), 10, 'and then the second hit\'s turn');
  t.equal(await StoredThrottle.sweep(db, now), 0, 'nothing is past its window yet');
  now += 10_000;
  t.equal(await StoredThrottle.sweep(db, now), 3, 'the records whose last hit has left the window');
  now += 50_000;
  t.equal(await StoredThrottle.sweep(db, now), 1, 'then the first address\'s');
  t.equal(await byIp.take('192.0.2.1'), 0);
});
