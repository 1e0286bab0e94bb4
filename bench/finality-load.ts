/**
 * The load generator of bench/finality, run by it as a separate process: funds senders from the
 * dev key, pre-signs transfers, then submits them at a fixed rate (open loop) over JSON-RPC,
 * each sender pinned to one node, and follows commits on the first node. Prints JSON lines:
 * {"phase":"load"} when the measured window starts, then {"phase":"done", ...results}.
 */
import { parseArgs } from 'node:util';
import { RpcClient } from '../node/client/index.js';
import { readKeyFile } from '../node/config/keyfile.js';
import { CommitWatcher, fundSenders, presignTransfers } from './lib/accounts.js';
import { latencySummary } from './lib/stats.js';

const { values } = parseArgs({
  options: {
    rpc: { type: 'string' },
    'dev-key': { type: 'string' },
    rate: { type: 'string', default: '500' },
    duration: { type: 'string', default: '30' },
    senders: { type: 'string', default: '200' },
    'max-in-flight': { type: 'string', default: '4000' },
  },
});
const urls = values.rpc!.split(',');
const rate = Number(values.rate);
const durationMs = Number(values.duration) * 1000;
const maxInFlight = Number(values['max-in-flight']);
const clients = urls.map((u) => new RpcClient(u));
const say = (o: object) => process.stdout.write(JSON.stringify(o) + '\n');

async function main(): Promise<void> {
  const main = clients[0]!;
  const { chain_id: chainId } = await main.chainInfo();
  const dev = await readKeyFile(values['dev-key']!);
  const senders = await fundSenders(main, chainId, dev, Number(values.senders));
  const work = presignTransfers(chainId, senders, dev.address, Math.ceil((rate * durationMs) / 1000));

  const submitted = new Map<string, number>();
  const latencies: number[] = [];
  let lastCommitAt = 0;
  const watcher = new CommitWatcher(main, (hash, at) => {
    const t0 = submitted.get(hash);
    if (t0 === undefined) return;
    submitted.delete(hash);
    latencies.push(at - t0);
    lastCommitAt = at;
  });
  await watcher.start();
  const startSeq = watcher.headSeq;
  say({ phase: 'load' });

  let sent = 0;
  let inFlight = 0;
  let rejected = 0;
  let skipped = 0;
  const errors: Record<string, number> = {};
  const started = performance.now();
  while (sent < work.length) {
    const due = Math.min(work.length, Math.floor(((performance.now() - started) * rate) / 1000));
    while (sent < due) {
      const w = work[sent++]!;
      if (inFlight >= maxInFlight) {
        skipped++; // the node is not keeping up with the offered rate
        continue;
      }
      inFlight++;
      submitted.set(w.hash, performance.now());
      clients[w.sender % clients.length]!.sendTransaction(w.json).then(
        () => inFlight--,
        (err: { data?: { code?: string }; message?: string }) => {
          inFlight--;
          rejected++;
          submitted.delete(w.hash);
          const code = err.data?.code ?? err.message ?? 'error';
          errors[code] = (errors[code] ?? 0) + 1;
        },
      );
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  const submitMs = performance.now() - started;
  const drainUntil = performance.now() + 30_000;
  while ((submitted.size > 0 || inFlight > 0) && performance.now() < drainUntil) await new Promise((r) => setTimeout(r, 20));
  await watcher.stop();
  const windowMs = (lastCommitAt || performance.now()) - started;
  say({
    phase: 'done',
    offered_tps: rate,
    submitted: sent - skipped,
    submit_tps: Math.round(((sent - skipped) / submitMs) * 1000),
    skipped_over_in_flight_cap: skipped,
    rejected,
    rejections: errors,
    committed: latencies.length,
    uncommitted_after_drain: submitted.size,
    committed_tps: Math.round((latencies.length / windowMs) * 1000),
    blocks: watcher.headSeq - startSeq,
    blocks_per_s: Math.round(((watcher.headSeq - startSeq) / windowMs) * 1000 * 10) / 10,
    latency_ms: latencySummary(latencies),
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
