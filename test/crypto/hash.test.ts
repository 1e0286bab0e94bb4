import t from 'tap';
import { blake3, blake3Backend, blake3Js, sha256 } from '../../node/crypto/hash.js';
import { toHex, utf8 } from '../../node/protocol/bytes.js';
import { loadVectors } from '../fixtures/vectors.js';

const { cases } = loadVectors('blake3.json');

for (const c of cases) {
  t.test(`BLAKE3 input length ${c.input_len}`, async (t) => {
    const input = Uint8Array.from({ length: c.input_len }, (_, i) => i % 251);
    t.equal(toHex(blake3(input)), c.hash, blake3Backend);
    t.equal(toHex(blake3Js(input)), c.hash, 'js');
  });
}

t.test('the native BLAKE3 loads on this platform (linux x64), and agrees with the JavaScript one', async (t) => {
  if (process.platform === 'linux' && process.arch === 'x64') t.equal(blake3Backend, 'native');
  for (let len = 0; len < 3000; len += 37) {
    const input = Uint8Array.from({ length: len }, (_, i) => (i * 7 + len) & 0xff);
    const out = blake3(input);
    t.ok(out instanceof Uint8Array && !Buffer.isBuffer(out) && out.length === 32, `length ${len}: 32 plain bytes`);
    if (toHex(out) !== toHex(blake3Js(input))) t.fail(`length ${len} differs`);
  }
  const view = new Uint8Array(100).fill(9).subarray(10, 60);
  t.equal(toHex(blake3(view)), toHex(blake3Js(view)), 'a view into a larger buffer hashes only its own bytes');
});

t.test('SHA-256 of "abc" (FIPS 180-2)', async (t) => {
  t.equal(toHex(sha256(utf8('abc'))), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
});
