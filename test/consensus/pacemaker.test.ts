import t from 'tap';
import { DEFAULT_PACEMAKER, ManualClock, Pacemaker, pacemakerConfig, roundTimeoutMs } from '../../node/consensus/pacemaker.js';

const cfg = { baseTimeoutMs: 1_000, multiplier: 1.5, maxTimeoutMs: 3_000, retransmitMs: 500 };

t.test('timeout grows by 1.5 per failure and is capped', async (t) => {
  t.same([0, 1, 2, 3, 10].map((k) => roundTimeoutMs(cfg, k)), [1_000, 1_500, 2_250, 3_000, 3_000]);
});

t.test('fires once per round, retransmits, grows on TCs and resets on QCs', async (t) => {
  const clock = new ManualClock();
  const fired: Array<[number, number]> = [];
  const p = new Pacemaker(cfg, clock, (r) => fired.push([r, clock.now()]));
  p.enter(1, 'start');
  clock.advance(999);
  t.same(fired, []);
  clock.advance(1);
  t.same(fired, [[1, 1_000]]);
  clock.advance(500);
  t.same(fired[1], [1, 1_500], 'retransmitted');
  p.enter(2, 'tc');
  t.equal(p.consecutiveFailures, 1);
  clock.advance(1_499);
  t.equal(fired.length, 2, 'the longer timeout has not fired yet');
  clock.advance(1);
  t.same(fired[2], [2, 3_000]);
  t.notOk(p.enter(2, 'qc'), 'no going back or sideways');
  p.enter(3, 'qc');
  t.equal(p.consecutiveFailures, 0, 'progress resets the backoff');
  p.stop();
  clock.advance(10_000);
  t.equal(fired.length, 3, 'stopped: nothing fires');
});

t.test('the default pacing scales with the first timeout', async (t) => {
  t.same(pacemakerConfig(2_000), { baseTimeoutMs: 2_000, multiplier: 1.5, maxTimeoutMs: 20_000, retransmitMs: 1_000, adaptiveFactor: 4 });
  t.same(DEFAULT_PACEMAKER, pacemakerConfig(2_000));
  t.same([0, 1, 2, 5, 6, 20].map((f) => roundTimeoutMs(DEFAULT_PACEMAKER, f)), [2_000, 3_000, 4_500, 15_188, 20_000, 20_000], 'then capped at 10 times');
});

t.test('the timeout follows the p95 of the recent rounds once there are enough of them', async (t) => {
  const a = { ...cfg, maxTimeoutMs: 20_000, adaptiveFactor: 4 };
  t.equal(roundTimeoutMs(a, 0, [900, 900, 900]), 1_000, 'too few rounds: the base');
  t.equal(roundTimeoutMs(a, 0, Array(20).fill(100)), 1_000, 'fast rounds: the base, never less');
  const slow = [...Array(18).fill(300), 800, 800];
  t.equal(roundTimeoutMs(a, 0, slow), 4 * 800, 'p95 of 20 rounds is the 19th: 800 ms (one slow round in 20 would not count)');
  t.equal(roundTimeoutMs(a, 1, slow), 4 * 800 * 1.5, 'backoff on top');
  t.equal(roundTimeoutMs(a, 0, Array(20).fill(9_000)), 20_000, 'capped');
  t.equal(roundTimeoutMs({ ...a, adaptiveFactor: 0 }, 0, slow), 1_000, 'off');
});

t.test('the pacemaker times the rounds that end with a QC, and only those', async (t) => {
  const clock = new ManualClock();
  const fired: Array<[number, number]> = [];
  const p = new Pacemaker({ ...cfg, maxTimeoutMs: 20_000, adaptiveFactor: 4 }, clock, (r) => fired.push([r, clock.now()]));
  p.enter(1, 'start');
  for (let r = 2; r <= 9; r++) {
    clock.advance(600);
    p.enter(r, 'qc');
  }
  t.equal(p.timeoutMs, 2_400, 'eight rounds of 600 ms: 4 x 600');
  clock.advance(2_399);
  t.same(fired, [], 'a leader slower than the base but within the recent rounds is not timed out');
  clock.advance(1);
  t.same(fired, [[9, 4_800 + 2_400]]);
  p.enter(10, 'tc');
  clock.advance(5_000);
  p.enter(20, 'qc');
  t.equal(p.timeoutMs, 2_400, 'neither a round ended by TC nor a jump is a sample');
  p.stop();
});
