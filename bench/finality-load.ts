/**
 * The load generator of bench/finality, run by it as a separate process (so that its own CPU use
 * is a process of its own, as a real client's would be):
 *
 *   node dist/bench/finality-load.js --rpc <url>,<url>,... --dev-key <file> --rate 500 --duration 30
 *
 * 1. funds `--senders` fresh accounts from the dev key (through the first node) and waits until
 *    every node has committed the funding, then pre-signs every transfer (signing never counts);
 * 2. prints {"phase":"ready"} and, with --wait-go, waits for a line on stdin (bench/finality
 *    scrapes the nodes' metrics in between);
 * 3. submits at a fixed rate (open loop: the schedule does not wait for answers), sender i's
 *    transactions always to node i mod N, so consecutive transactions go round-robin to the nodes;
 *    a busy answer (-32010: mempool full, node overloaded) sends the same transaction again after
 *    the retryAfterMs it names, until half the drain time after the schedule ends; so offered
 *    (scheduled), accepted (admitted), busy refusals (attempts) and committed are counted apart;
 * 4. follows committed blocks on the first node by seq, in a process of its own
 *    (bench/finality-watch.ts), and matches their transaction hashes:
 *    latency = block first seen committed there - the moment the transaction was first handed to fetch
 *    (also reported from the moment the schedule meant to send it, which adds this process's lag);
 *    the commit gap is the time between two polls (10 ms apart) that saw the head move;
 * 5. prints {"phase":"done", ...} with the figures.
 */
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { busyRetryAfterMs, RpcClient, type RpcError } from '../node/client/index.js';
import { readKeyFile } from '../node/config/keyfile.js';
import { fundSenders, presignTransfersAsync, retryRead } from './lib/accounts.js';
import { WatcherProcess } from './lib/commit-watch.js';
import { keepAliveFetch } from './lib/http-fetch.js';
import { waitForSeqEverywhere } from './lib/devnet.js';
import { latencySummary } from './lib/stats.js';

const { values } = parseArgs({
  options: {
    rpc: { type: 'string' },
    'dev-key': { type: 'string' },
    rate: { type: 'string', default: '500' },
    duration: { type: 'string', default: '30' },
    senders: { type: 'string', default: '200' },
    'max-in-flight': { type: 'string', default: '4000' },
    drain: { type: 'string', default: '30' },
    'wait-go': { type: 'boolean', default: false },
  },
});
if (!values.rpc || !values['dev-key']) {
  console.error('usage: finality-load --rpc <url>[,<url>...] --dev-key <file> [--rate 500] [--duration 30] [--senders 200] [--wait-go]');
  process.exit(2);
}
const urls = values.rpc.split(',');
const rate = Number(values.rate);
const durationMs = Number(values.duration) * 1000;
const maxInFlight = Number(values['max-in-flight']);
// 64 sockets a node: past that, requests wait here, and their latency counts from the first attempt
const fetchOverHttp = keepAliveFetch(64);
const clients = urls.map((u) => new RpcClient(u, { timeoutMs: 60_000, fetch: fetchOverHttp }));
const say = (o: object) => process.stdout.write(JSON.stringify(o) + '\n');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const first = clients[0]!;
  const { chain_id: chainId } = await first.chainInfo();
  const dev = await readKeyFile(values['dev-key']!);
  const senders = await fundSenders(first, chainId, dev, Number(values.senders));
  const work = await presignTransfersAsync(chainId, senders, dev.address, Math.ceil((rate * durationMs) / 1000));
  const funded = (await retryRead(() => first.canonHead()))!.seq;
  await waitForSeqEverywhere(clients.map((c) => async () => (await retryRead(() => c.canonHead()))?.seq ?? 0), funded);

  const submittedAt = new Map<string, number>();
  const scheduledAt = new Map<string, number>();
  const latencies: number[] = [];
  const fromSchedule: number[] = [];
  let firstCommitAt = 0;
  let lastCommitAt = 0;
  const watcher = new WatcherProcess(first.url, (hash, at) => {
    const t0 = submittedAt.get(hash);
    if (t0 === undefined) return;
    submittedAt.delete(hash);
    latencies.push(at - t0);
    fromSchedule.push(at - scheduledAt.get(hash)!);
    scheduledAt.delete(hash);
    firstCommitAt ||= at;
    lastCommitAt = at;
  });
  await watcher.start();

  say({ phase: 'ready', transactions: work.length, senders: senders.length, nodes: urls.length });
  if (values['wait-go']) await new Promise<void>((r) => createInterface({ input: process.stdin }).once('line', () => r()));
  const startSeq = watcher.headSeq;
  say({ phase: 'load' });

  let offered = 0; // scheduled: came due on the schedule
  let dispatched = 0; // handed to fetch (first attempts)
  let skipped = 0; // not sent: too many answers outstanding (the nodes are not keeping up)
  let accepted = 0;
  let rejected = 0;
  let busyRefused = 0; // busy answers, one per attempt
  let busyRetried = 0; // transactions that got at least one busy answer
  let busyGaveUp = 0; // still busy when retries stopped
  let retrying = 0; // waiting out a retryAfterMs
  let inFlight = 0;
  let lastAnswerAt = 0;
  const scheduleLag: number[] = [];
  const errors: Record<string, number> = {};
  const busyReasons: Record<string, number> = {};
  const started = performance.now();
  const cpuAtStart = process.cpuUsage();
  const retryUntil = started + durationMs + (Number(values.drain) * 1000) / 2;
  const attempt = (w: (typeof work)[number], first: boolean): void => {
    inFlight++;
    clients[w.sender % clients.length]!.sendTransaction(w.json).then(
      () => {
        inFlight--;
        accepted++;
        lastAnswerAt = performance.now();
      },
      (err: RpcError) => {
        inFlight--;
        lastAnswerAt = performance.now();
        const wait = busyRetryAfterMs(err);
        if (wait !== undefined) {
          busyRefused++;
          if (first) busyRetried++;
          const reason = (err.data as { reason?: string } | undefined)?.reason ?? `http ${(err as { status?: number }).status ?? '?'}`;
          busyReasons[reason] = (busyReasons[reason] ?? 0) + 1;
          if (performance.now() + wait <= retryUntil) {
            retrying++;
            setTimeout(() => {
              retrying--;
              attempt(w, false);
            }, wait);
            return;
          }
          busyGaveUp++;
        } else {
          rejected++;
          const code = (err.data as { code?: string } | undefined)?.code ?? (err.code !== undefined ? `rpc ${err.code}` : (err.message ?? 'error'));
          errors[code] = (errors[code] ?? 0) + 1;
        }
        submittedAt.delete(w.hash);
      },
    );
  };
  for (let next = 0; next < work.length; ) {
    const now = performance.now();
    const due = Math.min(work.length, Math.floor(((now - started) * rate) / 1000) + 1);
    if (next < due) scheduleLag.push(now - (started + (next * 1000) / rate));
    for (; next < due; next++) {
      const w = work[next]!;
      offered++;
      if (inFlight >= maxInFlight) {
        skipped++;
        continue;
      }
      dispatched++;
      submittedAt.set(w.hash, performance.now());
      scheduledAt.set(w.hash, started + (next * 1000) / rate);
      attempt(w, true);
    }
    await sleep(2);
  }
  const sendEndedAt = performance.now();
  const cpuWhileSending = process.cpuUsage(cpuAtStart);
  const drainUntil = sendEndedAt + Number(values.drain) * 1000;
  while ((submittedAt.size > 0 || inFlight > 0 || retrying > 0) && performance.now() < drainUntil) await sleep(20);
  await watcher.stop();

  // Committed TPS over the window in which commits arrived at the pace of the load: from the start
  // of the load to the last matched commit.
  const windowMs = (lastCommitAt || performance.now()) - started;
  // Gaps between commits seen on the first node while the load was sent (a 3-chain commit of
  // several blocks at once is one commit).
  const advances = watcher.advancedAt.filter((at) => at >= started && at <= sendEndedAt);
  const gaps = advances.slice(1).map((at, i) => at - advances[i]!);
  const blocks = watcher.headSeq - startSeq;
  const lagSorted = scheduleLag.sort((a, b) => a - b);
  say({
    phase: 'done',
    offered_tps: rate,
    duration_s: durationMs / 1000,
    transactions: work.length,
    offered,
    dispatched,
    dispatch_tps: Math.round((dispatched / (sendEndedAt - started)) * 1000),
    schedule_lag_ms: { p50: Math.round(lagSorted[Math.floor(lagSorted.length / 2)] ?? 0), max: Math.round(lagSorted.at(-1) ?? 0) },
    /** this process's CPU while it sent: on a machine shared with the nodes, taken from them */
    load_generator_cores: Math.round(((cpuWhileSending.user + cpuWhileSending.system) / 1000 / (sendEndedAt - started)) * 100) / 100,
    skipped_over_in_flight_cap: skipped,
    accepted,
    accepted_tps: Math.round((accepted / ((lastAnswerAt || sendEndedAt) - started)) * 1000),
    busy_refused: busyRefused,
    busy_reasons: busyReasons,
    busy_retried_transactions: busyRetried,
    busy_gave_up: busyGaveUp,
    rejected,
    rejections: errors,
    committed: latencies.length,
    uncommitted_after_drain: submittedAt.size,
    committed_tps: Math.round((latencies.length / windowMs) * 1000),
    first_commit_after_ms: firstCommitAt ? Math.round(firstCommitAt - started) : null,
    blocks,
    blocks_per_s: Math.round((blocks / windowMs) * 1000 * 10) / 10,
    tx_per_block: blocks > 0 ? Math.round(latencies.length / blocks) : null,
    commit_gap_ms: latencySummary(gaps),
    latency_ms: latencySummary(latencies),
    // the same, counted from when the schedule meant to send each transaction: includes this
    // process's own lag (no coordinated omission)
    latency_from_schedule_ms: latencySummary(fromSchedule),
  });
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
