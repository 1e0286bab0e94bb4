import t from 'tap';
import { DEFAULT_SWEEP_RATES, parseRateList, parseVerificationBenchArgs, plannedRuns } from '../../bench/lib/verification/options.js';
import { seconds, summarizeRun, targetVerdict, type RequestRecord } from '../../bench/lib/verification/summary.js';
import { parseTaskStat, threadDelta, type ThreadSample } from '../../bench/lib/verification/threads.js';

t.test('bench/verification: defaults and flags', async (t) => {
  t.match(parseVerificationBenchArgs([]), { rate: 5, sweep: undefined, duration: 30, warmup: 10, drain: 60, subjects: 20, dapps: 4, validForBlocks: undefined, present: 'submit', profile: undefined, out: undefined, keepDir: false, help: false });
  t.equal(parseVerificationBenchArgs(['--present', 'commit']).present, 'commit');
  t.match(parseVerificationBenchArgs(['--kill', '2@7.5', '--down', '3']), { kill: { node: 2, atS: 7.5 }, down: 3 });
  t.match(parseVerificationBenchArgs([]), { kill: undefined, down: 5 });
  const o = parseVerificationBenchArgs(['--rate', '2.5', '--duration', '20', '--warmup', '0', '--subjects', '8', '--dapps', '2', '--valid-for-blocks', '1000', '--profile', '/tmp/p', '--keep-dir']);
  t.match(o, { rate: 2.5, duration: 20, warmup: 0, subjects: 8, dapps: 2, validForBlocks: 1000, profile: '/tmp/p', keepDir: true });
  t.same(parseVerificationBenchArgs(['--sweep']).sweep, DEFAULT_SWEEP_RATES, '--sweep alone takes the default rates');
  t.same(parseVerificationBenchArgs(['--sweep', '--duration', '10']).sweep, DEFAULT_SWEEP_RATES, 'and before another flag');
  t.same(parseVerificationBenchArgs(['--sweep', '1,3, 6']).sweep, [1, 3, 6]);
  t.same(parseRateList('0.5,2'), [0.5, 2]);
});

t.test('bench/verification: bad flags are usage errors', async (t) => {
  for (const argv of [['--rate', '0'], ['--rate', 'x'], ['--duration', '-1'], ['--subjects', '1.5'], ['--dapps', '0'], ['--warmup', '-2'], ['--valid-for-blocks', '4'], ['--valid-for-blocks', '10001'], ['--sweep', '2,,4'], ['--present', 'soon'], ['--kill', '0@5'], ['--kill', '2'], ['--kill', '4@1'], ['--down', '-1'], ['--nope'], ['stray']]) {
    t.throws(() => parseVerificationBenchArgs(argv), { name: 'UsageError' }, argv.join(' '));
  }
});

t.test('bench/verification: the runs, a warm-up at the first rate first', async (t) => {
  t.same(plannedRuns({ rate: 5, sweep: undefined, duration: 30, warmup: 10 }), [
    { rate: 5, requests: 50, warmup: true },
    { rate: 5, requests: 150, warmup: false },
  ]);
  t.same(plannedRuns({ rate: 5, sweep: [2, 4], duration: 10, warmup: 0 }), [
    { rate: 2, requests: 20, warmup: false },
    { rate: 4, requests: 40, warmup: false },
  ]);
  t.same(plannedRuns({ rate: 0.05, sweep: undefined, duration: 10, warmup: 0 }), [{ rate: 0.05, requests: 1, warmup: false }], 'at least one request');
});

const rec = (index: number, o: Partial<RequestRecord>): RequestRecord => ({ index, requestId: `r${index}`, scheduledAt: index * 100, busy: 0, notYetThere: 0, ...o });

t.test('bench/verification: a run summarized from its records', async (t) => {
  // 10 requests at 10/s from t = 0; each submitted 1 ms late, committed 200 ms later, presented 5 ms after that
  const records = Array.from({ length: 10 }, (_, i) => {
    const s = i * 100 + 1;
    return rec(i, { submittedAt: s, txHash: `h${i}`, committedAt: s + 200, presentedAt: s + 205, presentAnsweredAt: s + 210, finalAt: s + 205 + 100 * (i + 1), verified: i !== 3 });
  });
  // one never final, its status at the end pending; one refused for good
  records.push(rec(10, { submittedAt: 1001, txHash: 'h10', committedAt: 1201, presentedAt: 1206, presentAnsweredAt: 1210, endStatus: 'pending' }));
  records.push(rec(11, { submittedAt: 1101, error: 'submit: NONCE_TOO_LOW', endStatus: 'not on chain', busy: 2 }));
  const f = summarizeRun(records, { startedAt: 0, sendEndedAt: 1200 });
  t.match(f, { offered: 12, offered_per_s: 10, submitted: 12, accepted: 11, committed: 11, presented: 11, final: 10, verified: 9, not_final: 2, busy_answers: 2 });
  t.same(f.not_final_by_status, { pending: 1, 'not on chain': 1 });
  t.same(f.errors, { 'submit: NONCE_TOO_LOW': 1 });
  // submit → final: 305, 405, ..., 1205 (nearest rank)
  t.same(f.submit_to_final_ms, { p50: 705, p90: 1105, p99: 1205, max: 1205 });
  t.same(f.present_to_final_ms, { p50: 500, p90: 900, p99: 1000, max: 1000 });
  t.same(f.submit_to_commit_ms, { p50: 200, p90: 200, p99: 200, max: 200 });
  t.equal(f.scheduled_to_final_ms.p50, 706, 'from the schedule: 1 ms more');
  // the last final at 900 + 1 + 205 + 1000 = 2106 ms
  t.equal(f.final_per_s, Math.round((10 / 2106) * 1000 * 100) / 100);
  // finals by 1200 ms: i with i*100 + 206 + 100i ≤ 1200, i.e. i ≤ 4: five over 1.2 s
  t.equal(f.final_per_s_while_sending, 4.17);
  t.match(targetVerdict(f), /NOT met$/);
});

t.test('bench/verification: an empty run and the target', async (t) => {
  const f = summarizeRun([rec(0, { submittedAt: 1 })], { startedAt: 0, sendEndedAt: 1000 });
  t.match(f, { final: 0, final_per_s: 0, not_final: 1 });
  t.equal(seconds(f.submit_to_final_ms.p50), '-');
  t.match(targetVerdict(f), /p50 none: NOT met/);
  // 60 a second for 10 s, each final 500 ms after its submit: 600 over 10.5 s
  const fast = Array.from({ length: 600 }, (_, i) => rec(i, { submittedAt: (i * 1000) / 60, finalAt: (i * 1000) / 60 + 500, verified: true }));
  t.match(targetVerdict(summarizeRun(fast, { startedAt: 0, sendEndedAt: 10_000 })), /: met$/);
  const slow = fast.map((r) => ({ ...r, finalAt: r.finalAt! + 600 }));
  t.match(targetVerdict(summarizeRun(slow, { startedAt: 0, sendEndedAt: 10_000 })), /p50 1100 ms: NOT met$/, 'p50 over 1 s');
  t.equal(seconds(1234.5), '1.23');
});

t.test('bench/verification: thread CPU from /proc, by role', async (t) => {
  t.same(parseTaskStat('4242 (node) S 1 4242 4242 0 -1 4194560 900 0 0 0 250 17 0 0 20 0 11 0'), { name: 'node', ticks: 267 });
  t.same(parseTaskStat('7 (a (b) c) R 1 1 1 0 -1 0 0 0 0 0 3 4 0'), { name: 'a (b) c', ticks: 7 }, 'a name with parentheses and spaces');
  t.equal(parseTaskStat('garbage'), undefined);
  const snap = (rows: Array<[number, number, number]>) => new Map<string, ThreadSample>(rows.map(([pid, tid, seconds]) => [`${pid}/${tid}`, { pid, tid, name: 'node', seconds }]));
  const before = snap([
    [10, 10, 5],
    [10, 11, 1],
    [10, 12, 2],
    [20, 20, 4],
    [20, 21, 1],
  ]);
  const after = snap([
    [10, 10, 8], // main +3
    [10, 11, 1.5], // +0.5
    [10, 12, 6], // +4: the busiest other of process 10
    [20, 20, 5], // main +1
    [20, 21, 1.25], // +0.25
    [20, 22, 2], // started in the window: +2, the busiest other of process 20
  ]);
  t.same(threadDelta(before, after), [
    { role: 'main thread', seconds: 4 },
    { role: 'busiest other thread', seconds: 6 },
    { role: 'all other threads', seconds: 0.75 },
  ]);
});
