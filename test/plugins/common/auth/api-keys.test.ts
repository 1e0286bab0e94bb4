import { createHash } from 'node:crypto';
import t from 'tap';
import { hashApiKey, looksLikeApiKey, newApiKey, sameHash } from '../../../../plugins/common/auth/index.js';

t.test('a new key: prefix and 43 base64url characters; its hash is SHA-256 hex; the display prefix is 12 characters and …', async (t) => {
  const k = newApiKey('slk_');
  t.match(k.key, /^slk_[A-Za-z0-9_-]{43}$/);
  t.equal(Buffer.from(k.key.slice(4), 'base64url').length, 32);
  t.match(k.hash, /^[0-9a-f]{64}$/);
  t.equal(k.hash, createHash('sha256').update(k.key).digest('hex'));
  t.equal(k.hash, hashApiKey(k.key), 'stable');
  t.not(k.hash, k.key);
  t.notOk(k.hash.includes(k.key.slice(4, 20)), 'the hash shows nothing of the key');
  t.equal(k.displayPrefix, `${k.key.slice(0, 12)}…`);
  t.match(k.id, /^[0-9a-f-]{36}$/);
  const other = newApiKey('slk_');
  t.not(other.key, k.key);
  t.not(other.id, k.id);
  t.ok(looksLikeApiKey(k.key, 'slk_'));
  t.notOk(looksLikeApiKey(k.key, 'kyc_'));
  t.notOk(looksLikeApiKey(`${k.key}x`, 'slk_'));
  t.notOk(looksLikeApiKey(42, 'slk_'));
});

t.test('hashApiKey is a known SHA-256', async (t) => {
  t.equal(hashApiKey('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
});

t.test('prefixes are checked', async (t) => {
  for (const bad of ['', 'slk', 'SLK_', '1k_', 'averylong_', 'a b_']) t.throws(() => newApiKey(bad), { code: 'API_KEY_PREFIX_INVALID' }, JSON.stringify(bad));
  t.match(newApiKey('k_').key, /^k_/);
});

t.test('sameHash: equal hashes only; other lengths and non-hex are false, never a throw', async (t) => {
  const a = hashApiKey('one');
  t.ok(sameHash(a, hashApiKey('one')));
  t.notOk(sameHash(a, hashApiKey('two')));
  t.notOk(sameHash(a, a.slice(0, 63)), 'a shorter string');
  t.notOk(sameHash(a, a.toUpperCase()), 'hex is lowercase');
  t.notOk(sameHash(a, `${a.slice(0, 63)}g`));
  t.notOk(sameHash('', ''), 'empty is not a hash');
  t.notOk(sameHash(a, undefined as unknown as string));
});
