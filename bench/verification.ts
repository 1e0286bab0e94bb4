/**
 * bench/verification (issue 27): verification requests on a devnet of 4 validator processes
 * (bench/lib/chaos/cluster.ts, no plugins), from the dApp's submit to the final response.
 *
 * 1. setup (bench/lib/verification/setup.ts): an issuer, the dApps and the subjects with DIDs;
 *    one KYC level-2 credential per subject with a BBS key (12 messages), registered by the
 *    committee; every request of every run signed ahead (requestId, chainId, the dApp's next
 *    nonce) and its presentation derived ahead: the BBS presentation header binds chainId,
 *    requestId and holder, all known once the requestId is chosen, so no proof work is left to
 *    the measured window;
 * 2. load: at a fixed rate (open loop), `ledger_submitVerificationRequest` from 4 dApps, each
 *    to its own node, as a client keeps one RPC endpoint (a busy answer is sent again after its
 *    retryAfterMs); as soon as the submit is answered (`--present commit`: once the request's
 *    block is seen committed on node 0), its subject sends the presentation to the next node
 *    (`ledger_submitPresentation`, which waits there for the request to reach a block; retried
 *    every 20 ms when that node does not hold it yet); every validator receives it (the RPC
 *    node's own answerer and its peers), checks
 *    the BBS proof in its worker pool and answers on chain;
 * 3. measure: blocks are followed on node 0 by a process of its own (bench/finality-watch.ts);
 *    a request is committed when its transaction is seen there, final when the transaction whose
 *    receipt holds its VerificationFinalized event is. Per request submit → final and
 *    presentation → final (p50/p90/p99), final responses a second, what is not final at the end
 *    (and its status then); the validators' CPU (/proc, all 4 processes, and by thread name) over
 *    the window per final response, in ms, in Ed25519 verifications and in BBS verifications
 *    timed by this process in the same run.
 *
 *   npm run bench:verification -- --rate 5 --duration 30
 *   npm run bench:verification -- --sweep 1,2,4
 *   npm run bench:verification -- --rate 2 --profile /tmp/prof   (where the validators' CPU goes)
 *
 * Prints a table and writes bench/results/verification.json. The issue's target (≥ 50 final
 * responses a second at 4 validators, p50 ≤ 1 s) is reported against, never asserted.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { busyRetryAfterMs, RpcClient, type RpcError } from '../node/client/index.js';
import { verifyBbsProof, type BbsProofInput } from '../node/crypto/bbs.js';
import { mergeProfiles, summarizeProfiles } from './lib/cpuprofile.js';
import { WatcherProcess } from './lib/commit-watch.js';
import { ed25519Unit, inEd25519, timeEd25519Verify } from './lib/ed25519-unit.js';
import { BREAKDOWN, cpuSeconds, machineIdleSeconds } from './lib/finality-run.js';
import { keepAliveFetch } from './lib/http-fetch.js';
import { combine, histogram, scrapeAll, type HistogramSummary, type Samples } from './lib/prometheus.js';
import { machine, percentile } from './lib/stats.js';
import { BenchCluster } from './lib/verification/cluster.js';
import { parseVerificationBenchArgs, plannedRuns, UsageError, VERIFICATION_BENCH_USAGE } from './lib/verification/options.js';
import { setupVerification, type PreparedRequest } from './lib/verification/setup.js';
import { seconds, summarizeRun, targetVerdict, type RequestRecord, type RunFigures } from './lib/verification/summary.js';
import { threadDelta, threadSeconds } from './lib/verification/threads.js';

let opts: ReturnType<typeof parseVerificationBenchArgs>;
try {
  opts = parseVerificationBenchArgs(process.argv.slice(2));
} catch (err) {
  if (!(err instanceof UsageError)) throw err;
  console.error(`${err.message}\n\n${VERIFICATION_BENCH_USAGE}`);
  process.exit(2);
}
if (opts.help) {
  console.log(VERIFICATION_BENCH_USAGE);
  process.exit(0);
}
const root = fileURLToPath(new URL('../..', import.meta.url)); // dist/bench -> package root
const VALIDATORS = 4;
const log = (m: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${m}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);
const round = (v: number, d = 2) => Math.round(v * 10 ** d) / 10 ** d;
/** a request taken but not seen committed this long after is sent again (its node may have died with it in its mempool) */
const RESEND_AFTER_MS = 5_000;

/** The CPU time of one BBS proof verification (12 messages, 8 disclosed) in this process: the median of `runs`, after two to warm up. */
async function timeBbsVerify(input: BbsProofInput, runs = 7): Promise<number> {
  const one = async () => {
    const t0 = process.cpuUsage();
    if (!(await verifyBbsProof(input))) throw new Error('a valid presentation proof did not verify');
    const t = process.cpuUsage(t0);
    return (t.user + t.system) / 1000;
  };
  await one();
  await one();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push(await one());
  return round(percentile(times.sort((a, b) => a - b), 50), 1);
}

/**
 * Every node's /metrics summed; tried again on a failure, since undici may hand out a kept-alive
 * socket the node closed while this process was busy timing the units ("fetch failed").
 */
async function scrapeNodes(urls: string[]): Promise<Samples | undefined> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await scrapeAll(urls);
    } catch (err) {
      if (attempt >= 3) {
        log(`cannot scrape /metrics: ${(err as Error).message}`);
        return undefined;
      }
      await sleep(200);
    }
  }
}

/** The node's error code of a failed call (LedgerError code in its data), else the JSON-RPC code or message. */
function codeOf(err: unknown): string {
  const e = err as RpcError & { data?: { code?: string } };
  return e.data?.code ?? (typeof e.code === 'number' ? `rpc ${e.code}` : (e.message ?? String(err)));
}

interface RunResult {
  rate: number;
  warmup: boolean;
  figures: RunFigures;
  window_s: number;
  /** monotonic µs and node 0's head seq over the window (profile samples are stamped on the same clock) */
  window: { fromUs: number; toUs: number; fromSeq: number; toSeq: number };
  blocks_per_s: number;
  loadavg_1m: number;
  machine_idle_cores: number | null;
  validators_cpu: {
    seconds: number;
    cores: number;
    ms_per_final: number | null;
    ed25519_per_final: number | null;
    bbs_verifications_per_final: number | null;
    by_thread: Array<{ role: string; seconds: number; ms_per_final: number | null }>;
    seconds_by_node: number[];
  };
  bench_process_cores: number;
  ed25519: ReturnType<typeof ed25519Unit>;
  bbs_verify_ms: { before: number; after: number; mean: number };
  node_counters: Record<string, number>;
  /** the consensus histograms over the run, summed over the validators (finality-run.ts BREAKDOWN); null when a node did not export one */
  consensus: Record<keyof typeof BREAKDOWN, HistogramSummary | null>;
  /** --kill: who was killed when, and whether it caught up (head seqs of every node at the end) */
  crash?: { node: number; killed_at_s: number; restarted_at_s: number; caught_up: boolean; head_seq: number[] };
}

async function main(): Promise<void> {
  const runsPlanned = plannedRuns(opts);
  const total = runsPlanned.reduce((n, r) => n + r.requests, 0);
  const loadBefore = loadavg();
  const profileDir = opts.profile ? resolve(opts.profile) : undefined;
  if (profileDir) await mkdir(profileDir, { recursive: true });
  log(`starting ${VALIDATORS} validators; runs: ${runsPlanned.map((r) => `${r.rate}/s × ${r.requests}${r.warmup ? ' (warm-up)' : ''}`).join(', ')}`);
  const c = await BenchCluster.openWith({ validators: VALIDATORS, ...(profileDir ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] } : {}) });
  let failed = false;
  const results: RunResult[] = [];
  let setupSeconds: Record<string, number> = {};
  let pids: number[] = [];
  try {
    await c.startAll();
    await c.waitForSeq([0, 1, 2, 3], 2, 60_000);
    pids = c.pids();
    const setup = await setupVerification(c, { subjects: opts.subjects, dapps: opts.dapps, requests: total, validForBlocks: opts.validForBlocks, log });
    setupSeconds = setup.seconds;

    const fetchOverHttp = keepAliveFetch(32);
    const clients = c.nodes.map((n) => new RpcClient(n.rpcUrl, { timeoutMs: 60_000, fetch: fetchOverHttp }));
    const node0 = clients[0]!;
    const urls = c.nodes.map((n) => n.rpcUrl);
    const byTx = new Map<string, RequestRecord>();
    const byRequestId = new Map<string, { record: RequestRecord; prepared: PreparedRequest }>();
    /** transactions seen committed before their submit was answered (or that are answers): hash → when */
    const seenTx = new Map<string, number>();
    let lookupsFailed = 0;

    /** The node a client of node `i` uses: `i`, or the next one up while it is down (--kill). */
    const clientFor = (i: number): RpcClient => {
      for (let k = 0; k < clients.length; k++) if (c.isUp((i + k) % clients.length)) return clients[(i + k) % clients.length]!;
      return clients[i % clients.length]!;
    };
    /** A call that reached no node (refused, reset: a node killed under it) goes again, elsewhere if it is still down. */
    const unreachable = (err: unknown): boolean => typeof (err as RpcError).code !== 'number';
    /** Counts a call sent again, and sends it `afterMs` later. */
    const again = (rec: RequestRecord, retry: () => void, afterMs = 100): void => {
      rec.resent = (rec.resent ?? 0) + 1;
      setTimeout(retry, afterMs);
    };
    const present = (rec: RequestRecord, p: PreparedRequest): void => {
      rec.presentedAt ??= performance.now();
      clientFor(rec.index + 1).call('ledger_submitPresentation', [p.presentation]).then(
        () => {
          rec.presentAnsweredAt = performance.now();
        },
        (err: unknown) => {
          const code = codeOf(err);
          const wait = busyRetryAfterMs(err);
          if (code === 'UNKNOWN_VERIFICATION_REQUEST' && rec.notYetThere < 500) {
            rec.notYetThere++;
            setTimeout(() => present(rec, p), 20);
          } else if (wait !== undefined) {
            rec.busy++;
            setTimeout(() => present(rec, p), wait);
          } else if (unreachable(err)) again(rec, () => present(rec, p));
          else rec.error ??= `present: ${code}`;
        },
      );
    };
    const committed = (rec: RequestRecord, at: number): void => {
      if (rec.committedAt !== undefined) return;
      rec.committedAt = at;
      uncommitted.delete(rec);
      if (opts.present === 'commit') present(rec, byRequestId.get(rec.requestId)!.prepared);
    };
    /** accepted and not yet seen committed: when it was taken (a request lost with a killed node's mempool is sent again) */
    const uncommitted = new Map<RequestRecord, number>();
    const accepted = (rec: RequestRecord, txHash: string): void => {
      if (rec.txHash !== undefined) return;
      rec.txHash = txHash;
      byTx.set(txHash, rec);
      uncommitted.set(rec, performance.now());
      if (opts.present === 'submit') present(rec, byRequestId.get(rec.requestId)!.prepared);
      const at = seenTx.get(txHash);
      if (at !== undefined) {
        seenTx.delete(txHash);
        committed(rec, at);
      }
    };
    const submit = (rec: RequestRecord, p: PreparedRequest): void => {
      rec.submittedAt ??= performance.now();
      const node = clientFor(p.dapp);
      node.call<{ requestId: string; txHash: string }>('ledger_submitVerificationRequest', [p.request]).then(
        (out) => accepted(rec, out.txHash),
        (err: unknown) => {
          const wait = busyRetryAfterMs(err);
          const data = (err as { data?: { code?: string; pendingHash?: string; pending?: boolean } }).data;
          if (wait !== undefined) {
            rec.busy++;
            setTimeout(() => submit(rec, p), wait);
          } else if (data?.code === 'DUPLICATE_REQUEST_ID' && data.pendingHash) {
            // a retry of a request that did arrive (a socket reset under it): it is in the mempool
            accepted(rec, data.pendingHash);
          } else if (data?.code === 'DUPLICATE_REQUEST_ID' && data.pending === false) {
            // sent again after its first node died, and on chain already
            void node.call<{ tx_hash: string } | null>('ledger_getVerificationRequest', [rec.requestId]).then((v) => v && accepted(rec, v.tx_hash), () => undefined);
          } else if (unreachable(err)) again(rec, () => submit(rec, p));
          // an earlier request of this dApp died in a killed node's mempool: it is sent again (RESEND_AFTER_MS), then this one
          else if (data?.code === 'NONCE_TOO_HIGH') again(rec, () => submit(rec, p), 1000);
          else rec.error ??= `submit: ${codeOf(err)}`;
        },
      );
    };
    /** Which request a transaction finalized, from its receipt on node 0 (the block is committed there). */
    const lookup = async (hash: string, at: number): Promise<void> => {
      for (let attempt = 0; attempt < 20; attempt++) {
        try {
          const receipt = await node0.getReceipt(hash);
          if (receipt) {
            const events = receipt.events as unknown as Array<{ type: string; request_id?: string; verified?: boolean }>;
            if (!events.some((e) => e.type === 'VerificationRequested')) seenTx.delete(hash);
            for (const e of events) {
              if (e.type !== 'VerificationFinalized' || e.request_id === undefined) continue;
              const entry = byRequestId.get(e.request_id);
              if (entry && entry.record.finalAt === undefined) {
                entry.record.finalAt = at;
                entry.record.verified = e.verified === true;
              }
            }
            return;
          }
        } catch {
          // a busy node: try again
        }
        await sleep(50);
      }
      lookupsFailed++;
    };
    const watcher = new WatcherProcess(urls[0]!, (hash, at) => {
      const rec = byTx.get(hash);
      if (rec) return committed(rec, at);
      seenTx.set(hash, at);
      void lookup(hash, at);
    });
    await watcher.start();

    /** --kill: validator `node` killed with SIGKILL `atS` seconds after `from`, and started again --down seconds later. */
    const killAndRestart = async (node: number, atS: number, from: number): Promise<{ node: number; killed_at_s: number; restarted_at_s: number }> => {
      await sleep(Math.max(0, from + atS * 1000 - performance.now()));
      await c.kill9(node);
      const killedAt = performance.now();
      log(`validator ${node} killed (SIGKILL) ${round((killedAt - from) / 1000, 1)} s into the run`);
      await sleep(opts.down * 1000);
      await c.start(node);
      log(`validator ${node} started again`);
      return { node, killed_at_s: round((killedAt - from) / 1000, 1), restarted_at_s: round((performance.now() - from) / 1000, 1) };
    };
    /** Whether the restarted validator reached node 0's head within a minute, and both heads then. */
    const caughtUp = async (node: number): Promise<{ caught_up: boolean; head_seq: number[] }> => {
      const target = await c.seq(0);
      const caught = await c.waitForSeq([node], target, 60_000).then(() => true, () => false);
      return { caught_up: caught, head_seq: await Promise.all(c.nodes.map((n) => c.seq(n.index).catch(() => -1))) };
    };

    /** Until no proof is waiting in any node's pool and every mempool is empty: a run starts on a quiet network. */
    const quiesce = async (limitMs = 180_000): Promise<void> => {
      const end = Date.now() + limitMs;
      for (;;) {
        const s = await scrapeNodes(urls);
        if (s && (s.get('ledger_rpc_verify_pending') ?? 0) === 0 && (s.get('ledger_mempool_transactions') ?? 0) === 0) return;
        if (Date.now() > end) return log('the network did not quiesce; starting anyway');
        await sleep(500);
      }
    };

    let next = 0;
    for (const plan of runsPlanned) {
      const slice = setup.prepared.slice(next, next + plan.requests);
      next += plan.requests;
      await quiesce();
      const unitBefore = timeEd25519Verify();
      const bbsBefore = await timeBbsVerify(setup.sampleProof);
      log(`${plan.warmup ? 'warm-up' : 'run'}: ${plan.rate} requests/s, ${slice.length} requests (one Ed25519 verification ${unitBefore.us} µs, one BBS verification ${bbsBefore} ms of CPU)`);
      const records: RequestRecord[] = slice.map((p, k) => ({ index: k, requestId: p.requestId, scheduledAt: 0, busy: 0, notYetThere: 0 }));
      records.forEach((r, k) => byRequestId.set(r.requestId, { record: r, prepared: slice[k]! }));

      const metricsBefore = await scrapeNodes(urls);
      const fromSeq = await c.seq(0);
      const loadavg1m = loadavg()[0]!;
      const kill = plan.warmup ? undefined : opts.kill;
      // with a validator killed, the CPU is that of the three others
      const cpuPids = kill ? pids.filter((_, i) => i !== kill.node) : pids;
      const cpuBefore = await cpuSeconds(cpuPids);
      const threadsBefore = await threadSeconds(cpuPids);
      const idleBefore = await machineIdleSeconds();
      const benchCpuBefore = process.cpuUsage();
      const fromUs = monotonicUs();
      const startedAt = performance.now();
      const sendEndedAt = startedAt + (records.length * 1000) / plan.rate;
      records.forEach((r, k) => (r.scheduledAt = startedAt + (k * 1000) / plan.rate));
      const crash = kill && killAndRestart(kill.node, kill.atS, startedAt);
      const resending = setInterval(() => {
        for (const [rec, at] of uncommitted) {
          if (performance.now() - at < RESEND_AFTER_MS) continue;
          uncommitted.set(rec, performance.now());
          again(rec, () => submit(rec, byRequestId.get(rec.requestId)!.prepared), 0);
        }
      }, 1000);
      for (let k = 0; k < records.length; ) {
        const due = Math.min(records.length, Math.floor(((performance.now() - startedAt) * plan.rate) / 1000) + 1);
        for (; k < due; k++) submit(records[k]!, slice[k]!);
        await sleep(2);
      }
      while (performance.now() < sendEndedAt) await sleep(5);
      const drainUntil = performance.now() + opts.drain * 1000;
      while (records.some((r) => r.finalAt === undefined && r.error === undefined) && performance.now() < drainUntil) await sleep(20);
      clearInterval(resending);
      const crashed = crash ? await crash : undefined;
      const endedAt = performance.now();
      const toUs = monotonicUs();
      const cpu = (await cpuSeconds(cpuPids)) - cpuBefore;
      const threadsAfter = await threadSeconds(cpuPids);
      const threads = threadDelta(threadsBefore, threadsAfter);
      const perNode = cpuPids.map((pid) => {
        let sum = 0;
        for (const [id, t] of threadsAfter) if (t.pid === pid) sum += t.seconds - (threadsBefore.get(id)?.seconds ?? 0);
        return round(sum, 1);
      });
      const idleAfter = await machineIdleSeconds();
      const benchCpu = process.cpuUsage(benchCpuBefore);
      const toSeq = await c.seq(0);
      const metricsAfter = await scrapeNodes(urls);
      for (const r of records) {
        if (r.finalAt !== undefined) continue;
        const v = await node0.call<{ status?: string } | null>('ledger_getVerificationRequest', [r.requestId]).catch(() => undefined);
        r.endStatus = v === undefined ? 'unknown' : (v?.status ?? 'not on chain');
      }
      const unit = ed25519Unit(unitBefore, timeEd25519Verify());
      const bbsAfter = await timeBbsVerify(setup.sampleProof);
      const bbsMean = round((bbsBefore + bbsAfter) / 2, 1);

      const figures = summarizeRun(records, { startedAt, sendEndedAt });
      const windowS = (endedAt - startedAt) / 1000;
      const perFinal = (s: number) => (figures.final > 0 ? round((s * 1000) / figures.final, 1) : null);
      const msPerFinal = perFinal(cpu);
      const delta = metricsBefore && metricsAfter ? combine(metricsAfter, metricsBefore, -1) : undefined;
      const counters: Record<string, number> = {};
      for (const [k, v] of delta ?? []) {
        if (/^ledger_(verification_answers_total|verification_answer_transactions_total|presentations_total|rpc_busy_total|consensus_timeouts_total|committed_transactions_total|bbs_batches_total|bbs_batched_proofs_total)/.test(k) && v !== 0) counters[k] = v;
      }
      const result: RunResult = {
        rate: plan.rate,
        warmup: plan.warmup,
        figures,
        window_s: round(windowS, 1),
        window: { fromUs, toUs, fromSeq, toSeq },
        blocks_per_s: round((toSeq - fromSeq) / windowS, 1),
        loadavg_1m: round(loadavg1m),
        machine_idle_cores: idleBefore === undefined || idleAfter === undefined ? null : round((idleAfter - idleBefore) / windowS),
        validators_cpu: {
          seconds: round(cpu, 1),
          cores: round(cpu / windowS),
          ms_per_final: msPerFinal,
          ed25519_per_final: inEd25519(msPerFinal, unit.verify_us),
          bbs_verifications_per_final: msPerFinal === null ? null : round(msPerFinal / bbsMean, 1),
          by_thread: threads.map((t) => ({ ...t, ms_per_final: perFinal(t.seconds) })),
          /** node 0 also answers the commit watcher's polls (every 10 ms) and the receipt lookups */
          seconds_by_node: perNode,
        },
        bench_process_cores: round((benchCpu.user + benchCpu.system) / 1e6 / windowS),
        ed25519: unit,
        bbs_verify_ms: { before: bbsBefore, after: bbsAfter, mean: bbsMean },
        node_counters: counters,
        consensus: Object.fromEntries(Object.entries(BREAKDOWN).map(([k, metric]) => [k, (delta && histogram(delta, metric)) ?? null])) as RunResult['consensus'],
        ...(crashed ? { crash: { ...crashed, ...(await caughtUp(crashed.node)) } } : {}),
      };
      if (crashed) pids = c.pids();
      results.push(result);
      if (result.crash) {
        const k = result.crash;
        log(`validator ${k.node}: killed at ${k.killed_at_s} s, started at ${k.restarted_at_s} s, ${k.caught_up ? 'caught up' : 'NOT caught up'} (head seqs ${k.head_seq.join(', ')}); ${figures.resent} calls sent again; the CPU below is the other three validators'`);
      }
      const rounds = result.consensus.round_ended_by_qc;
      const commits = result.consensus.proposal_to_commit;
      if (rounds && commits) log(`consensus: a round ending with a QC p50 ${rounds.p50_ms} ms p90 ${rounds.p90_ms} ms; proposal → commit p50 ${commits.p50_ms} ms p90 ${commits.p90_ms} ms`);
      log(
        `${plan.warmup ? 'warm-up' : 'run'} ${plan.rate}/s: ${figures.final} of ${figures.offered} final (${figures.final_per_s}/s), submit → final p50 ${figures.submit_to_final_ms.p50} ms p99 ${figures.submit_to_final_ms.p99} ms; validators ${result.validators_cpu.cores} cores, ${msPerFinal} ms a final response; machine idle ${result.machine_idle_cores} cores`,
      );
    }
    await watcher.stop();
    if (lookupsFailed > 0) log(`${lookupsFailed} receipts could not be read: their responses may be missing`);
  } catch (err) {
    failed = true;
    throw err;
  } finally {
    // SIGTERM and time to exit: a node run with --cpu-prof writes its profile as it exits
    await c.destroy({ keepDir: opts.keepDir || failed, graceMs: profileDir ? 30_000 : 5_000 });
    if (opts.keepDir || failed) log(`devnet dir kept: ${c.dir} (node logs in */node.log)`);
  }

  const measured = results.filter((r) => !r.warmup);
  const profile = profileDir && measured.length > 0 ? await profilePerFinal(profileDir, measured.at(-1)!) : undefined;
  const table = measured.map((r) => {
    const f = r.figures;
    const l = f.submit_to_final_ms;
    return {
      'offered/s': f.offered_per_s,
      'final/s': f.final_per_s,
      'final of sent': `${f.final} of ${f.offered}`,
      'not final': f.not_final === 0 ? 0 : `${f.not_final} ${JSON.stringify(f.not_final_by_status)}`,
      'submit→final p50/p90/p99 s': `${seconds(l.p50)} / ${seconds(l.p90)} / ${seconds(l.p99)}`,
      'present→final p50/p99 s': `${seconds(f.present_to_final_ms.p50)} / ${seconds(f.present_to_final_ms.p99)}`,
      'submit→commit p50 s': seconds(f.submit_to_commit_ms.p50),
      'validators cores': r.validators_cpu.cores,
      'idle cores': r.machine_idle_cores ?? 'n/a',
      'CPU ms/final': r.validators_cpu.ms_per_final ?? '-',
      'Ed25519/final': r.validators_cpu.ed25519_per_final ?? '-',
      'BBS verif./final': r.validators_cpu.bbs_verifications_per_final ?? '-',
      'bench cores': r.bench_process_cores,
    };
  });
  console.table(table);
  for (const r of measured) {
    console.log(`\n${r.rate}/s: the validators' CPU by thread over ${r.window_s} s (one BBS verification ${r.bbs_verify_ms.mean} ms, one Ed25519 ${r.ed25519.verify_us} µs here)`);
    console.table(r.validators_cpu.by_thread);
    console.log(`CPU seconds by node: ${r.validators_cpu.seconds_by_node.join(", ")} (node 0 also answers the commit watcher)`);
  }
  const targets = measured.map((r) => targetVerdict(r.figures));
  for (const t of targets) console.log(t);

  const result = {
    benchmark: 'verification',
    date: new Date().toISOString(),
    machine: { ...machine(), loadavg_before: loadBefore.map((x) => round(x)), loadavg_after: loadavg().map((x) => round(x)) },
    validators: VALIDATORS,
    options: { ...opts, help: undefined },
    setup_s: setupSeconds,
    method:
      'a devnet of 4 validator processes (no plugins) on this machine; one KYC level-2 credential per subject, BBS with 12 messages, registered by the committee; ' +
      'every request signed and its presentation (8 of 12 messages disclosed) derived before the clock starts, since the presentation header binds chainId, requestId and holder; ' +
      'requests sent open loop at the rate by the dApps round-robin, each dApp to its own node (busy answers retried after retryAfterMs); a request is committed when its transaction is seen in a block on node 0 ' +
      '(followed by seq every 10 ms by a process of its own); the presentation goes to the next node as soon as the submit is answered (--present submit, where the node waits for the request to reach a block) or once the request is committed (--present commit); final when the transaction whose receipt holds its VerificationFinalized event is seen there; ' +
      'submit = the request first handed to the HTTP client; final/s = final responses over the time from the first request to the last final one; ' +
      "validators' CPU: user + system of the 4 processes (/proc) from the first request to the end of the drain, per final response, also in Ed25519 and BBS verifications timed by this process (CPU time) right before and after each run",
    targets,
    runs: results,
    ...(profile ? { profile } : {}),
  };
  const out = opts.out ?? join(root, 'bench', 'results', 'verification.json');
  await mkdir(join(out, '..'), { recursive: true });
  await writeFile(out, JSON.stringify(result, null, 1) + '\n');
  console.log(`wrote ${out}`);
}

/**
 * The validators' profiles summed over the window of `run`: each group's and function's share of
 * the sampled time, and that share of the CPU per final response measured from /proc. Profile
 * samples are taken on a wall clock and also count time a thread waited for a core, so on a
 * machine with more runnable threads than cores their sum overstates the CPU; the shares hold.
 */
async function profilePerFinal(dir: string, run: RunResult) {
  const merged = mergeProfiles(await summarizeProfiles(dir, run.window, 200));
  const cpuMs = run.validators_cpu.ms_per_final ?? 0;
  const per = (ms: number) => (merged.busy_ms > 0 ? round((ms / merged.busy_ms) * cpuMs, 1) : 0);
  console.log(
    `\nvalidators' profiles over the ${run.rate}/s window: ${merged.busy_ms} ms sampled busy in ${merged.threads} threads (waiting for a core included); ` +
      `shares of it applied to the ${cpuMs} ms of CPU (/proc) per final response`,
  );
  const groups = merged.groups.slice(0, 15).map((g) => ({ group: g.group, '%': g.percent_of_busy, 'CPU ms/final': per(g.self_ms) }));
  const top = merged.top.slice(0, 25).map((f) => ({ function: f.function, where: f.where, group: f.group, '%': f.percent, 'CPU ms/final': per(f.self_ms) }));
  console.table(groups);
  console.table(top);
  return { rate: run.rate, finals: run.figures.final, sampled_busy_ms: merged.busy_ms, threads: merged.threads, cpu_ms_per_final: cpuMs, groups, top };
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
