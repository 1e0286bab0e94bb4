/**
 * bench/explorer: the explorer plugin over a chain of more than 100k transactions in a real
 * LevelDB (temp dir). The chain is written straight into the store (signed transfers with their
 * receipts; no consensus, which is not what this measures). For each index store asked for
 * (`--store`, a comma-separated list of leveldb, pglite and postgres; default leveldb,pglite, so
 * that one run compares them under the same load), it reports:
 * - catch-up indexing, blocks/s and tx/s, for small blocks (1 transaction) and for 100-transaction
 *   blocks, through the same stream and indexer the plugin runs;
 * - REST latency of an address's history at deep pages (p50/p95), over HTTP;
 * - WebSocket push latency from a block's commit to a subscribed client receiving it (p50/p99).
 *
 *   npm run bench:explorer -- [--store leveldb,pglite,postgres] [--small-blocks 2000] [--big-blocks 1000] [--txs-per-block 100]
 *
 * PGlite keeps its files in the temp dir; postgres is a throwaway server (bench/lib/servers/
 * postgres.ts, fsync off like the other two, which do not sync either), skipped with the reason
 * when its binaries are absent. Prints a table and writes bench/results/explorer.json, with the
 * load average before and after each store's run. Targets are reported, not enforced.
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
import { migrate } from '../plugins/common/sql/migrate.js';
import { openPglite } from '../plugins/common/sql/pglite.js';
import { openPostgres } from '../plugins/common/sql/postgres.js';
import type { SqlDatabase } from '../plugins/common/sql/types.js';
import { indexBlocks } from '../plugins/explorer/indexing.js';
import { Indexer } from '../plugins/explorer/store/level/indexer.js';
import { levelStore, pgliteStore, postgresStore, STORES, type StoreFactory, type StoreKind } from '../plugins/explorer/store/open.js';
import { EXPLORER_MIGRATIONS } from '../plugins/explorer/store/sql/schema.js';
import { SqlIndexer } from '../plugins/explorer/store/sql/writer.js';
import type { IndexWriter } from '../plugins/explorer/store/types.js';
import { postgresMissing, startPostgres, type PostgresServer } from './lib/servers/postgres.js';
import { BenchChain, CHAIN_OPTIONS } from './lib/explorer-chain.js';
import { latencySummary, machine, percentile } from './lib/stats.js';

const { values } = parseArgs({
  options: {
    ...CHAIN_OPTIONS,
    store: { type: 'string', default: 'leveldb,pglite' },
    samples: { type: 'string', default: '200' },
    out: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log('npm run bench:explorer -- [--store leveldb,pglite,postgres] [--small-blocks 2000] [--big-blocks 1000] [--txs-per-block 100] [--senders 50] [--samples 200] [--out <file>]');
  process.exit(0);
}
const root = fileURLToPath(new URL('../..', import.meta.url));
const TARGETS = { catch_up_small_blocks_per_s: 2000, rest_deep_page_p95_ms: 50, ws_push_p99_ms: 100 };
const stores = values.store.split(',').map((s) => s.trim());
for (const s of stores) if (!(STORES as readonly string[]).includes(s)) throw new Error(`--store takes ${STORES.join(', ')}, comma-separated; got ${s}`);

/** One store's index for this run: the writer the bench drives, and the factory the plugin opens it with after. */
interface BenchStore {
  kind: StoreKind;
  writer: IndexWriter;
  factory: StoreFactory;
  /** closes the bench's own handle (the plugin opens its own) */
  release(): Promise<void>;
}

async function openStore(kind: StoreKind, db: Database, dir: string, pgServer: () => Promise<PostgresServer>): Promise<BenchStore> {
  const credential = () => Promise.resolve(undefined);
  if (kind === 'leveldb') return { kind, writer: new Indexer({ store: db.pluginStore('explorer'), network: 'testnet', credential }), factory: levelStore(), release: async () => {} };
  let sql: SqlDatabase;
  let factory: StoreFactory;
  if (kind === 'pglite') {
    const where = join(dir, 'explorer-pglite');
    sql = await openPglite(where, { unavailableCode: 'BENCH_PGLITE' });
    factory = pgliteStore(where);
  } else {
    const url = (await pgServer()).url;
    sql = openPostgres(url, { unavailableCode: 'BENCH_POSTGRES' });
    factory = postgresStore(url);
  }
  await migrate(sql, 'explorer', EXPLORER_MIGRATIONS);
  return { kind, writer: new SqlIndexer({ db: sql, network: 'testnet', credential }), factory, release: () => sql.close() };
}

/** Indexes from the indexer's cursor up to `upTo` (a seq) and returns blocks/s and tx/s. */
async function catchUp(store: ChainStore, indexer: IndexWriter, upTo: number) {
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
  let server: Promise<PostgresServer> | undefined;
  const pgServer = () => (server ??= startPostgres());
  try {
    const small = Number(values['small-blocks']);
    const big = Number(values['big-blocks']);
    const per = Number(values['txs-per-block']);
    const { smallTop, top } = await chain.build(small, big, per);
    // the first store measured would otherwise also pay for warming up the stream and the row building
    await catchUp(store, new Indexer({ store: db.pluginStore('explorer-warm-up'), network: 'testnet', credential: () => Promise.resolve(undefined) }), Math.min(500, smallTop));
    const runs: Record<string, unknown>[] = [];
    const table: Record<string, string>[] = [];
    const skipped: Record<string, string> = {};

    for (const kind of stores as StoreKind[]) {
      const missing = kind === 'postgres' ? postgresMissing() : undefined;
      if (missing) {
        console.log(`postgres skipped: ${missing}`);
        skipped[kind] = missing;
        continue;
      }
      const loadBefore = loadavg()[0];
      const s = await openStore(kind, db, dir, pgServer);
      const smallRun = await catchUp(store, s.writer, smallTop);
      // --big-blocks 0 measures the small blocks on a chain of nothing else
      const bigRun = top > smallTop ? await catchUp(store, s.writer, top) : null;
      await s.release();

      const { url, head, stop } = await chain.startExplorer(s.factory);
      try {
        // an earlier store's run committed more blocks: let this index catch up before measuring reads
        for (let i = 0; i < 600; i++) {
          const indexed = ((await (await fetch(`${url}/api/v1/blocks?limit=1`)).json()) as { total: number }).total;
          if (indexed > chain.store.head()!.seq) break;
          await new Promise((r) => setTimeout(r, 50));
        }
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
        const restMs = { ...latencySummary(rest), p95: Math.round(percentile([...rest].sort((a, b) => a - b), 95)), pages, limit: 100 };
        const pushMs = { ...latencySummary(push), samples: push.length };
        runs.push({ store: kind, catch_up_small_blocks: smallRun, catch_up_big_blocks: bigRun, rest_address_history_deep_pages_ms: restMs, ws_push_after_commit_ms: pushMs, loadavg_1m_before: loadBefore, loadavg_1m_after: loadavg()[0] });
        table.push(
          { store: kind, figure: 'catch-up, 1-tx blocks', value: `${smallRun.blocks_per_s} blocks/s, ${smallRun.txs_per_s} tx/s`, target: '≥ 2,000 blocks/s' },
          { store: kind, figure: `catch-up, ${per}-tx blocks`, value: bigRun ? `${bigRun.blocks_per_s} blocks/s, ${bigRun.txs_per_s} tx/s` : 'none', target: '' },
          { store: kind, figure: `REST address history, deep pages (${pages} of 100)`, value: `p50 ${restMs.p50} ms, p95 ${restMs.p95} ms`, target: 'p95 ≤ 50 ms' },
          { store: kind, figure: 'WS push after commit', value: `p50 ${pushMs.p50} ms, p99 ${pushMs.p99} ms`, target: 'p99 ≤ 100 ms' },
        );
      } finally {
        await stop();
      }
    }

    const rate = (k: string) => (runs.find((r) => r.store === k)?.catch_up_small_blocks as { blocks_per_s: number } | undefined)?.blocks_per_s;
    const ratio = (k: string) => (rate(k) && rate('leveldb') ? Math.round((rate(k)! / rate('leveldb')!) * 100) / 100 : null);
    const result = {
      bench: 'explorer',
      chain: { blocks: chain.store.head()!.seq + 1, transactions: chain.txCount, small_blocks: small, big_blocks: big, txs_per_big_block: per },
      runs,
      skipped,
      small_blocks_rate_vs_leveldb: Object.fromEntries(['pglite', 'postgres'].filter((k) => rate(k) !== undefined).map((k) => [k, ratio(k)])),
      targets: TARGETS,
      machine: { ...machine(), loadavg_1m_before: load, loadavg_1m_after: loadavg()[0] },
      at: new Date().toISOString(),
    };
    console.table(table);
    for (const [k, r] of Object.entries(result.small_blocks_rate_vs_leveldb)) console.log(`${k}: ${r} × LevelDB's catch-up rate on 1-tx blocks`);
    const out = values.out ?? join(root, 'bench/results/explorer.json');
    await mkdir(join(out, '..'), { recursive: true });
    await writeFile(out, JSON.stringify(result, null, 1) + '\n');
    console.log(`wrote ${out}`);
  } finally {
    await db.close();
    if (server) await (await server).stop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
