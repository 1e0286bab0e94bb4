import t from 'tap';
import { randomBytes } from 'node:crypto';
import { concatKdf, decryptContent, encryptContent, fromB64u, unwrapKey, wrapKey, x25519, x25519Ephemeral, x25519Public, type ContentAlg } from '../../../../../plugins/relay/wire/jwe/primitives.js';

/** The primitives against their published test vectors, and the refusals the fast path relies on. */

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const range = (from: number, n: number) => Buffer.from(Array.from({ length: n }, (_, i) => from + i));

t.test('AES-256 key wrap: RFC 3394 4.6 (256 bits of key data, 256-bit KEK)', async (t) => {
  const kek = range(0, 32);
  const data = hex('00112233445566778899AABBCCDDEEFF000102030405060708090A0B0C0D0E0F');
  const wrapped = wrapKey(kek, data);
  t.equal(wrapped.toString('hex').toUpperCase(), '28C9F404C4B810F4CBCCB35CFB87F8263F5786E2D80ED326CBC7F0E71A99F43BFB988B9B7A02DD21');
  t.same(unwrapKey(kek, wrapped), data);
  const bad = Buffer.from(wrapped);
  bad[0]! ^= 1;
  t.throws(() => unwrapKey(kek, bad), 'a changed wrap fails its integrity check');
});

t.test('A256CBC-HS512: RFC 7518 B.3', async (t) => {
  const key = range(0, 64);
  const plaintext = Buffer.from('A cipher system must not be required to be secret, and it must be able to fall into the hands of the enemy without inconvenience');
  const aad = Buffer.from('The second principle of Auguste Kerckhoffs');
  const iv = hex('1af38c2dc2b96ffdd86694092341bc04');
  const { ciphertext, tag } = encryptContent('A256CBC-HS512', key, plaintext, aad, iv);
  t.equal(tag.toString('hex'), '4dd3b4c088a7f45c216839645b2012bf2e6269a8c56a816dbc1b267761955bc5');
  t.same(decryptContent('A256CBC-HS512', key, iv, ciphertext, tag, aad), plaintext);
  t.throws(() => decryptContent('A256CBC-HS512', key, iv, ciphertext, tag, Buffer.from('another AAD')), /tag/);
});

t.test('XC20P: draft-irtf-cfrg-xchacha-03 A.3.1', async (t) => {
  const key = range(0x80, 32);
  const iv = range(0x40, 24);
  const aad = hex('50515253c0c1c2c3c4c5c6c7');
  const plaintext = Buffer.from("Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.");
  const { ciphertext, tag } = encryptContent('XC20P', key, plaintext, aad, iv);
  t.equal(ciphertext.subarray(0, 16).toString('hex'), 'bd6d179d3e83d43b9576579493c0e939');
  t.equal(tag.toString('hex'), 'c0875924c1c7987947deafd8780acf49');
  t.same(decryptContent('XC20P', key, iv, ciphertext, tag, aad), plaintext);
});

t.test('every content cipher refuses a changed byte, a wrong length and another key', async (t) => {
  for (const enc of ['A256CBC-HS512', 'A256GCM', 'XC20P'] as ContentAlg[]) {
    const key = randomBytes(enc === 'A256CBC-HS512' ? 64 : 32);
    const aad = Buffer.from('header');
    const { iv, ciphertext, tag } = encryptContent(enc, key, Buffer.from('a message'), aad);
    t.equal(decryptContent(enc, key, iv, ciphertext, tag, aad).toString(), 'a message', `${enc} round trip`);
    const changed = Buffer.from(ciphertext);
    changed[0]! ^= 1;
    t.throws(() => decryptContent(enc, key, iv, changed, tag, aad), `${enc}: a changed ciphertext`);
    t.throws(() => decryptContent(enc, key, iv.subarray(1), ciphertext, tag, aad), `${enc}: a short iv`);
    t.throws(() => decryptContent(enc, randomBytes(key.length), iv, ciphertext, tag, aad), `${enc}: another key`);
  }
});

t.test('X25519 agrees both ways and refuses a low-order point', async (t) => {
  const a = x25519Ephemeral();
  const b = x25519Ephemeral();
  t.same(x25519(a.privateKey, x25519Public(b.x)!), x25519(b.privateKey, x25519Public(a.x)!));
  t.equal(x25519Public('AAAA'), null, 'not 32 bytes');
  t.throws(() => x25519(a.privateKey, x25519Public(Buffer.alloc(32).toString('base64url'))!), 'the zero point gives an all-zero secret, which OpenSSL refuses');
});

t.test('the Concat KDF binds every input', async (t) => {
  const z = randomBytes(32);
  const base = concatKdf(z, 'ECDH-1PU+A256KW', Buffer.from('apu'), Buffer.from('apv'), Buffer.from('tag'));
  t.equal(base.length, 32);
  for (const other of [
    concatKdf(randomBytes(32), 'ECDH-1PU+A256KW', Buffer.from('apu'), Buffer.from('apv'), Buffer.from('tag')),
    concatKdf(z, 'ECDH-ES+A256KW', Buffer.from('apu'), Buffer.from('apv'), Buffer.from('tag')),
    concatKdf(z, 'ECDH-1PU+A256KW', Buffer.from('apv'), Buffer.from('apu'), Buffer.from('tag')),
    concatKdf(z, 'ECDH-1PU+A256KW', Buffer.from('apu'), Buffer.from('apv')),
  ])
    t.not(other.toString('hex'), base.toString('hex'));
});

t.test('base64url is read strictly', async (t) => {
  t.same(fromB64u('AQID'), Buffer.from([1, 2, 3]));
  for (const bad of ['AQ+D', 'AQ/D', 'AQID=', 'A', 3, null]) t.equal(fromB64u(bad), null, `refuses ${JSON.stringify(bad)}`);
});
