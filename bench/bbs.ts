/**
 * bench/bbs: what one BBS proof verification costs (node/crypto/bbs.ts), by the number of messages
 * of the signed credential, with none and with all of them disclosed. These times are what the
 * RPC's cost model (node/rpc/verification/cost.ts) charges, rounded up.
 *
 *   npm run bench:bbs -- [--runs 5] [--sizes 1,16,64,256,1024] [--out <file>]
 *
 * Prints a table and writes bench/results/bbs.json.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { verifyBbsProof } from '../node/crypto/bbs.js';
import { bbsVerifyCost } from '../node/rpc/verification/cost.js';
import { makeBbsProof } from './lib/bbs-proof.js';
import { machine, percentile } from './lib/stats.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    sizes: { type: 'string', default: '1,16,64,256,1024' },
    out: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log('bench/bbs: BBS proof verification time by message count\n\n  npm run bench:bbs -- [--runs 5] [--sizes 1,16,64,256,1024] [--out <file>]');
  process.exit(0);
}
const root = fileURLToPath(new URL('../..', import.meta.url)); // dist/bench -> package root
const runs = Number(values.runs);
const sizes = values.sizes.split(',').map(Number);

interface Row {
  messages: number;
  disclosed: number;
  runs: number;
  median_ms: number;
  max_ms: number;
  cost_units: number;
}

const load = loadavg()[0] ?? 0;
const rows: Row[] = [];
for (const n of sizes) {
  for (const disclosed of [0, n]) {
    const proof = await makeBbsProof(n, disclosed);
    const samples: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      if (!(await verifyBbsProof(proof))) throw new Error('a valid proof did not verify');
      samples.push(performance.now() - t0);
    }
    samples.sort((a, b) => a - b);
    const r = (x: number) => Math.round(x * 10) / 10;
    rows.push({ messages: n, disclosed, runs, median_ms: r(percentile(samples, 50)), max_ms: r(samples.at(-1)!), cost_units: bbsVerifyCost(n) });
  }
}

console.log(`\nBBS proof verification (BLS12-381-SHA-256), ${runs} runs each (load ${load.toFixed(2)})\n`);
console.log('messages  disclosed  median ms   max ms  charged units');
for (const r of rows) console.log(`${String(r.messages).padStart(8)}${String(r.disclosed).padStart(11)}${String(r.median_ms).padStart(11)}${String(r.max_ms).padStart(9)}${String(r.cost_units).padStart(15)}`);

const out = values.out ?? join(root, 'bench/results', 'bbs.json');
await mkdir(join(out, '..'), { recursive: true });
await writeFile(out, JSON.stringify({ bench: 'bbs', runs, results: rows, machine: { ...machine(), loadavg_1m_before: load }, at: new Date().toISOString() }, null, 1) + '\n');
console.log(`wrote ${out}`);
