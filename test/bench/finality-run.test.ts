import { availableParallelism } from 'node:os';
import t from 'tap';
import { machineIdleSeconds } from '../../bench/lib/finality-run.js';

t.test('machineIdleSeconds reads the whole machine idle time from /proc/stat', { skip: process.platform !== 'linux' && 'Linux only' }, async (t) => {
  const before = await machineIdleSeconds();
  const started = performance.now();
  await new Promise((r) => setTimeout(r, 300));
  const after = await machineIdleSeconds();
  const wall = (performance.now() - started) / 1000;
  t.type(before, 'number');
  t.ok(Number.isFinite(before) && before! > 0, `a count of seconds since boot: ${before}`);
  const idle = after! - before!;
  t.ok(idle >= 0, 'never decreases');
  // ticks are 10 ms: allow one tick per core either side
  t.ok(idle <= (wall + 0.02) * availableParallelism(), `at most every core for the wall time (${idle} s idle over ${wall.toFixed(2)} s)`);
});
