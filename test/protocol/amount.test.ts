import t from 'tap';
import { parseTokens } from '../../node/protocol/amount.js';

t.test('parseTokens takes numbers through their shortest decimal form, and strings as before', async (t) => {
  t.equal(parseTokens(1.5), 150_000_000n);
  t.equal(parseTokens(0.1), 10_000_000n, '0.1 is exactly 0.1 tokens, not the nearest double');
  t.equal(parseTokens(0), 0n);
  t.equal(parseTokens(42), 4_200_000_000n);
  t.equal(parseTokens(0.12345678), 12_345_678n);
  t.equal(parseTokens(1e-8), 1n, 'String(1e-8) is an exponent form: written out');
  t.equal(parseTokens(1.5e-7), 15n);
  t.equal(parseTokens(1e21), 10n ** 29n);
  t.equal(parseTokens('1.5'), 150_000_000n, 'strings as before');
  for (const bad of [NaN, Infinity, -Infinity, -1, -0.5]) t.throws(() => parseTokens(bad), RangeError, String(bad));
  t.throws(() => parseTokens(0.123456789), { code: 'BAD_AMOUNT' }, 'more than 8 decimals is refused, not rounded');
  t.throws(() => parseTokens(1e-9), { code: 'BAD_AMOUNT' });
  t.throws(() => parseTokens(1e40), { code: 'BAD_AMOUNT' }, 'beyond the amount range');
});
