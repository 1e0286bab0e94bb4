import t from 'tap';
import { blake3, sha256 } from '../../node/crypto/hash.js';
import { toHex, utf8 } from '../../node/protocol/bytes.js';
import { loadVectors } from '../fixtures/vectors.js';

const { cases } = loadVectors('blake3.json');

for (const c of cases) {
  t.test(`BLAKE3 input length ${c.input_len}`, async (t) => {
    const input = Uint8Array.from({ length: c.input_len }, (_, i) => i % 251);
    t.equal(toHex(blake3(input)), c.hash);
  });
}

t.test('SHA-256 of "abc" (FIPS 180-2)', async (t) => {
  t.equal(toHex(sha256(utf8('abc'))), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
});
