/** Just enough of the Prometheus text format to read our histograms and counters. */

export type Samples = Map<string, number>;

/** `name{labels} value` lines into a map keyed by `name{labels}` (comments skipped). */
export function parsePrometheus(text: string): Samples {
  const out: Samples = new Map();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const cut = line.lastIndexOf(' ');
    const value = Number(line.slice(cut + 1));
    if (cut > 0 && Number.isFinite(value)) out.set(line.slice(0, cut), value);
  }
  return out;
}

/** Sample-wise sum (several nodes) or difference (after minus before). */
export function combine(a: Samples, b: Samples, sign: 1 | -1): Samples {
  const out = new Map(a);
  for (const [k, v] of b) out.set(k, (out.get(k) ?? 0) + sign * v);
  return out;
}

export interface HistogramSummary {
  count: number;
  mean_ms: number;
  p50_ms: number;
  p99_ms: number;
}

/**
 * Count, mean and estimated p50/p99 (linear interpolation inside the bucket, as Prometheus'
 * histogram_quantile does) of histogram `name`; undefined when it has no observations.
 */
export function histogram(samples: Samples, name: string): HistogramSummary | undefined {
  const count = samples.get(`${name}_count`) ?? 0;
  if (count <= 0) return undefined;
  const buckets = [...samples]
    .filter(([k]) => k.startsWith(`${name}_bucket{`))
    .map(([k, v]) => ({ le: k.includes('le="+Inf"') ? Infinity : Number(/le="([^"]+)"/.exec(k)![1]), cumulative: v }))
    .sort((x, y) => x.le - y.le);
  const quantile = (q: number) => {
    const rank = q * count;
    let prevLe = 0;
    let prevCum = 0;
    for (const b of buckets) {
      if (b.cumulative >= rank) {
        if (b.le === Infinity) return prevLe;
        const inBucket = b.cumulative - prevCum;
        return prevLe + (inBucket === 0 ? 0 : ((rank - prevCum) / inBucket) * (b.le - prevLe));
      }
      prevLe = b.le;
      prevCum = b.cumulative;
    }
    return prevLe;
  };
  const ms = (s: number) => Math.round(s * 1000 * 10) / 10;
  return { count, mean_ms: ms((samples.get(`${name}_sum`) ?? 0) / count), p50_ms: ms(quantile(0.5)), p99_ms: ms(quantile(0.99)) };
}

export async function scrape(rpcUrl: string): Promise<Samples> {
  const res = await fetch(new URL('/metrics', rpcUrl), { signal: AbortSignal.timeout(5_000) });
  return parsePrometheus(await res.text());
}
