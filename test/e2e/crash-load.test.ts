import t, { type Test } from 'tap';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalCluster } from '../../bench/lib/chaos/cluster.js';
import { CATCH_UP_BOUND_MS, runChaos } from '../../bench/lib/chaos/driver.js';
import type { ChaosOptions, ChaosResult, CrashPoint, CycleKind } from '../../bench/lib/chaos/types.js';
import { CRASH_POINTS as NODE_CRASH_POINTS } from '../../node/crash-points.js';

/**
 * Validators killed with SIGKILL under a steady load of transfers, and restarted: each must catch
 * up within CATCH_UP_BOUND_MS of its restart and vote again, and after every cycle all nodes hold
 * the same blocks, receipts, nonces and balances (bench/lib/chaos). The seed is fixed, so a
 * failure replays: the same victims, moments and downtimes.
 */

// Two devnets in turn, each for a few minutes on a two-core machine.
t.setTimeout(900_000);

const SEED = 20_240_611;

/**
 * Ways a node can be made to crash itself, tried in turn by the 'hook' cycles: each gives the
 * environment of one start from the chain's head seq at that start. Every crash point node/
 * offers (LEDGER_TEST_CRASH_AT=<point>@<seq>, node/crash-points.ts) is in the list, some blocks
 * ahead so that the node is under load when it hits it; add other settings here.
 */
const CRASH_AT: CrashPoint[] = [
  ...NODE_CRASH_POINTS.map((point, i) => crashAt(point, 2 + 3 * i)),
  { name: 'legacy LEDGER_TEST_CRASH_AT_SEQ', env: (seq) => ({ LEDGER_TEST_CRASH_AT_SEQ: String(seq + 3) }) },
];

function crashAt(point: string, k: number): CrashPoint {
  return { name: `${point}, head + ${k}`, env: (seq) => ({ LEDGER_TEST_CRASH_AT: `${point}@${seq + k}` }) };
}

async function chaos(t: Test, o: Omit<ChaosOptions, 'dir' | 'log' | 'keepDir'>): Promise<ChaosResult> {
  const dir = await mkdtemp(join(tmpdir(), 'ledger-crash-load-'));
  // runChaos stops its nodes itself; this covers a test that is cut short
  t.teardown(async () => {
    await LocalCluster.killAll();
    await rm(dir, { recursive: true, force: true });
  });
  return runChaos({ ...o, dir, keepDir: 'never', log: (line) => t.comment(line) });
}

/**
 * One assertion per cycle and per failure, the failure's diagnostics (node state, log lines)
 * attached; false when anything failed (the run stops at its first failure).
 */
function report(t: Test, r: ChaosResult, cycles: number): boolean {
  for (const c of r.cycles) {
    if (c.failure) continue;
    const figures = c.restarts.map((x) => `node ${x.node} caught up in ${x.caught_up_ms} ms, voting after ${x.votes_ms} ms`).join('; ');
    t.pass(`cycle ${c.index} (${c.kind}, killed ${c.victims.join(' and ')} at seq ${c.seq_at_kill}, down ${c.down_ms} ms): ${figures}`);
  }
  for (const f of r.failures) t.fail(`${f.cycle < 0 ? 'final check' : `cycle ${f.cycle}`}: ${f.code}`, { diagnostics: f.message });
  if (r.failures.length > 0) return false;
  t.equal(r.cycles.length, cycles, 'every cycle ran');
  t.ok(r.final, `the final check compared ${r.final?.checked_blocks ?? 0} blocks and ${r.final?.checked_receipts ?? 0} receipts on every node`);
  return true;
}

t.test('four validators under load: kill -9 and restart, the leader, two at once', async (t) => {
  // 'two': with two of four down nothing may commit; once they are back, commits resume unforked.
  const plan: CycleKind[] = ['one', 'leader', 'hook', 'two', 'leader', 'hook', 'one', 'two', 'one'];
  const r = await chaos(t, { validators: 4, seed: SEED, rate: 30, senders: 30, cycles: plan.length, plan, crashPoints: CRASH_AT, catchUpMs: CATCH_UP_BOUND_MS });
  if (!report(t, r, plan.length)) return;
  t.ok(r.cycles.some((c) => c.kind === 'leader'), 'a leader was killed and came back');
  t.ok(r.cycles.some((c) => c.kind === 'two' && c.stalled === true && typeof c.resume_ms === 'number'), 'two down stalled the chain, and it resumed once they were back');
});

t.test('one validator under load: crash points and kill -9 at random moments', async (t) => {
  // Alone, a restarted validator has nobody to catch up from: it must commit again, with every
  // transaction that had a receipt still there.
  const plan = CRASH_AT.flatMap((_, i): CycleKind[] => (i % 2 === 0 ? ['hook', 'one'] : ['hook']));
  const r = await chaos(t, { validators: 1, seed: SEED, rate: 30, senders: 20, cycles: plan.length, plan, crashPoints: CRASH_AT, downMs: [500, 3_000], quietMs: [500, 3_000] });
  if (!report(t, r, plan.length)) return;
  t.equal(r.cycles.filter((c) => c.kind === 'hook').length, CRASH_AT.length, 'every crash point fired and the node came back');
});
