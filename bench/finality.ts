/**
 * bench/finality: starts a devnet of N validators (`ledger devnet --json`, in a temp dir, on free
 * ports, no plugins), drives it at a fixed rate of signed transfers from a separate process
 * (bench/finality-load.ts), and reports:
 * - client-side latency from submission to commit (p50/p90/p99), the offered, accepted and
 *   committed rates, the busy refusals (the generator retries them after the node's retryAfterMs)
 *   and blocks per second (measured by the load generator);
 * - the node-side breakdown mempool -> proposal, proposal -> QC, QC -> commit, estimated from the
 *   Prometheus histograms of every node (scraped before and after the load; bucket deltas summed
 *   over the nodes). A metric a node does not export reads "n/a".
 *
 *   npm run bench:finality -- --validators 4 --rate 500 --duration 30
 *   npm run bench:finality -- --validators 21 --rate 100
 *   npm run bench:finality -- --validators 4 --peak          (steps the rate up, see --peak-rates)
 *
 * Prints a table and writes bench/results/finality-<N>v-<rate|peak>.json. The targets below are
 * reported against, not enforced.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { RpcClient } from '../node/client/index.js';
import { mergeProfiles, summarizeProfiles } from './lib/cpuprofile.js';
import { onJsonLines, startDevnet, type BenchDevnet } from './lib/devnet.js';
import { combine, histogram, scrapeAll, type HistogramSummary, type Samples } from './lib/prometheus.js';
import { machine } from './lib/stats.js';

const { values } = parseArgs({
  options: {
    validators: { type: 'string', default: '4' },
    rate: { type: 'string', default: '500' },
    duration: { type: 'string', default: '30' },
    senders: { type: 'string', default: '200' },
    peak: { type: 'boolean', default: false },
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

  --out <file>   result JSON (default: bench/results/finality-<N>v-<rate|peak>.json)
  --keep-dir     keep the devnet dir (node logs) instead of deleting it
  --profile <dir>  run every validator with --cpu-prof into <dir>; prints the top costs per committed
                 block over the load window of the (last) run, summed over the validators`);
  process.exit(0);
}
const root = fileURLToPath(new URL('../..', import.meta.url)); // dist/bench -> package root
const n = Number(values.validators);
const down = Number(values.down);
if (!Number.isInteger(down) || down < 0 || down >= n) {
  console.error(`--down must be a whole number below --validators (${n})`);
  process.exit(2);
}
const peakP99 = Number(values['peak-p99-ms']);

/** What the project aims for; printed next to the figures, never asserted. */
const TARGETS = [
  { validators: 4, rate: 500, p50_ms: 200, p99_ms: 500 },
  { validators: 21, rate: 100, p50_ms: 1000, p99_ms: 2000 },
];
const PEAK_TARGET = { validators: 4, tps: 2000, p99_ms: 2000 };

type Run = Record<string, unknown> & {
  offered_tps: number;
  committed_tps: number;
  latency_ms: { p50: number; p90: number; p99: number; max: number };
  /** the load window: monotonic µs and the first node's head seq at go and after the drain */
  window: { fromUs: number; toUs: number; fromSeq: number; toSeq: number };
};

const BREAKDOWN = {
  mempool_to_proposal: 'ledger_mempool_to_proposal_seconds',
  proposal_to_qc: 'ledger_consensus_proposal_to_qc_seconds',
  qc_to_commit: 'ledger_consensus_qc_to_commit_seconds',
  proposal_to_commit: 'ledger_commit_latency_seconds',
  round_ended_by_qc: 'ledger_consensus_round_seconds{ended="qc"}',
} as const;

/** The nodes still up: all but the last `down`. */
const live = (net: BenchDevnet) => net.rpcUrls.slice(0, n - down);

/** CLOCK_MONOTONIC in µs: the clock V8 stamps profile samples with, in every process. */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/**
 * CPU time (user + system) the live validators' processes have used, from /proc (Linux); 0
 * elsewhere. Unlike profile samples, it does not count time a process waited for a core.
 */
async function validatorsCpuSeconds(net: BenchDevnet): Promise<number> {
  let ticks = 0;
  for (const pid of net.pids.slice(0, n - down)) {
    try {
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      return 0;
    }
  }
  return ticks / 100;
}

async function headSeq(url: string): Promise<number> {
  return (await new RpcClient(url).canonHead())?.seq ?? 0;
}

/** One load run at `rate` against the running devnet's live nodes. */
async function runLoad(net: BenchDevnet, rate: number): Promise<Run> {
  const urls = live(net);
  const args = [join(root, 'dist/bench/finality-load.js'), '--rpc', urls.join(','), '--dev-key', net.devKey, '--rate', String(rate), '--duration', values.duration!, '--senders', values.senders!, '--wait-go'];
  const proc = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, NODE_OPTIONS: '' } });
  const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
  let before: Samples | undefined;
  let after: Samples | undefined;
  let result: Run | undefined;
  const window = { fromUs: 0, toUs: 0, fromSeq: 0, toSeq: 0 };
  let cpuBefore = 0;
  onJsonLines(proc.stdout, (line) => {
    if (line.phase === 'ready') {
      void scrapeAll(urls).then(
        async (s) => {
          before = s;
          window.fromSeq = await headSeq(urls[0]!);
          window.fromUs = monotonicUs();
          cpuBefore = await validatorsCpuSeconds(net);
          proc.stdin.end('go\n');
        },
        (err: unknown) => {
          console.error(`cannot scrape /metrics before the load: ${(err as Error).message}`);
          proc.stdin.end('go\n');
        },
      );
    } else if (line.phase === 'done') {
      const { phase: _phase, ...rest } = line;
      result = rest as Run;
    }
  });
  const code = await exited;
  window.toUs = monotonicUs();
  window.toSeq = await headSeq(urls[0]!);
  const cpuSeconds = (await validatorsCpuSeconds(net)) - cpuBefore;
  if (code !== 0 || !result) throw new Error(`the load generator exited with ${code}`);
  try {
    after = await scrapeAll(urls);
  } catch (err) {
    console.error(`cannot scrape /metrics after the load: ${(err as Error).message}`);
  }
  const delta = before && after ? combine(after, before, -1) : undefined;
  const breakdown = Object.fromEntries(Object.entries(BREAKDOWN).map(([k, metric]) => [k, (delta && histogram(delta, metric)) ?? 'n/a']));
  const counter = (name: string) => (delta?.has(name) ? delta.get(name) : 'n/a');
  const seconds = (window.toUs - window.fromUs) / 1e6;
  const committedTxs = result.committed_tps * Number(values.duration);
  return {
    ...result,
    window,
    validators_cpu: {
      seconds: Math.round(cpuSeconds * 10) / 10,
      cores: Math.round((cpuSeconds / seconds) * 100) / 100,
      ms_per_tx: committedTxs > 0 ? Math.round((cpuSeconds * 1000 * 100) / committedTxs) / 100 : null,
      ms_per_block: window.toSeq > window.fromSeq ? Math.round((cpuSeconds * 1000 * 10) / (window.toSeq - window.fromSeq)) / 10 : null,
    },
    breakdown,
    node_counters: {
      consensus_timeouts: counter('ledger_consensus_timeouts_total'),
      committed_transactions_all_nodes: counter('ledger_committed_transactions_total'),
    },
  };
}

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
    'CPU cores (ms/tx)': `${(r.validators_cpu as { cores: number }).cores} (${(r.validators_cpu as { ms_per_tx: number | null }).ms_per_tx})`,
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
    for (let i = n - down; i < n; i++) {
      console.error(`kill -9 node ${i} (pid ${net.pids[i]})`);
      process.kill(net.pids[i]!, 'SIGKILL');
    }
    const step = async (rate: number) => {
      console.error(`load: ${rate} tx/s for ${values.duration} s over ${n} nodes`);
      const r = await runLoad(net!, rate);
      runs.push(r);
      if (values.peak) console.table([row(r)]);
      return sustained(r);
    };
    if (!values.peak) await step(Number(values.rate));
    else {
      // step up until a rate is not sustained, then bisect between it and the last one that was
      let good = 0;
      let bad = 0;
      for (const rate of values['peak-rates']!.split(',').map(Number)) {
        if (await step(rate)) good = rate;
        else {
          bad = rate;
          break;
        }
      }
      for (let i = 0; bad > 0 && i < Number(values['peak-refine']) && bad - good > Math.max(20, good * 0.1); i++) {
        const mid = Math.round((good + bad) / 2 / 10) * 10;
        if (await step(mid)) good = mid;
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
    duration_s: Number(values.duration),
    senders: Number(values.senders),
    method:
      'client latency: from first handing the transaction to fetch (busy answers are retried after their retryAfterMs, and the wait counts) to the block holding it first seen at the canonical head of node 0 (polled every 10 ms); ' +
      'breakdown: Prometheus histogram bucket deltas over the load, summed over every node',
    peak: values.peak ? { criterion: `p99 <= ${peakP99} ms, >= 90% of the offered rate committed, nothing uncommitted or given up as busy`, sustained_tps: peakTps, at_offered_tps: best?.offered_tps ?? null } : undefined,
    targets: verdicts(runs, peakTps),
    runs,
    ...(profile ? { profile } : {}),
  };
  console.table([...runs].sort((a, b) => a.offered_tps - b.offered_tps).map(row));
  if (values.peak) console.log(`peak sustained (${result.peak!.criterion}): ${peakTps} tx/s`);
  for (const v of result.targets) console.log(v);
  const out = values.out ?? join(root, 'bench', 'results', `finality-${n}v-${values.peak ? 'peak' : values.rate}${down > 0 ? `-down${down}` : ''}.json`);
  await mkdir(join(out, '..'), { recursive: true });
  await writeFile(out, JSON.stringify(result, null, 2) + '\n');
  console.log(`wrote ${out}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
