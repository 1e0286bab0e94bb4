import { fundSenders } from '../accounts.js';
import { waitForSeqEverywhere } from '../devnet.js';
import { ChaosCheckError } from './checks.js';
import { LocalCluster } from './cluster.js';
import { CATCH_UP_BOUND_MS, ChaosRun } from './run.js';
import { Rng } from './rng.js';
import type { ChaosFailure, ChaosOptions, ChaosResult, CycleKind } from './types.js';

export { CATCH_UP_BOUND_MS };

/** Failures after which a soak restarts the node at fault and goes on; others (safety) end it. */
const RECOVERABLE = new Set(['STUCK', 'NOT_VOTING', 'NOT_DRAINED', 'NO_RESUME', 'HOOK_DID_NOT_FIRE', 'NODE_DIED']);

/**
 * A devnet of N validators under a steady load of transfers, with kill -9 / restart cycles of
 * random validators (victim, moment and downtime from a seeded PRNG). After each restart: the
 * node catches up within `catchUpMs` and votes again; after each cycle, with the load paused and
 * drained: every node holds the same blocks, the same receipts for every transaction that got
 * one, and the same nonces and balances for every sender. Failed checks, and any error, are in
 * the result (`failures`) rather than thrown; every process is gone when it returns.
 */
export async function runChaos(o: ChaosOptions): Promise<ChaosResult> {
  const say = o.log ?? (() => undefined);
  const rng = new Rng(o.seed);
  const startedAt = new Date();
  const failures: ChaosFailure[] = [];
  const cluster = await LocalCluster.open({ validators: o.validators, dir: o.dir, logLevel: o.logLevel });
  let run: ChaosRun | undefined;
  let final: ChaosResult['final'];
  let broken = false;
  let current = -1;
  const cycles: ChaosResult['cycles'] = [];
  try {
    say(`devnet of ${o.validators} in ${cluster.dir}, seed ${o.seed}`);
    await cluster.startAll();
    const all = cluster.nodes.map((n) => n.index);
    await cluster.waitForSeq(all, 2, 60_000);
    const senders = await fundSenders(cluster.nodes[0]!.client, cluster.chainId, cluster.dev, o.senders, 100n);
    const funded = await cluster.seq(0);
    await waitForSeqEverywhere(all.map((i) => () => cluster.seq(i)), funded);
    say(`${o.senders} senders funded at seq ${funded}; load ${o.rate} tx/s`);
    run = new ChaosRun(cluster, rng, senders, o);
    run.load.start();
    for (let k = 0; k < o.cycles; k++) {
      if (o.deadlineMs !== undefined && run.elapsedMs() > o.deadlineMs) break;
      current = k;
      const kind = kindOf(o, rng, k);
      const cycle = await run.cycle(k, kind);
      cycles.push(cycle);
      if (cycle.failure) {
        failures.push(cycle.failure);
        say(`cycle ${k} FAILED (${cycle.failure.code}): ${cycle.failure.message}`);
      }
      o.onCycle?.(cycle);
      if (cycle.failure && (o.stopOnFailure !== false || !RECOVERABLE.has(cycle.failure.code) || !(await run.recover()))) {
        broken = true;
        break;
      }
    }
    // After a failure nothing was recovered from, the final check would only fail again, slowly.
    if (!broken) {
      current = -1;
      try {
        final = await run.finalCheck();
      } catch (err) {
        if (!(err instanceof ChaosCheckError)) throw err;
        failures.push({ cycle: -1, code: err.code, message: err.message });
        say(`final check FAILED (${err.code}): ${err.message}`);
      }
    }
  } catch (err) {
    failures.push({ cycle: current, code: 'ERROR', message: (err as Error).stack ?? String(err) });
  } finally {
    await run?.load.stop();
    const keep = o.keepDir === 'always' || (o.keepDir === 'on-failure' && failures.length > 0);
    await cluster.destroy({ keepDir: keep });
    if (keep) say(`devnet dir kept: ${cluster.dir} (node logs in node-*/node.log)`);
  }
  const load = run?.load;
  return {
    seed: o.seed,
    validators: o.validators,
    rate: o.rate,
    senders: o.senders,
    started_at: startedAt.toISOString(),
    duration_ms: Date.now() - startedAt.getTime(),
    catch_up_bound_ms: o.catchUpMs ?? CATCH_UP_BOUND_MS,
    dir: o.keepDir === 'always' || (o.keepDir === 'on-failure' && failures.length > 0) ? cluster.dir : undefined,
    cycles,
    failures,
    load: { ...(load?.stats ?? { signed: 0, accepted: 0, failedOver: 0, resent: 0, skipped: 0, refusals: {} }), landed: load?.landed.size ?? 0, pending_at_end: load?.pendingCount ?? 0 },
    final,
  };
}

function kindOf(o: ChaosOptions, rng: Rng, k: number): CycleKind {
  if (o.plan && o.plan.length > 0) return o.plan[k % o.plan.length]!;
  if (o.validators >= 4 && o.twoDownEvery && (k + 1) % o.twoDownEvery === 0) return 'two';
  if (o.validators === 1) return o.crashPoints?.length && rng.next() < 0.5 ? 'hook' : 'one';
  return rng.next() < 0.5 ? 'one' : 'leader';
}
