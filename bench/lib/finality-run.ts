import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { RpcClient } from '../../node/client/index.js';
import { onJsonLines, type BenchDevnet } from './devnet.js';
import { ed25519Unit, inEd25519, timeEd25519Verify } from './ed25519-unit.js';
import { combine, histogram, scrapeAll, type Samples } from './prometheus.js';

/**
 * One load run of bench/finality against a running devnet: the load generator
 * (bench/finality-load.ts) as a process of its own, the nodes' metrics scraped before and after,
 * the live validators' CPU from /proc over the load window, and one Ed25519 verification timed
 * right before and right after it, the unit that CPU is also given in.
 */

export type Run = Record<string, unknown> & {
  offered_tps: number;
  committed_tps: number;
  latency_ms: { p50: number; p90: number; p99: number; max: number };
  /** the load window: monotonic µs and the first node's head seq at go and after the drain */
  window: { fromUs: number; toUs: number; fromSeq: number; toSeq: number };
  validators_cpu: { seconds: number; cores: number; ms_per_tx: number | null; ms_per_block: number | null; ed25519_per_tx: number | null; ed25519_per_block: number | null };
  ed25519: ReturnType<typeof ed25519Unit>;
  machine_idle_cores: number | null;
};

export interface LoadOptions {
  /** the package root (dist/bench/finality-load.js is under it) */
  root: string;
  /** how many of the devnet's validators are up: the first `live` ones */
  live: number;
  rate: number;
  durationS: number;
  senders: number;
}

/** Where a transaction's time to finality goes, by the nodes' own histograms (also read by bench:verification). */
export const BREAKDOWN = {
  mempool_to_proposal: 'ledger_mempool_to_proposal_seconds',
  proposal_to_qc: 'ledger_consensus_proposal_to_qc_seconds',
  qc_to_commit: 'ledger_consensus_qc_to_commit_seconds',
  proposal_to_commit: 'ledger_commit_latency_seconds',
  round_ended_by_qc: 'ledger_consensus_round_seconds{ended="qc"}',
} as const;

/** CLOCK_MONOTONIC in µs: the clock V8 stamps profile samples with, in every process. */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/**
 * CPU time (user + system) the given processes have used, from /proc (Linux); 0 elsewhere.
 * Unlike profile samples, it does not count time a process waited for a core.
 */
export async function cpuSeconds(pids: number[]): Promise<number> {
  let ticks = 0;
  for (const pid of pids) {
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

/**
 * Idle CPU seconds of the whole machine so far (idle + iowait over all cores), from /proc/stat
 * (Linux); undefined elsewhere. Over a window it says whether the validators could have used more.
 */
export async function machineIdleSeconds(): Promise<number | undefined> {
  try {
    const fields = (await readFile('/proc/stat', 'utf8')).split('\n', 1)[0]!.trim().split(/\s+/);
    return (Number(fields[4]) + Number(fields[5])) / 100;
  } catch {
    return undefined;
  }
}

/** The committed head's seq on the node at `url`. */
export async function headSeq(url: string): Promise<number> {
  return (await new RpcClient(url).canonHead())?.seq ?? 0;
}

export async function runLoad(net: BenchDevnet, o: LoadOptions): Promise<Run> {
  const urls = net.rpcUrls.slice(0, o.live);
  const pids = net.pids.slice(0, o.live);
  const args = [join(o.root, 'dist/bench/finality-load.js'), '--rpc', urls.join(','), '--dev-key', net.devKey, '--rate', String(o.rate), '--duration', String(o.durationS), '--senders', String(o.senders), '--wait-go'];
  const proc = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, NODE_OPTIONS: '' } });
  const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
  let before: Samples | undefined;
  let after: Samples | undefined;
  let result: Record<string, unknown> | undefined;
  const window = { fromUs: 0, toUs: 0, fromSeq: 0, toSeq: 0 };
  let cpuBefore = 0;
  let idleBefore: number | undefined;
  let loadavg1m = 0;
  let unitBefore: ReturnType<typeof timeEd25519Verify> | undefined;
  onJsonLines(proc.stdout, (line) => {
    if (line.phase === 'ready') {
      // the network is idle here (funded, nothing pending): a quiet moment for the unit
      unitBefore = timeEd25519Verify();
      void scrapeAll(urls).then(
        async (s) => {
          before = s;
          window.fromSeq = await headSeq(urls[0]!);
          window.fromUs = monotonicUs();
          loadavg1m = loadavg()[0]!;
          cpuBefore = await cpuSeconds(pids);
          idleBefore = await machineIdleSeconds();
          proc.stdin.end('go\n');
        },
        (err: unknown) => {
          console.error(`cannot scrape /metrics before the load: ${(err as Error).message}`);
          proc.stdin.end('go\n');
        },
      );
    } else if (line.phase === 'done') {
      const { phase: _phase, ...rest } = line;
      result = rest;
    }
  });
  const code = await exited;
  window.toUs = monotonicUs();
  window.toSeq = await headSeq(urls[0]!);
  const cpu = (await cpuSeconds(pids)) - cpuBefore;
  const idleAfter = await machineIdleSeconds();
  if (code !== 0 || !result || !unitBefore) throw new Error(`the load generator exited with ${code}`);
  const unit = ed25519Unit(unitBefore, timeEd25519Verify());
  try {
    after = await scrapeAll(urls);
  } catch (err) {
    console.error(`cannot scrape /metrics after the load: ${(err as Error).message}`);
  }
  const delta = before && after ? combine(after, before, -1) : undefined;
  const breakdown = Object.fromEntries(Object.entries(BREAKDOWN).map(([k, metric]) => [k, (delta && histogram(delta, metric)) ?? 'n/a']));
  const counter = (name: string) => (delta?.has(name) ? delta.get(name) : 'n/a');
  const seconds = (window.toUs - window.fromUs) / 1e6;
  const committedTxs = (result.committed_tps as number) * o.durationS;
  const blocks = window.toSeq - window.fromSeq;
  const msPerTx = committedTxs > 0 ? (cpu * 1000) / committedTxs : null;
  const msPerBlock = blocks > 0 ? (cpu * 1000) / blocks : null;
  const idleCores = idleBefore === undefined || idleAfter === undefined ? null : Math.round(((idleAfter - idleBefore) / seconds) * 100) / 100;
  return {
    ...(result as Pick<Run, 'offered_tps' | 'committed_tps' | 'latency_ms'>),
    window,
    /** the machine's 1-minute load average as the load started */
    loadavg_1m: Math.round(loadavg1m * 100) / 100,
    validators_cpu: {
      seconds: Math.round(cpu * 10) / 10,
      cores: Math.round((cpu / seconds) * 100) / 100,
      ms_per_tx: msPerTx === null ? null : Math.round(msPerTx * 100) / 100,
      ms_per_block: msPerBlock === null ? null : Math.round(msPerBlock * 10) / 10,
      ed25519_per_tx: inEd25519(msPerTx, unit.verify_us),
      ed25519_per_block: inEd25519(msPerBlock, unit.verify_us),
    },
    /**
     * Cores the whole machine left idle over the window. Near 0, the validators were CPU-bound:
     * they filled every spare cycle with more, smaller blocks, so ms_per_tx is the CPU there was
     * divided by the rate, and a cheaper node shows up as lower latency instead.
     */
    machine_idle_cores: idleCores,
    ed25519: unit,
    breakdown,
    node_counters: {
      consensus_timeouts: counter('ledger_consensus_timeouts_total'),
      committed_transactions_all_nodes: counter('ledger_committed_transactions_total'),
    },
  };
}
