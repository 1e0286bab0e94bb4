/**
 * bench/throughput: submits N signed transfers from many accounts to a running node and measures
 * throughput and latency from submission to commit (the moment the block holding the transaction
 * is seen at the node's canonical head, polled every 10 ms).
 *
 *   npm run bench:throughput -- --rpc http://127.0.0.1:8545 --data-dir ./data --txs 2000 --accounts 50
 *
 * The funding key is <data-dir>/keys/dev.json (written by `ledger init`). Prints a table and writes
 * bench/results/throughput.json.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { RpcClient } from '../node/client/index.js';
import { readKeyFile } from '../node/config/keyfile.js';
import { fundSenders, presignTransfers } from './lib/accounts.js';
import { latencySummary, machine, pool } from './lib/stats.js';

const { values } = parseArgs({
  options: {
    rpc: { type: 'string', default: 'http://127.0.0.1:8545' },
    'data-dir': { type: 'string', default: './data' },
    txs: { type: 'string', default: '2000' },
    accounts: { type: 'string', default: '50' },
    concurrency: { type: 'string', default: '32' },
    out: { type: 'string', default: 'bench/results/throughput.json' },
  },
});
const total = Number(values.txs);
const accounts = Number(values.accounts);
const concurrency = Number(values.concurrency);
const client = new RpcClient(values.rpc!);

async function main(): Promise<void> {
  const { chain_id: chainId } = await client.chainInfo();
  const dev = await readKeyFile(join(values['data-dir']!, 'keys', 'dev.json'));
  const senders = await fundSenders(client, chainId, dev, accounts);

  // Pre-sign everything so that signing does not count against the node.
  const work = presignTransfers(chainId, senders, dev.address, total);

  const submitted = new Map<string, number>();
  const latencies: number[] = [];
  let seq = (await client.canonHead())!.seq;
  let done = false;
  const watcher = (async () => {
    while (!done) {
      const head = (await client.canonHead())!;
      while (seq < head.seq) {
        const block = await client.getBlockBySeq(++seq);
        const seen = performance.now();
        for (const h of block?.transactions ?? []) {
          const at = submitted.get(h);
          if (at !== undefined) latencies.push(seen - at);
        }
      }
      if (latencies.length >= work.length) break;
      await new Promise((r) => setTimeout(r, 10));
    }
  })();

  const started = performance.now();
  let rejected = 0;
  await pool(work, concurrency, async (w) => {
    submitted.set(w.hash, performance.now());
    try {
      await client.sendTransaction(w.json);
    } catch {
      rejected++;
      submitted.delete(w.hash);
    }
  });
  const submitMs = performance.now() - started;
  const deadline = Date.now() + 120_000;
  while (latencies.length < submitted.size && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  done = true;
  await watcher;
  const elapsed = performance.now() - started;
  const result = {
    date: new Date().toISOString(),
    machine: machine(),
    transactions: work.length,
    senders: accounts,
    concurrency,
    rejected,
    committed: latencies.length,
    submit_tps: Math.round((work.length / submitMs) * 1000),
    committed_tps: Math.round((latencies.length / elapsed) * 1000),
    latency_ms: latencySummary(latencies),
  };
  console.table({
    transactions: result.transactions,
    committed: result.committed,
    rejected: result.rejected,
    'submitted tx/s': result.submit_tps,
    'committed tx/s': result.committed_tps,
    'p50 ms': result.latency_ms.p50,
    'p90 ms': result.latency_ms.p90,
    'p99 ms': result.latency_ms.p99,
  });
  await mkdir('bench/results', { recursive: true });
  await writeFile(values.out!, JSON.stringify(result, null, 2) + '\n');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
