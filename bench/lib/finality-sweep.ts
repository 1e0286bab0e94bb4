import type { Run } from './finality-run.js';
import { lineChartSvg } from './svg-chart.js';

/**
 * bench:finality --sweep: the rate stepped up on one devnet, latency and the validators' CPU per
 * transaction at each step, so the knee shows; its table row, when to stop, and its plot.
 */

export const DEFAULT_SWEEP_RATES = '100,250,500,1000,2000,4000';
/** Past the knee a step only costs time: stop after the first whose p99 or commit rate is this bad. */
export const SWEEP_STOP = { p99_ms: 10_000, committed_share: 0.5 };

/** `--sweep` may stand alone (the default rates) or take a list: give parseArgs a value either way. */
export function withSweepValue(argv: string[]): string[] {
  return argv.map((a, i) => (a === '--sweep' && (argv[i + 1] === undefined || argv[i + 1]!.startsWith('-')) ? `--sweep=${DEFAULT_SWEEP_RATES}` : a));
}

export function parseRates(list: string): number[] {
  const rates = list.split(',').map((s) => Number(s.trim()));
  if (rates.length === 0 || rates.some((r) => !Number.isInteger(r) || r <= 0)) throw new Error(`rates must be positive whole numbers, comma-separated: ${list}`);
  return rates;
}

export function pastTheKnee(r: Run): boolean {
  return r.latency_ms.p99 > SWEEP_STOP.p99_ms || r.committed_tps < SWEEP_STOP.committed_share * r.offered_tps;
}

export function sweepRow(r: Run) {
  const cpu = r.validators_cpu;
  return {
    'offered/s': r.offered_tps,
    'committed/s': r.committed_tps,
    'p50 ms': r.latency_ms.p50,
    'p90 ms': r.latency_ms.p90,
    'p99 ms': r.latency_ms.p99,
    'blocks/s': r.blocks_per_s,
    'CPU cores': cpu.cores,
    'idle cores': r.machine_idle_cores ?? 'n/a',
    'ms/tx': cpu.ms_per_tx,
    'Ed25519/tx': cpu.ed25519_per_tx,
    'verify µs': r.ed25519.verify_us,
    'timed-out rounds': (r.node_counters as { consensus_timeouts: number | string }).consensus_timeouts,
  };
}

const ms = (v: number) => (v >= 1000 ? `${v / 1000} s` : `${v} ms`);

/** Latency (log) over the offered rate (log), and the validators' CPU per transaction in Ed25519 verifications. */
export function sweepSvg(runs: Run[], meta: { validators: number; machine: string; date: string }): string {
  const at = (pick: (r: Run) => number | null) => runs.flatMap((r) => (pick(r) === null ? [] : [[r.offered_tps, pick(r)!] as [number, number]]));
  return lineChartSvg({
    title: `Finality, ${meta.validators} validators: latency and CPU per transaction as the rate steps up`,
    subtitle: `${meta.machine}, ${meta.date}`,
    x: { label: 'offered rate, transactions/s (log scale)', log: true },
    panels: [
      {
        y: { label: 'latency to commit (log)', log: true, format: ms },
        series: [
          { name: 'p50', color: '#1f77b4', points: at((r) => r.latency_ms.p50) },
          { name: 'p99', color: '#d62728', points: at((r) => r.latency_ms.p99), dashed: true },
        ],
      },
      {
        y: { label: 'validators\u2019 CPU per tx, Ed25519 verifications' },
        series: [{ name: 'all validators together, per committed transaction', color: '#2ca02c', points: at((r) => r.validators_cpu.ed25519_per_tx) }],
      },
    ],
  });
}
