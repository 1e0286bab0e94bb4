/**
 * bench/finality: starts a devnet of N validators (`ledger devnet`), drives it at a fixed rate of
 * signed transfers from a separate process (bench/finality-load.ts), and reports client-side
 * latency from submission to commit (p50/p90/p99), committed TPS, blocks per second, and the
 * node-side breakdown (mempool -> proposal, proposal -> QC, QC -> commit) from the nodes'
 * Prometheus histograms, summed over all nodes.
 *
 *   npm run bench:finality -- --validators 4 --rate 500 --duration 30
 *   npm run bench:finality -- --validators 4 --peak            (steps the rate up)
 *
 * Prints a table and writes bench/results/finality-<N>v-<rate or peak>.json.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { freePortRange } from '../node/devnet/ports.js';
import { combine, histogram, scrape, type Samples } from './lib/prometheus.js';
import { machine } from './lib/stats.js';

const { values } = parseArgs({
  options: {
    validators: { type: 'string', default: '4' },
    rate: { type: 'string', default: '500' },
    duration: { type: 'string', default: '30' },
    senders: { type: 'string', default: '200' },
    peak: { type: 'boolean', default: false },
    'peak-rates': { type: 'string', default: '250,500,1000,1500,2000,3000' },
    out: { type: 'string' },
  },
});
const root = fileURLToPath(new URL('../..', import.meta.url)); // dist/bench -> package root
const n = Number(values.validators);

interface Devnet {
  proc: ChildProcess;
  urls: string[];
  devKey: string;
}

async function startDevnet(dir: string): Promise<Devnet> {
  const args = ['bin/ledger.js', 'devnet', '--validators', String(n), '--dir', dir, '--rpc-port', String(await freePortRange(n)), '--p2p-port', String(await freePortRange(n)), '--json', '--reset'];
  const proc = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, NODE_OPTIONS: '' } });
  const urls: string[] = [];
  const devKey = await new Promise<string>((resolve, reject) => {
    let buf = '';
    proc.stdout!.on('data', (d) => {
      buf += d;
      for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
        const line = JSON.parse(buf.slice(0, i)) as { rpc_url?: string; ready?: boolean; dev_key?: string };
        buf = buf.slice(i + 1);
        if (line.rpc_url) urls.push(line.rpc_url);
        if (line.ready) resolve(line.dev_key!);
      }
    });
    proc.on('exit', (code) => reject(new Error(`devnet exited with ${code} before it was ready`)));
  });
  return { proc, urls, devKey };
}

async function scrapeAll(urls: string[]): Promise<Samples> {
  let sum: Samples = new Map();
  for (const s of await Promise.all(urls.map(scrape))) sum = combine(sum, s, 1);
  return sum;
}

/** One load run at `rate`; resolves with the generator's results and the node-side breakdown. */
async function runLoad(net: Devnet, rate: number): Promise<Record<string, unknown>> {
  const args = [join(root, 'dist/bench/finality-load.js'), '--rpc', net.urls.join(','), '--dev-key', net.devKey, '--rate', String(rate), '--duration', values.duration!, '--senders', values.senders!];
  const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let before: Samples | undefined;
  const result = await new Promise<Record<string, unknown>>((resolve, reject) => {
    let buf = '';
    proc.stdout!.on('data', async (d) => {
      buf += d;
      for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
        const line = JSON.parse(buf.slice(0, i)) as Record<string, unknown>;
        buf = buf.slice(i + 1);
        if (line.phase === 'load') before = await scrapeAll(net.urls);
        if (line.phase === 'done') resolve(line);
      }
    });
    proc.on('exit', (code) => code !== 0 && reject(new Error(`load generator exited with ${code}`)));
  });
  const delta = combine(await scrapeAll(net.urls), before ?? new Map(), -1);
  const { phase: _phase, ...rest } = result;
  return {
    ...rest,
    breakdown: {
      mempool_to_proposal: histogram(delta, 'ledger_mempool_to_proposal_seconds') ?? 'n/a',
      proposal_to_qc: histogram(delta, 'ledger_consensus_proposal_to_qc_seconds') ?? 'n/a',
      qc_to_commit: histogram(delta, 'ledger_consensus_qc_to_commit_seconds') ?? 'n/a',
    },
    timeouts: delta.get('ledger_consensus_timeouts_total') ?? 0,
  };
}

function row(r: Record<string, unknown>) {
  const lat = r.latency_ms as Record<string, number>;
  const b = r.breakdown as Record<string, { p50_ms: number } | string>;
  const p50 = (x: { p50_ms: number } | string) => (typeof x === 'string' ? x : x.p50_ms);
  return {
    validators: n,
    'offered tx/s': r.offered_tps,
    'committed tx/s': r.committed_tps,
    'p50 ms': lat.p50,
    'p90 ms': lat.p90,
    'p99 ms': lat.p99,
    'blocks/s': r.blocks_per_s,
    'mempool→proposal p50': p50(b.mempool_to_proposal!),
    'proposal→QC p50': p50(b.proposal_to_qc!),
    'QC→commit p50': p50(b.qc_to_commit!),
  };
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'ledger-finality-'));
  const net = await startDevnet(dir);
  const runs: Array<Record<string, unknown>> = [];
  try {
    const rates = values.peak ? values['peak-rates']!.split(',').map(Number) : [Number(values.rate)];
    for (const rate of rates) {
      const r = await runLoad(net, rate);
      runs.push(r);
      console.table([row(r)]);
      const lat = r.latency_ms as { p99: number };
      if (values.peak && (lat.p99 > 2_000 || (r.committed_tps as number) < 0.9 * rate)) break;
    }
  } finally {
    net.proc.kill('SIGINT');
    await new Promise((r) => net.proc.once('exit', r));
    await rm(dir, { recursive: true, force: true });
  }
  const sustained = runs.filter((r) => (r.latency_ms as { p99: number }).p99 <= 2_000 && (r.committed_tps as number) >= 0.9 * (r.offered_tps as number));
  const result = {
    date: new Date().toISOString(),
    machine: machine(),
    validators: n,
    duration_s: Number(values.duration),
    senders: Number(values.senders),
    peak_sustained_tps: values.peak ? Math.max(0, ...sustained.map((r) => r.committed_tps as number)) : undefined,
    runs,
  };
  console.table(runs.map(row));
  if (values.peak) console.log(`peak sustained (p99 <= 2 s, >= 90% of the offered rate committed): ${result.peak_sustained_tps} tx/s`);
  const out = values.out ?? `bench/results/finality-${n}v-${values.peak ? 'peak' : values.rate}.json`;
  await mkdir('bench/results', { recursive: true });
  await writeFile(out, JSON.stringify(result, null, 2) + '\n');
  console.log(`wrote ${out}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
