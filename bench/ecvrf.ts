/**
 * bench/ecvrf: per-operation cost of ECVRF-EDWARDS25519-SHA512-TAI (node/crypto/ecvrf.ts) as
 * issuance uses it: a few validator keys, each proving and verifying over fresh 32-byte seeds.
 * Rows: prove, verify (keys seen before, the steady state of a validator set), verify with a key
 * never seen before, proofToHash, and ecvrfVerifyCached on a check already made (the memo a block
 * re-run hits). The verify rows each run over distinct (key, seed, proof) triples.
 *
 *   npm run bench:ecvrf -- [--count 2000] [--keys 4] [--out <file>]
 *
 * Prints a table and writes bench/results/ecvrf.json.
 */
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ecvrfProofToHash, ecvrfProve, ecvrfVerify, ecvrfVerifyCached } from '../node/crypto/ecvrf.js';
import { keyPairFromSeed } from '../node/crypto/ed25519.js';
import { machine, percentile } from './lib/stats.js';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '2000' },
    keys: { type: 'string', default: '4' },
    out: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log('bench/ecvrf: per-operation cost of ECVRF prove, verify and proofToHash\n\n  npm run bench:ecvrf -- [--count 2000] [--keys 4] [--out <file>]');
  process.exit(0);
}
const root = fileURLToPath(new URL('../..', import.meta.url)); // dist/bench -> package root
const count = Number(values.count);
const keyCount = Number(values.keys);

function digest(label: string, i: number): Uint8Array {
  return new Uint8Array(createHash('sha256').update(`${label}/${i}`).digest());
}

const keys = Array.from({ length: keyCount }, (_, i) => keyPairFromSeed(digest('validator', i)));
const alphas = Array.from({ length: count }, (_, i) => digest('seed', i));

interface Row {
  op: string;
  count: number;
  per_s: number;
  median_us: number;
  p90_us: number;
  p99_us: number;
}

function measure(op: string, n: number, fn: (i: number) => void): Row {
  for (let i = 0; i < Math.min(n, 50); i++) fn(i); // JIT warm-up
  const samples: number[] = [];
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    fn(i);
    samples.push((performance.now() - t0) * 1000);
  }
  const totalMs = performance.now() - start;
  samples.sort((a, b) => a - b);
  const r = (x: number) => Math.round(x * 10) / 10;
  return { op, count: n, per_s: Math.round((n / totalMs) * 1000), median_us: r(percentile(samples, 50)), p90_us: r(percentile(samples, 90)), p99_us: r(percentile(samples, 99)) };
}

const load = loadavg()[0] ?? 0;
const rows: Row[] = [];
const proofs: Uint8Array[] = new Array(count);
rows.push(measure('prove', count, (i) => (proofs[i] = ecvrfProve(keys[i % keyCount]!.seed, alphas[i]!))));
rows.push(
  measure('verify', count, (i) => {
    if (!ecvrfVerify(keys[i % keyCount]!.publicKey, alphas[i]!, proofs[i]!)) throw new Error('a valid proof did not verify');
  }),
);

// a key per proof, each seen once: what the first attestation of a new validator costs
const fresh = Math.min(count, 500);
const freshKeys = Array.from({ length: fresh + 50 }, (_, i) => keyPairFromSeed(digest('fresh', i)));
const freshProofs = freshKeys.map((k, i) => ecvrfProve(k.seed, alphas[i % count]!));
let next = 0;
rows.push(
  measure('verify, new key', fresh, () => {
    const i = next++;
    if (!ecvrfVerify(freshKeys[i]!.publicKey, alphas[i % count]!, freshProofs[i]!)) throw new Error('a valid proof did not verify');
  }),
);
rows.push(measure('proofToHash', count, (i) => ecvrfProofToHash(proofs[i]!)));
const memoized = Math.min(count, 1000);
for (let i = 0; i < memoized; i++) ecvrfVerifyCached(keys[i % keyCount]!.publicKey, alphas[i]!, proofs[i]!);
rows.push(
  measure('verify, memo hit', memoized, (i) => {
    if (!ecvrfVerifyCached(keys[i % keyCount]!.publicKey, alphas[i]!, proofs[i]!)) throw new Error('a valid proof did not verify');
  }),
);

console.log(`\nECVRF-EDWARDS25519-SHA512-TAI, ${keyCount} keys, ${count} seeds (load ${load.toFixed(2)})\n`);
console.log('op                    ops/s  median µs   p90 µs   p99 µs');
for (const r of rows) console.log(`${r.op.padEnd(18)}${String(r.per_s).padStart(9)}${String(r.median_us).padStart(11)}${String(r.p90_us).padStart(9)}${String(r.p99_us).padStart(9)}`);

const out = values.out ?? join(root, 'bench/results', 'ecvrf.json');
await mkdir(join(out, '..'), { recursive: true });
await writeFile(out, JSON.stringify({ bench: 'ecvrf', suite: 'TAI', keys: keyCount, count, results: rows, machine: { ...machine(), loadavg_1m_before: load }, at: new Date().toISOString() }, null, 1) + '\n');
console.log(`wrote ${out}`);
