/**
 * bench/idle: what a devnet costs with nothing to do. Starts `ledger devnet` (N validators, no
 * plugins, temp dir, free ports), lets it settle, then reads each validator's CPU time (user +
 * system, /proc) over `--duration` seconds with no load, and the blocks it commits meanwhile (an
 * idle chain still makes one a second: a commit needs the blocks after it).
 *
 *   npm run bench:idle -- [--validators 4] [--duration 60] [--settle 10]
 *
 * Prints a table and writes bench/results/idle-<N>v.json.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startDevnet, type BenchDevnet } from './lib/devnet.js';
import { cpuSeconds, headSeq } from './lib/finality-run.js';
import { machine } from './lib/stats.js';

const { values } = parseArgs({
  options: {
    validators: { type: 'string', default: '4' },
    duration: { type: 'string', default: '60' },
    settle: { type: 'string', default: '10' },
    out: { type: 'string' },
  },
});
const n = Number(values.validators);
const duration = Number(values.duration);
const settle = Number(values.settle);
if (![n, duration, settle].every((v) => Number.isInteger(v) && v >= 0) || n < 1 || duration < 1) {
  console.error('usage: bench:idle -- [--validators 4] [--duration 60] [--settle 10] (whole numbers; validators and duration at least 1)');
  process.exit(2);
}
/** What the project aims for (issue 26); printed, never asserted. */
const TARGET_PERCENT = 2;
const root = fileURLToPath(new URL('../..', import.meta.url));
const sleep = (s: number) => new Promise((r) => setTimeout(r, s * 1000));

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'ledger-idle-'));
  const loadBefore = loadavg();
  let net: BenchDevnet | undefined;
  let measured: { percent: number[]; blocks: number; seconds: number };
  try {
    console.error(`starting a devnet of ${n} validators in ${dir}; settling ${settle} s, then ${duration} s idle`);
    net = await startDevnet(root, n, dir);
    await sleep(settle);
    const pids = net.pids;
    const before = await Promise.all(pids.map((p) => cpuSeconds([p])));
    const seq0 = await headSeq(net.rpcUrls[0]!);
    const t0 = performance.now();
    await sleep(duration);
    const after = await Promise.all(pids.map((p) => cpuSeconds([p])));
    const seconds = (performance.now() - t0) / 1000;
    const blocks = (await headSeq(net.rpcUrls[0]!)) - seq0;
    measured = { percent: after.map((a, i) => Math.round(((a - before[i]!) / seconds) * 10_000) / 100), blocks, seconds: Math.round(seconds * 10) / 10 };
  } finally {
    await net?.stop();
    await rm(dir, { recursive: true, force: true });
  }
  const max = Math.max(...measured.percent);
  const result = {
    benchmark: 'idle',
    date: new Date().toISOString(),
    machine: { ...machine(), loadavg_before: loadBefore.map((x) => Math.round(x * 100) / 100) },
    validators: n,
    settle_s: settle,
    duration_s: measured.seconds,
    method: "each validator's user + system CPU time (/proc) over the window, as a percentage of one core; no load, no plugins",
    percent_of_a_core: measured.percent,
    max_percent: max,
    blocks_per_s: Math.round((measured.blocks / measured.seconds) * 100) / 100,
    target: `each validator <= ${TARGET_PERCENT} % of a core: ${max <= TARGET_PERCENT ? 'met' : 'NOT met'}`,
  };
  console.table(measured.percent.map((p, i) => ({ validator: i, '% of a core': p })));
  console.log(`blocks/s ${result.blocks_per_s}; ${result.target}`);
  const out = values.out ?? join(root, 'bench', 'results', `idle-${n}v.json`);
  await mkdir(join(out, '..'), { recursive: true });
  await writeFile(out, JSON.stringify(result, null, 2) + '\n');
  console.log(`wrote ${out}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
