/**
 * bench/finality: starts a devnet of N validators (`ledger devnet --json`, in a temp dir, on free
 * ports, no plugins), drives it at a fixed rate of signed transfers from a separate process
 * (bench/finality-load.ts), and reports:
 * - client-side latency from submission to commit (p50/p90/p99), the offered, accepted and
 *   committed rates, the busy refusals (the generator retries them after the node's retryAfterMs)
 *   and blocks per second (measured by the load generator);
 * - the node-side breakdown mempool -> proposal, proposal -> QC, QC -> commit, estimated from the
 *   Prometheus histograms of every node (scraped before and after the load; bucket deltas summed
 *   over the nodes). A metric a node does not export reads "n/a";
 * - the validators' CPU per committed transaction and block, in ms and in Ed25519 verifications
 *   timed in the same run (bench/lib/ed25519-unit.ts), a figure that holds across machines.
 *
 *   npm run bench:finality -- --validators 4 --rate 500 --duration 30
 *   npm run bench:finality -- --validators 21 --rate 100
 *   npm run bench:finality -- --validators 4 --peak          (steps the rate up, see --peak-rates)
 *   npm run bench:finality -- --validators 4 --sweep [100,250,...]   (latency and CPU per rate, and a plot)
 *
 * Prints a table and writes bench/results/finality-<N>v-<rate|peak|sweep>.json (and .svg for a
 * sweep). The targets below are reported against, not enforced.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { mergeProfiles, summarizeProfiles } from './lib/cpuprofile.js';
import { startDevnet, type BenchDevnet } from './lib/devnet.js';
import { runLoad, type Run } from './lib/finality-run.js';
import { parseRates, pastTheKnee, SWEEP_STOP, sweepRow, sweepSvg, withSweepValue } from './lib/finality-sweep.js';
import type { HistogramSummary } from './lib/prometheus.js';
import { machine } from './lib/stats.js';

const { values } = parseArgs({
  args: withSweepValue(process.argv.slice(2)),
  options: {
    validators: { type: 'string', default: '4' },
    rate: { type: 'string', default: '500' },
    /** seconds per run: 30, or 20 per step of a sweep */
    duration: { type: 'string' },
    senders: { type: 'string', default: '200' },
    /** seconds of load at the first rate before the measured runs, not reported */
    warmup: { type: 'string', default: '10' },
    peak: { type: 'boolean', default: false },
    /** the rates to step through (alone: the default list); stops past the knee, see SWEEP_STOP */
    sweep: { type: 'string' },
    /** kill -9 this many validators (the last ones) just before the load: liveness with validators down */
    down: { type: 'string', default: '0' },
    'peak-rates': { type: 'string', default: '100,250,500,1000,1500,2000,3000' },
    /** the peak search stops at the first rate with p99 above this, or committing < 90 % of it */
    'peak-p99-ms': { type: 'string', default: '2000' },
    /** after the first rate that is not sustained, this many bisection steps between it and the last that was */
    'peak-refine': { type: 'string', default: '2' },
    out: { type: 'string' },
    'keep-dir': { type: 'boolean', default: false },
    /** write a CPU profile of every validator into this dir and print the top costs per committed block */
    profile: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log(`bench/finality: latency to commit of a devnet of N validators under a fixed load

  npm run bench:finality -- [--validators 4] [--rate 500] [--duration 30] [--senders 200]
  npm run bench:finality -- --validators 4 --peak [--peak-rates 100,250,...] [--peak-p99-ms 2000] [--peak-refine 2]
  npm run bench:finality -- --validators 4 --rate 40 --down 1     (kill -9 one validator just before the load)
  npm run bench:finality -- --validators 4 --sweep [100,250,500,1000,2000,4000] [--duration 20]
                 one run per rate, stopping after the first with p99 > ${SWEEP_STOP.p99_ms / 1000} s or less than
                 ${SWEEP_STOP.committed_share * 100} % of it committed; a table, and a plot next to the JSON (.svg)

  --warmup <s>   seconds of load at the first rate before anything is measured (default 10; 0 = none):
                 a node just started runs unoptimized code, and its first seconds of load measure V8
  --out <file>   result JSON (default: bench/results/finality-<N>v-<rate|peak|sweep>.json)
  --keep-dir     keep the devnet dir (node logs) instead of deleting it
  --profile <dir>  run every validator with --cpu-prof into <dir>; prints the top costs per committed
                 block over the load window of the (last) run, summed over the validators

  "idle cores" is what the whole machine left idle over the load window. Near 0, the validators were
  CPU-bound: they spend any spare CPU on more, smaller blocks, so ms/tx is then the CPU there was
  divided by the rate, and a cheaper node shows up as lower latency rather than lower ms/tx.`);
  process.exit(0);
}
const root = fileURLToPath(new URL('../..', import.meta.url)); // dist/bench -> package root
const n = Number(values.validators);
const down = Number(values.down);
const warmup = Number(values.warmup);
if (!Number.isInteger(warmup) || warmup < 0) {
  console.error('--warmup must be a whole number of seconds');
  process.exit(2);
}
if (!Number.isInteger(down) || down < 0 || down >= n) {
  console.error(`--down must be a whole number below --validators (${n})`);
  process.exit(2);
}
const peakP99 = Number(values['peak-p99-ms']);
const sweepRates = values.sweep === undefined ? undefined : parseRates(values.sweep);
if (sweepRates && values.peak) {
  console.error('--sweep and --peak are two ways to step the rate: give one');
  process.exit(2);
}
const duration = Number(values.duration ?? (sweepRates ? 20 : 30));
const kind = sweepRates ? 'sweep' : values.peak ? 'peak' : values.rate;

/** What the project aims for; printed next to the figures, never asserted. */
const TARGETS = [
  { validators: 4, rate: 500, p50_ms: 150, p99_ms: 500 },
  { validators: 21, rate: 100, p50_ms: 1000, p99_ms: 2000 },
];
const PEAK_TARGET = { validators: 4, tps: 2500, p99_ms: 2000 };

/** The nodes still up: all but the last `down`. */
const live = n - down;

/**
 * The validators' CPU over a run's load window, summed over their profiles and divided by the
 * blocks committed in it: what one block costs the network, by group and by function.
 */
async function profilePerBlock(dir: string, window: Run['window']) {
  const merged = mergeProfiles(await summarizeProfiles(dir, window, 200));
  const blocks = Math.max(1, window.toSeq - window.fromSeq);
  const perBlock = (ms: number) => Math.round((ms / blocks) * 100) / 100;
  console.log(`\nvalidators' CPU over the load window: ${merged.busy_ms} ms busy in ${merged.threads} threads, ${blocks} blocks committed: ${perBlock(merged.busy_ms)} ms per block`);
  const groups = merged.groups.slice(0, 15).map((g) => ({ group: g.group, 'ms/block': perBlock(g.self_ms), '%': g.percent_of_busy }));
  const top = merged.top.slice(0, 25).map((f) => ({ function: f.function, where: f.where, group: f.group, 'ms/block': perBlock(f.self_ms), '%': f.percent }));
  console.table(groups);
  console.table(top);
  return { blocks, busy_ms: merged.busy_ms, ms_per_block: perBlock(merged.busy_ms), groups, top };
}

/** A quantile for the table; `>x` when more observations than the quantile leaves lie above the last finite bucket x. */
function fmt(h: HistogramSummary | string | undefined, q: 'p50_ms' | 'p99_ms'): string {
  if (h === undefined || typeof h === 'string') return 'n/a';
  const v = h[q];
  if (v === null) return 'none';
  const above = q === 'p50_ms' ? 0.5 : 0.01;
  return h.over_last_bucket > above * h.count ? `>${v}` : String(v);
}

function row(r: Run) {
  const b = r.breakdown as Record<string, HistogramSummary | string>;
  return {
    N: n,
    'offered/s': r.offered_tps,
    'accepted/s': r.accepted_tps,
    'committed/s': r.committed_tps,
    'busy (gave up)': `${(r.busy_refused as number | undefined) ?? 0} (${(r.busy_gave_up as number | undefined) ?? 0})`,
    'p50 ms': r.latency_ms.p50,
    'p90 ms': r.latency_ms.p90,
    'p99 ms': r.latency_ms.p99,
    'blocks/s': r.blocks_per_s,
    'CPU cores (ms/tx, Ed25519/tx)': `${r.validators_cpu.cores} (${r.validators_cpu.ms_per_tx}, ${r.validators_cpu.ed25519_per_tx})`,
    'idle cores': r.machine_idle_cores ?? 'n/a',
    'mempool→prop p50/p99': `${fmt(b.mempool_to_proposal, 'p50_ms')} / ${fmt(b.mempool_to_proposal, 'p99_ms')}`,
    'prop→QC p50/p99': `${fmt(b.proposal_to_qc, 'p50_ms')} / ${fmt(b.proposal_to_qc, 'p99_ms')}`,
    'QC→commit p50/p99': `${fmt(b.qc_to_commit, 'p50_ms')} / ${fmt(b.qc_to_commit, 'p99_ms')}`,
    'round p50/p99': `${fmt(b.round_ended_by_qc, 'p50_ms')} / ${fmt(b.round_ended_by_qc, 'p99_ms')}`,
    'commit gap p50/max': r.commit_gap_ms ? `${(r.commit_gap_ms as Run['latency_ms']).p50} / ${(r.commit_gap_ms as Run['latency_ms']).max}` : 'n/a',
  };
}

/** Sustained: p99 within the bound, at least 90 % of the offered rate committed, nothing lost, none given up as busy. */
function sustained(r: Run): boolean {
  return r.latency_ms.p99 <= peakP99 && r.committed_tps >= 0.9 * r.offered_tps && (r.uncommitted_after_drain as number) === 0 && ((r.busy_gave_up as number | undefined) ?? 0) === 0;
}

function verdicts(runs: Run[], peakTps: number | undefined): string[] {
  const out: string[] = [];
  for (const t of TARGETS) {
    const r = runs.find((x) => t.validators === n && x.offered_tps === t.rate);
    if (!r) continue;
    const ok = r.latency_ms.p50 <= t.p50_ms && r.latency_ms.p99 <= t.p99_ms;
    out.push(`target ${t.validators} validators @ ${t.rate} tx/s: p50 <= ${t.p50_ms} ms, p99 <= ${t.p99_ms} ms; measured p50 ${r.latency_ms.p50} ms, p99 ${r.latency_ms.p99} ms: ${ok ? 'met' : 'NOT met'}`);
  }
  if (peakTps !== undefined && n === PEAK_TARGET.validators) {
    out.push(`target ${PEAK_TARGET.validators} validators peak >= ${PEAK_TARGET.tps} tx/s with p99 <= ${PEAK_TARGET.p99_ms} ms; measured ${peakTps} tx/s: ${peakTps >= PEAK_TARGET.tps ? 'met' : 'NOT met'}`);
  }
  return out;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'ledger-finality-'));
  const loadBefore = loadavg();
  console.error(`starting a devnet of ${n} validators in ${dir}`);
  const runs: Run[] = [];
  let net: BenchDevnet | undefined;
  let failed = false;
  const profileDir = values.profile ? resolve(values.profile) : undefined;
  if (profileDir) {
    await mkdir(profileDir, { recursive: true });
    process.env.LEDGER_DEVNET_NODE_ARGS = `--cpu-prof --cpu-prof-dir=${profileDir}`;
  }
  try {
    net = await startDevnet(root, n, dir);
    for (let i = live; i < n; i++) {
      console.error(`kill -9 node ${i} (pid ${net.pids[i]})`);
      process.kill(net.pids[i]!, 'SIGKILL');
    }
    if (warmup > 0) {
      const rate = sweepRates?.[0] ?? (values.peak ? Number(values['peak-rates']!.split(',')[0]) : Number(values.rate));
      console.error(`warm-up: ${rate} tx/s for ${warmup} s, not measured`);
      await runLoad(net, { root, live, rate, durationS: warmup, senders: Number(values.senders) });
    }
    const step = async (rate: number) => {
      console.error(`load: ${rate} tx/s for ${duration} s over ${n} nodes`);
      const r = await runLoad(net!, { root, live, rate, durationS: duration, senders: Number(values.senders) });
      runs.push(r);
      console.error(`one Ed25519 verification: ${r.ed25519.verify_us} µs of CPU (${r.ed25519.before_us} before the load, ${r.ed25519.after_us} after)`);
      if (values.peak) console.table([row(r)]);
      if (sweepRates) console.table([sweepRow(r)]);
      return r;
    };
    if (sweepRates) {
      for (const rate of sweepRates) if (pastTheKnee(await step(rate))) break;
    } else if (!values.peak) await step(Number(values.rate));
    else {
      // step up until a rate is not sustained, then bisect between it and the last one that was
      let good = 0;
      let bad = 0;
      for (const rate of values['peak-rates']!.split(',').map(Number)) {
        if (sustained(await step(rate))) good = rate;
        else {
          bad = rate;
          break;
        }
      }
      for (let i = 0; bad > 0 && i < Number(values['peak-refine']) && bad - good > Math.max(20, good * 0.1); i++) {
        const mid = Math.round((good + bad) / 2 / 10) * 10;
        if (sustained(await step(mid))) good = mid;
        else bad = mid;
      }
    }
  } catch (err) {
    failed = true;
    throw err;
  } finally {
    const code = await net?.stop();
    if (code !== undefined && code !== 0) console.error(`the devnet exited with ${code}`);
    if (values['keep-dir'] || failed) console.error(`devnet dir kept: ${dir} (node logs in node-*/node.log)`);
    else await rm(dir, { recursive: true, force: true });
  }
  const profile = profileDir && runs.length > 0 ? await profilePerBlock(profileDir, runs[runs.length - 1]!.window) : undefined;
  const best = runs.filter(sustained).sort((a, b) => b.committed_tps - a.committed_tps)[0];
  const peakTps = values.peak ? (best?.committed_tps ?? 0) : undefined;
  const result = {
    benchmark: 'finality',
    date: new Date().toISOString(),
    machine: { ...machine(), loadavg_before: loadBefore.map((x) => Math.round(x * 100) / 100), loadavg_after: loadavg().map((x) => Math.round(x * 100) / 100) },
    validators: n,
    down,
    duration_s: duration,
    warmup_s: warmup,
    senders: Number(values.senders),
    method:
      `after ${warmup} s of load that is not measured; ` +
      'client latency: from first handing the transaction to the HTTP client (busy answers are retried after their retryAfterMs, and the wait counts) to the block holding it first seen at the canonical head of node 0 (polled every 10 ms by a process of its own); ' +
      'breakdown: Prometheus histogram bucket deltas over the load, summed over every node; ' +
      "validators' CPU: user + system time of the live validators' processes (/proc) over the load window, also in Ed25519 verifications: " +
      "node:crypto verify timed in this process's CPU time (median of batches) right before and right after the load, their mean",
    sweep: sweepRates ? { rates: sweepRates, stop: `after the first step with p99 > ${SWEEP_STOP.p99_ms} ms or < ${SWEEP_STOP.committed_share * 100}% of the offered rate committed` } : undefined,
    peak: values.peak ? { criterion: `p99 <= ${peakP99} ms, >= 90% of the offered rate committed, nothing uncommitted or given up as busy`, sustained_tps: peakTps, at_offered_tps: best?.offered_tps ?? null } : undefined,
    targets: verdicts(runs, peakTps),
    runs,
    ...(profile ? { profile } : {}),
  };
  const toRow: (r: Run) => object = sweepRates ? sweepRow : row;
  console.table([...runs].sort((a, b) => a.offered_tps - b.offered_tps).map(toRow));
  if (values.peak) console.log(`peak sustained (${result.peak!.criterion}): ${peakTps} tx/s`);
  for (const v of result.targets) console.log(v);
  const out = values.out ?? join(root, 'bench', 'results', `finality-${n}v-${kind}${down > 0 ? `-down${down}` : ''}.json`);
  await mkdir(join(out, '..'), { recursive: true });
  await writeFile(out, JSON.stringify(result, null, 2) + '\n');
  console.log(`wrote ${out}`);
  if (sweepRates) {
    const m = result.machine;
    const where = `${m.cpus} cores (${m.model}), Node ${m.node.slice(1)}, load average ${m.loadavg_before[0]} before`;
    const svg = out.replace(/\.json$/, '') + '.svg';
    await writeFile(svg, sweepSvg(runs, { validators: n, machine: where, date: result.date.slice(0, 10) }));
    console.log(`wrote ${svg}`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
