import t from 'tap';
import { randomBytes } from 'node:crypto';
import { Sealer, SCRYPT_DEFAULTS, sealerFor } from '../../node/crypto/envelope.js';
import { testSecret } from '../plugins/common/secrets/fixtures.js';

/** AES-256-GCM under an scrypt-derived key: what an envelope holds and what opens it. */

const AAD = 'ledger-sealed-secret/v1\0iss-keys\0issuer\0ed25519-seed';

t.test('an envelope opens with its secret and associated data, and with nothing else', async (t) => {
  const secret = await testSecret();
  const sealer = new Sealer(secret);
  const plaintext = randomBytes(32);
  const envelope = await sealer.seal(plaintext, AAD);
  t.match(envelope, { v: 1, kdf: { name: 'scrypt', ...SCRYPT_DEFAULTS, salt: /^[A-Za-z0-9_-]{22}$/ }, cipher: 'aes-256-gcm', nonce: /^[A-Za-z0-9_-]{16}$/, tag: /^[A-Za-z0-9_-]{22}$/ });
  t.equal(Buffer.from(envelope.ciphertext, 'base64url').length, 32, 'GCM adds no padding: the tag is apart');
  const opened = async (s: Sealer) => Buffer.from((await s.open(envelope, AAD))!);
  t.same(await opened(sealer), plaintext);
  t.same(await opened(new Sealer(await testSecret())), plaintext, 'the same secret text in another process opens it');

  t.equal(await new Sealer(await testSecret('another-secret-of-some-length')).open(envelope, AAD), undefined, 'another secret does not');
  t.equal(await sealer.open(envelope, AAD.replace('issuer', 'bbs')), undefined, 'nor the same envelope read as another row');
  const flipped = Buffer.from(envelope.ciphertext, 'base64url');
  flipped.writeUInt8(flipped.readUInt8(0) ^ 1, 0);
  t.equal(await sealer.open({ ...envelope, ciphertext: flipped.toString('base64url') }, AAD), undefined, 'nor an altered ciphertext');

  const second = await sealer.seal(plaintext, AAD);
  t.not(second.nonce, envelope.nonce, 'each seal draws its own nonce');
  t.equal(second.kdf.salt, envelope.kdf.salt, 'one sealer seals under one salt: one scrypt run for all its rows');
  t.equal(sealerFor(secret), sealerFor(secret), 'one sealer per secret object');
});

t.test('the parameters travel with the envelope, so they can change later', async (t) => {
  const secret = await testSecret();
  const older = await new Sealer(secret, { N: 2 ** 14, r: 8, p: 2 }).seal(Buffer.from('x'.repeat(32)), AAD);
  t.match(older.kdf, { N: 2 ** 14, r: 8, p: 2 });
  t.same(Buffer.from((await new Sealer(secret).open(older, AAD))!), Buffer.from('x'.repeat(32)), 'a sealer with other defaults opens it');
});

t.test('a malformed envelope is SEALED_SECRET_MALFORMED, not a wrong secret', async (t) => {
  const sealer = new Sealer(await testSecret());
  const envelope = await sealer.seal(randomBytes(32), AAD);
  const bad: Array<[string, unknown]> = [
    ['not an object', 'text'],
    ['unknown version', { ...envelope, v: 2 }],
    ['unknown cipher', { ...envelope, cipher: 'aes-128-cbc' }],
    ['unknown kdf', { ...envelope, kdf: { ...envelope.kdf, name: 'pbkdf2' } }],
    ['a cost that would exhaust memory', { ...envelope, kdf: { ...envelope.kdf, N: 2 ** 24 } }],
    ['N not a power of two', { ...envelope, kdf: { ...envelope.kdf, N: 3000 } }],
    ['a short nonce', { ...envelope, nonce: 'AAAA' }],
    ['a ciphertext that is not base64url', { ...envelope, ciphertext: 'not base64!' }],
  ];
  for (const [what, value] of bad) await t.rejects(sealer.open(value, AAD), { code: 'SEALED_SECRET_MALFORMED' }, what);
});
