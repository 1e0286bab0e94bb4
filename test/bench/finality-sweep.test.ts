import t from 'tap';
import { inEd25519, timeEd25519Verify } from '../../bench/lib/ed25519-unit.js';
import type { Run } from '../../bench/lib/finality-run.js';
import { DEFAULT_SWEEP_RATES, parseRates, pastTheKnee, sweepSvg, withSweepValue } from '../../bench/lib/finality-sweep.js';
import { lineChartSvg } from '../../bench/lib/svg-chart.js';

t.test('bench/finality --sweep: alone it takes the default rates, a list overrides them', async (t) => {
  t.same(withSweepValue(['--sweep']), [`--sweep=${DEFAULT_SWEEP_RATES}`]);
  t.same(withSweepValue(['--sweep', '--validators', '4']), [`--sweep=${DEFAULT_SWEEP_RATES}`, '--validators', '4']);
  t.same(withSweepValue(['--sweep', '100,500', '--duration', '10']), ['--sweep', '100,500', '--duration', '10']);
  t.same(parseRates('100, 250,500'), [100, 250, 500]);
  for (const bad of ['', '100,x', '0', '1.5']) t.throws(() => parseRates(bad), bad);
});

const run = (offered: number, committed: number, p50: number, p99: number, perTx: number | null): Run =>
  ({
    offered_tps: offered,
    committed_tps: committed,
    latency_ms: { p50, p90: p99, p99, max: p99 },
    window: { fromUs: 0, toUs: 0, fromSeq: 0, toSeq: 0 },
    validators_cpu: { seconds: 1, cores: 1, ms_per_tx: perTx, ms_per_block: null, ed25519_per_tx: perTx, ed25519_per_block: null },
    ed25519: { verify_us: 50, before_us: 50, after_us: 50, batches: 1, per_batch: 1 },
  }) as Run;

t.test('bench/finality --sweep stops past the knee: p99 over 10 s or less than half committed', async (t) => {
  t.notOk(pastTheKnee(run(500, 495, 200, 1500, 40)));
  t.ok(pastTheKnee(run(2000, 1900, 3000, 12_000, 40)));
  t.ok(pastTheKnee(run(2000, 900, 3000, 8000, 40)));
});

t.test('CPU in Ed25519 verifications', async (t) => {
  t.equal(inEd25519(1.6, 50), 32);
  t.equal(inEd25519(null, 50), null);
  t.equal(inEd25519(1, 0), null, 'no unit, no figure');
  const timing = timeEd25519Verify(3, 50);
  t.ok(timing.us > 0 && timing.batches === 3 && timing.per_batch === 50);
});

t.test('the sweep plot: a standalone SVG with both panels, a point per step and log ticks', async (t) => {
  const svg = sweepSvg([run(100, 100, 60, 180, 90), run(500, 497, 180, 1467, 66), run(1000, 990, 850, 2700, 32)], { validators: 4, machine: '2 cores', date: '2026-11-28' });
  t.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  t.ok(svg.trimEnd().endsWith('</svg>'));
  t.equal(svg.match(/<circle /g)?.length, 9, 'p50, p99 and Ed25519/tx at 3 rates');
  for (const label of ['100', '200', '500', '1000', '50 ms', '1 s', '2 s', 'p50', 'p99']) t.match(svg, `>${label}</text>`);
  t.match(svg, 'Ed25519 verifications');
});

t.test('lineChartSvg escapes text and skips points a log axis cannot show', async (t) => {
  const svg = lineChartSvg({ title: 'a < b & c', x: { label: 'x', log: true }, panels: [{ y: { label: 'y', log: true }, series: [{ name: 's', color: 'red', points: [[1, 0], [10, 5], [100, 50]] }] }] });
  t.match(svg, 'a &lt; b &amp; c');
  t.equal(svg.match(/<circle /g)?.length, 2);
});
