/** Just enough of the Prometheus text format to read our histograms and counters. */

export type Samples = Map<string, number>;

/**
 * Sample lines `name{labels} value [timestamp]` into a map keyed by `name{labels}` as written
 * (comments and blank lines skipped; a label value may hold spaces, braces and escaped quotes).
 * Values +Inf and -Inf are kept; NaN and unreadable lines are dropped.
 */
export function parsePrometheus(text: string): Samples {
  const out: Samples = new Map();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const end = keyEnd(line);
    if (end <= 0) continue;
    const [valueText] = line.slice(end).trim().split(/\s+/);
    const value = valueText === '+Inf' ? Infinity : valueText === '-Inf' ? -Infinity : Number(valueText);
    if (valueText !== undefined && valueText !== '' && !Number.isNaN(value)) out.set(line.slice(0, end), value);
  }
  return out;
}

/** Where the `name{labels}` part of a sample line ends; -1 when the line is malformed. */
function keyEnd(line: string): number {
  const brace = line.search(/[{\s]/);
  if (brace < 0) return -1;
  if (line[brace] !== '{') return brace;
  let quoted = false;
  for (let i = brace + 1; i < line.length; i++) {
    const c = line[i];
    if (quoted && c === '\\') i++;
    else if (c === '"') quoted = !quoted;
    else if (!quoted && c === '}') return i + 1;
  }
  return -1;
}

/** Sample-wise sum (several nodes) or difference (after minus before). */
export function combine(a: Samples, b: Samples, sign: 1 | -1): Samples {
  const out = new Map(a);
  for (const [k, v] of b) out.set(k, (out.get(k) ?? 0) + sign * v);
  return out;
}

export interface HistogramSummary {
  /** observations (0: the metric exists but saw nothing in the window; the quantiles are then null) */
  count: number;
  mean_ms: number | null;
  p50_ms: number | null;
  p90_ms: number | null;
  p99_ms: number | null;
  /** observations above the highest finite bucket: a quantile that falls there reads as that bound */
  over_last_bucket: number;
}

/** The series of `name` + `suffix`, with or without labels; `name{label="v"}` keeps only the series with that label. */
function series(samples: Samples, name: string, suffix: string): Array<[string, number]> {
  const m = /^([^{]+)(?:\{(.+)\})?$/.exec(name)!;
  const base = m[1]! + suffix;
  const label = m[2];
  return [...samples].filter(([k]) => (k === base && !label) || (k.startsWith(`${base}{`) && (!label || k.includes(label))));
}

/**
 * Count, mean and estimated p50/p90/p99 of histogram `name` (summed over its label sets), by
 * linear interpolation inside the bucket as Prometheus' histogram_quantile does; a quantile in
 * the +Inf bucket reads as the highest finite bound. Undefined when the metric is absent: never
 * a made-up number.
 */
export function histogram(samples: Samples, name: string): HistogramSummary | undefined {
  const counts = series(samples, name, '_count');
  if (counts.length === 0) return undefined;
  const count = counts.reduce((a, [, v]) => a + v, 0);
  const byLe = new Map<number, number>();
  for (const [k, v] of series(samples, name, '_bucket')) {
    const m = /[{,]\s*le="([^"]+)"/.exec(k);
    if (!m) continue;
    const le = m[1] === '+Inf' ? Infinity : Number(m[1]);
    if (!Number.isNaN(le)) byLe.set(le, (byLe.get(le) ?? 0) + v);
  }
  const buckets = [...byLe].map(([le, cumulative]) => ({ le, cumulative })).sort((x, y) => x.le - y.le);
  const finite = buckets.filter((b) => b.le !== Infinity).at(-1)?.cumulative ?? 0;
  if (count <= 0) return { count: 0, mean_ms: null, p50_ms: null, p90_ms: null, p99_ms: null, over_last_bucket: 0 };
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
  const sum = series(samples, name, '_sum').reduce((a, [, v]) => a + v, 0);
  return {
    count,
    mean_ms: ms(sum / count),
    p50_ms: ms(quantile(0.5)),
    p90_ms: ms(quantile(0.9)),
    p99_ms: ms(quantile(0.99)),
    over_last_bucket: Math.max(0, count - finite),
  };
}

/** GET /metrics of a node (on its RPC port). */
export async function scrape(rpcUrl: string): Promise<Samples> {
  const res = await fetch(new URL('/metrics', rpcUrl), { signal: AbortSignal.timeout(5_000) });
  if (!res.ok) throw new Error(`GET ${new URL('/metrics', rpcUrl).href}: HTTP ${res.status}`);
  return parsePrometheus(await res.text());
}

/** Every node scraped at once, summed sample by sample. */
export async function scrapeAll(rpcUrls: string[]): Promise<Samples> {
  let sum: Samples = new Map();
  for (const s of await Promise.all(rpcUrls.map(scrape))) sum = combine(sum, s, 1);
  return sum;
}
