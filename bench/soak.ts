/**
 * bench/soak: a devnet of N validators under a steady load of transfers, with validators killed
 * (kill -9) at random moments and restarted after a random downtime, for a bounded time and
 * number of cycles (bench/lib/chaos). After each restart the node must catch up and vote again;
 * after each cycle every node must hold the same blocks, receipts, nonces and balances.
 *
 *   npm run bench:soak -- --validators 4 --minutes 20 --rate 40 --senders 40 --seed 7
 *   npm run bench:soak -- --validators 4 --minutes 5 --two-down-every 4
 *
 * Prints a table per cycle and a summary (restart to caught up p50/p90/max, a live node's commit
 * gaps while one validator is down, resume time after two were down, failures) and writes
 * bench/results/soak-<N>v.json. A failure is reported and the run goes on when restarting the
 * node helps; the devnet dir (node logs) is kept when anything failed.
 */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CATCH_UP_BOUND_MS, runChaos } from './lib/chaos/driver.js';
import { LocalCluster } from './lib/chaos/cluster.js';
import { cycleRows, summarize } from './lib/chaos/summary.js';
import type { ChaosOptions, ChaosResult, CycleKind, CycleResult } from './lib/chaos/types.js';
import { machine } from './lib/stats.js';

const { values } = parseArgs({
  options: {
    validators: { type: 'string', default: '4' },
    minutes: { type: 'string', default: '20' },
    rate: { type: 'string', default: '40' },
    senders: { type: 'string', default: '40' },
    seed: { type: 'string' },
    cycles: { type: 'string', default: '1000' },
    /** seconds, min-max */
    down: { type: 'string', default: '2-10' },
    quiet: { type: 'string', default: '1-4' },
    'two-down-every': { type: 'string', default: '5' },
    plan: { type: 'string' },
    'catch-up-ms': { type: 'string', default: String(CATCH_UP_BOUND_MS) },
    'stop-on-failure': { type: 'boolean', default: false },
    'log-level': { type: 'string', default: 'warn' },
    'keep-dir': { type: 'boolean', default: false },
    out: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log(`bench/soak: kill -9 / restart cycles of validators under load

  npm run bench:soak -- [--validators 4] [--minutes 20] [--rate 40] [--senders 40] [--seed <n>]
                        [--cycles 1000] [--down 2-10] [--quiet 1-4] [--two-down-every 5]
                        [--plan one,leader,two] [--catch-up-ms ${CATCH_UP_BOUND_MS}] [--stop-on-failure]

  --down <s-s>          how long a killed validator stays down, seconds
  --quiet <s-s>         load alone before each kill, seconds (the kill lands at a random moment)
  --two-down-every <k>  every k-th cycle kills two validators at once (0: never; needs 4 or more)
  --plan <kinds>        cycle kinds in order, repeated, instead of random: one, leader, two
  --out <file>          result JSON (default bench/results/soak-<N>v.json)
  --keep-dir            keep the devnet dir (node logs) even when nothing failed`);
  process.exit(0);
}

const root = fileURLToPath(new URL('../..', import.meta.url)); // dist/bench -> package root
const n = Number(values.validators);
const seed = values.seed !== undefined ? Number(values.seed) : Math.floor(Math.random() * 2 ** 31);
const range = (s: string): [number, number] => {
  const [a, b] = s.split('-').map((x) => Math.round(Number(x) * 1000));
  if (a === undefined || Number.isNaN(a) || (b !== undefined && (Number.isNaN(b) || b < a))) throw new Error(`not a range of seconds: ${s}`);
  return [a, b ?? a];
};
const options: ChaosOptions = {
  validators: n,
  seed,
  rate: Number(values.rate),
  senders: Number(values.senders),
  cycles: Number(values.cycles),
  deadlineMs: Number(values.minutes) * 60_000,
  plan: values.plan?.split(',') as CycleKind[] | undefined,
  twoDownEvery: Number(values['two-down-every']),
  downMs: range(values.down!),
  quietMs: range(values.quiet!),
  catchUpMs: Number(values['catch-up-ms']),
  stopOnFailure: values['stop-on-failure'],
  logLevel: values['log-level'],
  keepDir: values['keep-dir'] ? 'always' : 'on-failure',
  log: (line) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${line}`),
};
const out = values.out ?? join(root, 'bench', 'results', `soak-${n}v.json`);
const loadBefore = loadavg();
const seen: CycleResult[] = [];
const round2 = (xs: number[]) => xs.map((x) => Math.round(x * 100) / 100);

async function write(result: Partial<ChaosResult> & { cycles: CycleResult[] }, interrupted: boolean): Promise<void> {
  const doc = {
    benchmark: 'soak',
    date: new Date().toISOString(),
    machine: { ...machine(), loadavg_before: round2(loadBefore), loadavg_after: round2(loadavg()) },
    options: { ...options, log: undefined },
    interrupted,
    method:
      'restart to caught up: from spawning the restarted process to its canonical head within catchUpLag (2) blocks of the highest live head (both polled every 50 ms); ' +
      'commit gaps: time between polls (every 20 ms) of one live node that saw its head move, from the kill to the restart; ' +
      'two-down resume: from spawning both to the first live commit past the stalled head',
    summary: summarize({ failures: [], ...result } as ChaosResult),
    result,
  };
  await mkdir(join(out, '..'), { recursive: true });
  await writeFile(out, JSON.stringify(doc, null, 2) + '\n');
  console.log(`wrote ${out}`);
}

let dir: string | undefined;
let stopping = false;
async function interrupt(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.error(`${signal}: killing the nodes`);
  await LocalCluster.killAll();
  if (dir && !values['keep-dir']) await rm(dir, { recursive: true, force: true });
  await write({ cycles: seen }, true).catch((err: unknown) => console.error(err));
  process.exit(130);
}
process.on('SIGINT', () => void interrupt('SIGINT'));
process.on('SIGTERM', () => void interrupt('SIGTERM'));

async function main(): Promise<void> {
  dir = await mkdtemp(join(tmpdir(), 'ledger-soak-'));
  console.error(`soak: ${n} validators, ${options.rate} tx/s from ${options.senders} senders, ${values.minutes} min, seed ${seed}`);
  const result = await runChaos({ ...options, dir, onCycle: (c) => seen.push(c) });
  if (!result.dir) await rm(dir, { recursive: true, force: true });
  console.table(cycleRows(result));
  const s = summarize(result);
  const fmt = (x: { p50: number; p90?: number; max: number } | null) => (x ? [x.p50, x.p90, x.max].filter((v) => v !== undefined).join(' / ') : 'n/a');
  console.table([
    {
      N: n,
      seed,
      cycles: s.cycles,
      'caught up p50/p90/max ms': fmt(s.caught_up_ms),
      'one down gap p50/max ms': fmt(s.one_down_gap_ms),
      'two down resume p50/p90/max ms': fmt(s.two_down_resume_ms),
      stuck: s.stuck,
      failures: s.failures,
    },
  ]);
  for (const f of result.failures) console.log(`FAILURE in ${f.cycle < 0 ? 'the final check' : `cycle ${f.cycle}`} (${f.code}):\n${f.message}\n`);
  await write(result, false);
  process.exitCode = result.failures.length > 0 ? 1 : 0;
}

main().catch(async (err) => {
  console.error(err);
  await LocalCluster.killAll();
  process.exit(1);
});
