import t from 'tap';
import { eventId } from '../../../../plugins/relay/core/events.js';

/** Event ids come from a pool of random bytes refilled when used up: still unique, same format. */

t.test('100,000 event ids: no two alike, each <prefix><ms base 36><16 hex>', async (t) => {
  const before = Date.now();
  const ids = Array.from({ length: 100_000 }, () => eventId());
  const after = Date.now();
  t.equal(new Set(ids).size, ids.length, 'no duplicate');
  t.equal(new Set(ids.map((id) => id.slice(-16))).size, ids.length, 'no random part drawn twice, across many refills');
  const bad = ids.filter((id) => {
    const m = /^evt_([0-9a-z]+)([0-9a-f]{16})$/.exec(id);
    const ms = m ? parseInt(m[1]!, 36) : NaN;
    return !(ms >= before && ms <= after);
  });
  t.same(bad.slice(0, 5), [], 'every id has the format and the time it was made');
});

t.test('the prefix is kept', async (t) => {
  t.match(eventId('evt_test_'), /^evt_test_[0-9a-z]+[0-9a-f]{16}$/);
});
