import t from 'tap';
import { bearerToken, MAX_BEARER_LENGTH } from '../../../../plugins/common/auth/index.js';

const req = (authorization?: string | string[]) => ({ headers: authorization === undefined ? {} : { authorization } }) as Parameters<typeof bearerToken>[0];

t.test('the token of a Bearer header; scheme case-insensitive; surrounding space trimmed', async (t) => {
  t.equal(bearerToken(req('Bearer abc.def-ghi_jkl')), 'abc.def-ghi_jkl');
  t.equal(bearerToken(req('bearer slk_AAAA')), 'slk_AAAA');
  t.equal(bearerToken(req('BEARER   tok==  ')), 'tok==');
  t.equal(bearerToken(req('  Bearer x/y+z~ ')), 'x/y+z~');
});

t.test('nothing for other schemes, empty tokens, junk and absurd lengths', async (t) => {
  for (const value of [undefined, '', 'Bearer', 'Bearer ', 'Basic dXNlcjpwYXNz', 'Token abc', 'Bearer a b', 'Bearer a,b', 'Bearer "abc"', 'Bearerabc', 'Bearer\tabc\u0000']) {
    t.equal(bearerToken(req(value)), undefined, JSON.stringify(value));
  }
  t.equal(bearerToken(req(`Bearer ${'a'.repeat(MAX_BEARER_LENGTH)}`)), 'a'.repeat(MAX_BEARER_LENGTH), 'the longest accepted');
  t.equal(bearerToken(req(`Bearer ${'a'.repeat(MAX_BEARER_LENGTH + 1)}`)), undefined, 'one more is refused');
  t.equal(bearerToken(req(`Bearer ${'a'.repeat(1_000_000)}`)), undefined);
});
