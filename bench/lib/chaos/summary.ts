import { percentile } from '../stats.js';
import type { ChaosResult } from './types.js';

export interface Spread {
  p50: number;
  p90: number;
  max: number;
}

export interface ChaosSummary {
  cycles: number;
  restarts: number;
  /** restarts that never got within the catch-up bound */
  stuck: number;
  /** spawn to caught up, over the restarts that caught up */
  caught_up_ms: Spread | null;
  /** a live node's commit gaps while one validator was down: the median of each kill's p50, and the longest gap */
  one_down_gap_ms: { p50: number; max: number } | null;
  /** two down and back: restart to the next commit */
  two_down_resume_ms: Spread | null;
  failures: number;
}

function spread(values: number[]): Spread | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  return { p50: percentile(s, 50), p90: percentile(s, 90), max: s.at(-1)! };
}

export function summarize(r: ChaosResult): ChaosSummary {
  const restarts = r.cycles.flatMap((c) => c.restarts);
  const gaps = r.cycles.map((c) => c.gaps).filter((g) => g !== undefined);
  const p50s = gaps.map((g) => g.p50_ms).filter((v) => v !== null);
  return {
    cycles: r.cycles.length,
    restarts: restarts.length,
    stuck: restarts.filter((x) => x.caught_up_ms === null).length,
    caught_up_ms: spread(restarts.map((x) => x.caught_up_ms).filter((v) => v !== null)),
    one_down_gap_ms: gaps.length > 0 ? { p50: spread(p50s)?.p50 ?? NaN, max: Math.max(...gaps.map((g) => g.max_ms ?? 0)) } : null,
    two_down_resume_ms: spread(r.cycles.map((c) => c.resume_ms).filter((v) => typeof v === 'number')),
    failures: r.failures.length,
  };
}

/** One row per cycle, for console.table. */
export function cycleRows(r: ChaosResult): Array<Record<string, string | number>> {
  return r.cycles.map((c) => ({
    cycle: c.index,
    kind: c.kind + (c.leader_round !== undefined ? ` (r${c.leader_round})` : ''),
    victims: c.victims.join(','),
    'at s': Math.round(c.at_ms / 100) / 10,
    'killed at seq': c.seq_at_kill,
    'down ms': c.down_ms,
    'caught up ms': c.restarts.map((x) => x.caught_up_ms ?? 'STUCK').join(','),
    'votes ms': c.restarts.map((x) => x.votes_ms ?? '-').join(','),
    'gap p50/max ms': c.gaps ? `${c.gaps.p50_ms ?? '-'} / ${c.gaps.max_ms}` : c.stalled !== undefined ? `stalled: ${c.stalled}` : '-',
    'resume ms': c.resume_ms ?? '-',
    failure: c.failure?.code ?? '',
  }));
}
