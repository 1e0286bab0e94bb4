import t from 'tap';
import { LeaderResends, MAX_RESENDS, MAX_RESENDS_PER_ROUND, RESEND_AFTER_ROUNDS } from '../../node/mempool/leader-resend.js';

const all = () => true;

t.test('a transaction no block carried is due again two rounds after its send, then two after that', async (t) => {
  const r = new LeaderResends();
  r.sentAt('a', 10);
  t.same(r.due(10 + RESEND_AFTER_ROUNDS - 1, all), [], 'its leaders may still propose it');
  t.same(r.due(10 + RESEND_AFTER_ROUNDS, all), ['a']);
  t.same(r.due(10 + RESEND_AFTER_ROUNDS + 1, all), [], 'marked as sent in the round it went again');
  t.same(r.due(10 + 2 * RESEND_AFTER_ROUNDS, all), ['a']);
});

t.test('a block carrying it, or a mempool without it, ends the resends', async (t) => {
  const r = new LeaderResends();
  r.sentAt('carried', 1);
  r.sentAt('committed', 1);
  r.sentAt('waiting', 1);
  r.proposed(['carried', 'unknown']);
  t.same(r.due(5, (h) => h !== 'committed'), ['waiting']);
  t.equal(r.size, 1, 'the carried and the committed ones are forgotten');
});

t.test(`at most ${MAX_RESENDS} resends; then it waits for this node's own turn`, async (t) => {
  const r = new LeaderResends();
  r.sentAt('a', 0);
  let sent = 0;
  for (let round = 1; round <= 100; round++) sent += r.due(round, all).length;
  t.equal(sent, MAX_RESENDS);
  t.equal(r.size, 0);
});

t.test('a bounded number is tracked, the oldest forgotten first', async (t) => {
  const r = new LeaderResends(2);
  r.sentAt('a', 0);
  r.sentAt('b', 0);
  r.sentAt('c', 0);
  t.same(r.due(9, all), ['b', 'c']);
  r.sentAt('b', 9);
  t.same(r.due(11, all), ['c', 'b'], 'a send again moves it to the newest');
});

t.test(`at most ${MAX_RESENDS_PER_ROUND} go again in one round, the oldest first; the rest in the next rounds`, async (t) => {
  const r = new LeaderResends();
  const hashes = Array.from({ length: MAX_RESENDS_PER_ROUND + 3 }, (_, i) => `h${i}`);
  for (const h of hashes) r.sentAt(h, 0);
  t.same(r.due(5, all), hashes.slice(0, MAX_RESENDS_PER_ROUND));
  t.same(r.due(6, all), hashes.slice(MAX_RESENDS_PER_ROUND), 'the ones left out go first in the next round');
  t.same(r.due(7, all), hashes.slice(0, MAX_RESENDS_PER_ROUND), 'then the first ones again, two rounds after their resend');
});
