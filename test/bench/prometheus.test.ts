import t from 'tap';
import { combine, histogram, parsePrometheus } from '../../bench/lib/prometheus.js';
import { latencySummary, percentile } from '../../bench/lib/stats.js';

const text = (count: number, sum: number, b: number[]) => `# HELP x_seconds help
# TYPE x_seconds histogram
x_seconds_bucket{le="0.1"} ${b[0]}
x_seconds_bucket{le="0.2"} ${b[1]}
x_seconds_bucket{le="+Inf"} ${b[2]}
x_seconds_sum ${sum}
x_seconds_count ${count}
ledger_round 42
`;

t.test('histogram quantiles from bucket deltas, summed over nodes', async (t) => {
  const before = parsePrometheus(text(10, 0.5, [10, 10, 10]));
  const after = parsePrometheus(text(110, 15.5, [10, 110, 110]));
  t.equal(after.get('ledger_round'), 42);
  const delta = combine(after, before, -1);
  const h = histogram(delta, 'x_seconds')!;
  t.equal(h.count, 100);
  t.equal(h.mean_ms, 150);
  t.equal(h.p50_ms, 150, 'half way through the 0.1-0.2 bucket');
  t.equal(h.p99_ms, 199);
  const twoNodes = combine(delta, delta, 1);
  t.equal(histogram(twoNodes, 'x_seconds')!.count, 200);
  t.equal(histogram(delta, 'missing_seconds'), undefined, 'absent: undefined, never invented');
});

t.test('a histogram by one label value', async (t) => {
  const labelled = parsePrometheus(
    ['qc', 'tc']
      .map((ended, i) => `r_seconds_bucket{le="1",ended="${ended}"} ${10 * (i + 1)}\nr_seconds_bucket{le="+Inf",ended="${ended}"} ${10 * (i + 1)}\nr_seconds_sum{ended="${ended}"} 1\nr_seconds_count{ended="${ended}"} ${10 * (i + 1)}`)
      .join('\n'),
  );
  t.equal(histogram(labelled, 'r_seconds')!.count, 30, 'every label set');
  t.equal(histogram(labelled, 'r_seconds{ended="qc"}')!.count, 10, 'one of them');
  t.equal(histogram(labelled, 'r_seconds{ended="tc"}')!.count, 20);
  t.equal(histogram(labelled, 'r_seconds{ended="none"}'), undefined);
});

t.test('the text format: labels with spaces and braces, timestamps, infinities, junk', async (t) => {
  const s = parsePrometheus(
    [
      '# HELP a help text',
      'a 1',
      'b{reason="too big { } \\" x",peer="p"} 2 1712345678000',
      '  c_total{x="1"}   3.5e2  ',
      'd +Inf',
      'e NaN',
      'f{unterminated="x 4',
      'g',
      '',
    ].join('\n'),
  );
  t.same(
    [...s],
    [
      ['a', 1],
      ['b{reason="too big { } \\" x",peer="p"}', 2],
      ['c_total{x="1"}', 350],
      ['d', Infinity],
    ],
  );
});

t.test('histograms: several label sets summed, the +Inf bucket, a window with nothing in it', async (t) => {
  const s = parsePrometheus(`h_seconds_bucket{node="a",le="0.5"} 2
h_seconds_bucket{node="a",le="1"} 2
h_seconds_bucket{node="a",le="+Inf"} 4
h_seconds_sum{node="a"} 40
h_seconds_count{node="a"} 4
h_seconds_bucket{node="b",le="0.5"} 2
h_seconds_bucket{node="b",le="1"} 2
h_seconds_bucket{node="b",le="+Inf"} 2
h_seconds_sum{node="b"} 0.5
h_seconds_count{node="b"} 2
`);
  const h = histogram(s, 'h_seconds')!;
  t.equal(h.count, 6);
  t.equal(h.over_last_bucket, 2, 'two observations above 1 s');
  t.equal(h.p50_ms, 375, 'rank 3 of 4 in the first bucket: 0.5 * 3/4');
  t.equal(h.p99_ms, 1000, 'in +Inf: reads as the highest finite bound');
  const nothing = histogram(combine(s, s, -1), 'h_seconds')!;
  t.same(nothing, { count: 0, mean_ms: null, p50_ms: null, p90_ms: null, p99_ms: null, over_last_bucket: 0 }, 'present but empty: no numbers');
});

t.test('nearest-rank percentiles', async (t) => {
  const v = Array.from({ length: 100 }, (_, i) => i + 1);
  t.equal(percentile(v, 50), 50);
  t.equal(percentile(v, 99), 99);
  t.ok(Number.isNaN(percentile([], 50)));
  t.same(latencySummary([3, 1, 2]), { p50: 2, p90: 3, p99: 3, max: 3 });
});
