import t from 'tap';
import { blake3 as nobleBlake3 } from '@noble/hashes/blake3.js';
import { toHex } from '../../../node/protocol/bytes.js';
import { hash } from '../../../node/state/tree/hash.js';
import { loadVectors } from '../../fixtures/vectors.js';

interface Blake3Vectors {
  cases: Array<{ input_len: number; hash: string }>;
}

t.test('published BLAKE3 vectors, across the one-chunk boundary', async (t) => {
  const { cases } = loadVectors<Blake3Vectors>('blake3.json');
  t.ok(cases.some((c) => c.input_len <= 1024) && cases.some((c) => c.input_len > 1024));
  for (const c of cases) {
    const input = Uint8Array.from({ length: c.input_len }, (_, i) => i % 251);
    t.equal(toHex(hash(input)), c.hash.slice(0, 64), `length ${c.input_len}`);
  }
});

t.test('matches @noble/hashes for every length up to two chunks', async (t) => {
  let seed = 7;
  const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 24;
  let mismatches = 0;
  for (let len = 0; len <= 2048; len++) {
    const input = Uint8Array.from({ length: len }, next);
    if (toHex(hash(input)) !== toHex(nobleBlake3(input))) mismatches++;
  }
  t.equal(mismatches, 0);
  const view = new Uint8Array(200).fill(9).subarray(3, 68);
  t.equal(toHex(hash(view)), toHex(nobleBlake3(view)), 'a view with a byte offset');
});
