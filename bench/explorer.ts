/**
 * bench/explorer: the explorer plugin over a chain of more than 100k transactions in a real
 * LevelDB (temp dir). The chain is written straight into the store (signed transfers with their
 * receipts; no consensus, which is not what this measures). Reports:
 * - catch-up indexing, blocks/s and tx/s, for small blocks (1 transaction) and for 100-transaction
 *   blocks, through the same stream and indexer the plugin runs;
 * - REST latency of an address's history at deep pages (p50/p95), over HTTP;
 * - WebSocket push latency from a block's commit to a subscribed client receiving it (p50/p99).
 *
 *   npm run bench:explorer -- [--small-blocks 2000] [--big-blocks 1000] [--txs-per-block 100]
 *
 * Prints a table and writes bench/results/explorer.json. Targets are reported, not enforced.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { WebSocket } from 'ws';
import { HeadSignal, committedBlocks } from '../node/plugins/block-stream.js';
import type { ChainStore } from '../node/state/chain-store.js';
import type { Database } from '../node/state/db.js';
import { indexBlocks, Indexer } from '../plugins/explorer/indexer.js';
import { BenchChain, CHAIN_OPTIONS } from './lib/explorer-chain.js';
import { latencySummary, machine, percentile } from './lib/stats.js';

const { values } = parseArgs({
  options: {
    ...CHAIN_OPTIONS,
    samples: { type: 'string', default: '200' },
    out: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log('npm run bench:explorer -- [--small-blocks 2000] [--big-blocks 1000] [--txs-per-block 100] [--senders 50] [--samples 200] [--out <file>]');
  process.exit(0);
}
const root = fileURLToPath(new URL('../..', import.meta.url));
const TARGETS = { catch_up_small_blocks_per_s: 2000, rest_deep_page_p95_ms: 50, ws_push_p99_ms: 100 };
/** Indexes from the indexer's cursor up to `upTo` (a seq) and returns blocks/s and tx/s. */
async function catchUp(store: ChainStore, db: Database, upTo: number) {
  const indexer = new Indexer({ store: db.pluginStore('explorer'), network: 'testnet', credential: () => Promise.resolve(undefined) });
  const from = await indexer.cursor();
  const abort = new AbortController();
  let txs = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  const stream = committedBlocks(store, new HeadSignal(), from, abort.signal);
  // as the plugin indexes: in groups while behind
  await indexBlocks(indexer, stream, (seq) => seq < upTo, (indexed, next) => {
    txs += indexed.txs.length;
    if (next > upTo) abort.abort();
  });
  const seconds = (performance.now() - started) / 1000;
  // CPU of the whole process (LevelDB's threads too): on a shared machine it varies less than the wall time
  const used = process.cpuUsage(cpu);
  const blocks = upTo - from + 1;
  return { blocks, txs, seconds: Math.round(seconds * 100) / 100, cpu_seconds: Math.round((used.user + used.system) / 1e4) / 100, blocks_per_s: Math.round(blocks / seconds), txs_per_s: Math.round(txs / seconds) };
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'ledger-bench-explorer-'));
  const load = loadavg()[0];
  const chain = await BenchChain.open(dir, Number(values.senders));
  const { db, store } = chain;
  try {
    const small = Number(values['small-blocks']);
    const big = Number(values['big-blocks']);
    const per = Number(values['txs-per-block']);
    const { smallTop, top } = await chain.build(small, big, per);

    const smallRun = await catchUp(store, db, smallTop);
    // --big-blocks 0 measures the small blocks on a chain of nothing else
    const bigRun = top > smallTop ? await catchUp(store, db, top) : null;

    const { url, head, stop } = await chain.startExplorer();
    try {
      const address = chain.address(0);
      const first = (await (await fetch(`${url}/api/v1/addresses/${address}/txs?limit=100`)).json()) as { total: number };
      const pages = Math.ceil(first.total / 100);
      const rest: number[] = [];
      for (let i = 0; i < Number(values.samples); i++) {
        const page = pages - (i % Math.max(1, Math.min(5, pages)));
        const t0 = performance.now();
        const res = await fetch(`${url}/api/v1/addresses/${address}/txs?limit=100&page=${page}`);
        await res.json();
        rest.push(performance.now() - t0);
      }

      const ws = new WebSocket(`${url.replace('http', 'ws')}/ws`);
      await new Promise((r) => ws.once('open', r));
      ws.send(JSON.stringify({ subscribe: ['blocks'] }));
      await new Promise((r) => ws.once('message', r));
      const push: number[] = [];
      for (let i = 0; i < Number(values.samples); i++) {
        const got = new Promise<void>((r) => {
          const onMessage = (d: Buffer) => {
            if ((JSON.parse(d.toString()) as { type: string }).type !== 'block') return;
            ws.off('message', onMessage);
            r();
          };
          ws.on('message', onMessage);
        });
        await chain.commit(1);
        const t0 = performance.now();
        head.committed();
        await got;
        push.push(performance.now() - t0);
      }
      ws.terminate();

      const result = {
        bench: 'explorer',
        chain: { blocks: top + 1, transactions: chain.txCount, small_blocks: small, big_blocks: big, txs_per_big_block: per },
        catch_up_small_blocks: smallRun,
        catch_up_big_blocks: bigRun,
        rest_address_history_deep_pages_ms: { ...latencySummary(rest), p95: Math.round(percentile([...rest].sort((a, b) => a - b), 95)), pages, limit: 100 },
        ws_push_after_commit_ms: { ...latencySummary(push), samples: push.length },
        targets: TARGETS,
        machine: { ...machine(), loadavg_1m_before: load },
        at: new Date().toISOString(),
      };
      console.table([
        { figure: 'catch-up, 1-tx blocks', value: `${smallRun.blocks_per_s} blocks/s, ${smallRun.txs_per_s} tx/s`, target: '≥ 2,000 blocks/s' },
        { figure: `catch-up, ${per}-tx blocks`, value: bigRun ? `${bigRun.blocks_per_s} blocks/s, ${bigRun.txs_per_s} tx/s` : 'none', target: '' },
        { figure: `REST address history, deep pages (${pages} of 100)`, value: `p50 ${result.rest_address_history_deep_pages_ms.p50} ms, p95 ${result.rest_address_history_deep_pages_ms.p95} ms`, target: 'p95 ≤ 50 ms' },
        { figure: 'WS push after commit', value: `p50 ${result.ws_push_after_commit_ms.p50} ms, p99 ${result.ws_push_after_commit_ms.p99} ms`, target: 'p99 ≤ 100 ms' },
      ]);
      const out = values.out ?? join(root, 'bench/results/explorer.json');
      await mkdir(join(out, '..'), { recursive: true });
      await writeFile(out, JSON.stringify(result, null, 1) + '\n');
      console.log(`wrote ${out}`);
    } finally {
      await stop();
    }
  } finally {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
