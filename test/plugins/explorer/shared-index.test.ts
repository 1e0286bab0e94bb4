import t, { type Test } from 'tap';
import pg from 'pg';
import { Registry } from 'prom-client';
import { WebSocket } from 'ws';
import { createLogger } from '../../../node/logging.js';
import { HeadSignal } from '../../../node/plugins/block-stream.js';
import { PluginHost } from '../../../node/plugins/host.js';
import { openDatabase } from '../../../node/state/db.js';
import { LedgerError } from '../../../node/errors.js';
import { migrate } from '../../../plugins/common/sql/migrate.js';
import { openPostgres } from '../../../plugins/common/sql/postgres.js';
import { createExplorer } from '../../../plugins/explorer/index.js';
import { postgresStore } from '../../../plugins/explorer/store/open.js';
import { EXPLORER_MIGRATIONS } from '../../../plugins/explorer/store/sql/schema.js';
import { INDEX_MOVED, SqlIndexer } from '../../../plugins/explorer/store/sql/writer.js';
import { postgresMissing } from '../../../bench/lib/servers/postgres.js';
import { nextBlock } from '../../fixtures/chain-blocks.js';
import { CHAIN, setup } from '../../rpc/ledger/harness.js';
import { postgresDatabase, stopPostgres } from './backends.js';

/**
 * Several explorer instances on one Postgres index (docs/explorer.md, "Several instances"): one
 * holds the writer lease and indexes, the others serve the same answers and push what it indexed
 * to their own feeds; when the writer stops, or dies and its lease lapses, another takes over.
 * Whatever the lease says, a batch that finds the cursor moved is refused.
 */

const TTL_MS = 1_500;
const until = async (what: string, check: () => Promise<boolean>, ms = 15_000) => {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting until ${what}`);
};

async function instances(t: Test, url: string) {
  const node = await setup(t, { blocks: true });
  const head = new HeadSignal();
  const start = async () => {
    const db = await openDatabase('memory');
    const host = new PluginHost({ chainId: CHAIN, network: 'testnet', store: node.store, db, mempool: node.mempool, head, metrics: new Registry(), log: createLogger({ level: 'silent' }) });
    let stopped = false;
    const stop = async () => {
      if (stopped) return;
      stopped = true;
      await host.stop();
      await db.close();
    };
    t.teardown(stop);
    const [state] = await host.start([createExplorer({ store: postgresStore(url, TTL_MS), leaseRenewMs: 200, followMs: 100 })], { explorer: { enabled: true, host: '127.0.0.1', port: 0 } });
    const base = (state as { url: string }).url;
    const get = async (path: string) => (await (await fetch(`${base}${path}`)).json()) as Record<string, any>;
    return { url: base, get, stop };
  };
  const sql = new pg.Client({ connectionString: url });
  await sql.connect();
  t.teardown(() => sql.end());
  const holder = async () => (await sql.query<{ holder: string | null; live: boolean }>('SELECT holder, expires_at > now() AS live FROM explorer.index_writer')).rows[0]!;
  const commit = async () => {
    await node.store.commitBlock(await nextBlock(node.store));
    head.committed();
    return node.store.head()!.seq;
  };
  return { node, start, holder, commit, sql };
}

t.test('two instances: one writes, both answer alike, the reader feeds live blocks, and takes over when the writer stops', { skip: postgresMissing() ?? false }, async (t) => {
  const url = await postgresDatabase();
  const { start, holder, commit, node } = await instances(t, url);
  const a = await start();
  const b = await start();
  const indexed = async (x: typeof a, seq: number) => ((await x.get('/api/v1/blocks?limit=1')).total as number) > seq;
  await until('the index catches up', () => indexed(a, node.store.head()!.seq));
  const first = await holder();
  t.ok(first.live && first.holder !== null, 'one instance holds the lease');
  t.same(await b.get('/api/v1/blocks'), await a.get('/api/v1/blocks'), 'both instances answer from the one index');
  t.same(await b.get('/api/v1/txs'), await a.get('/api/v1/txs'));

  // both feeds see a new block, whichever instance wrote it
  const subscribe = async (base: string) => {
    const ws = new WebSocket(`${base.replace('http', 'ws')}/ws`);
    const blocks: string[] = [];
    ws.on('message', (d) => {
      const m = JSON.parse(d.toString()) as { type: string; data?: { height: string } };
      if (m.type === 'block') blocks.push(m.data!.height);
    });
    await new Promise((r) => ws.once('open', r));
    t.teardown(() => ws.terminate());
    ws.send(JSON.stringify({ subscribe: ['blocks'] }));
    await new Promise((r) => ws.once('message', r));
    return blocks;
  };
  const [fromA, fromB] = [await subscribe(a.url), await subscribe(b.url)];
  const seq = await commit();
  const height = String(node.store.head()!.height);
  await until('both feeds push the block', async () => fromA.includes(height) && fromB.includes(height));
  t.same([fromA, fromB], [[height], [height]], 'each feed pushes it once');

  t.ok(await indexed(b, seq), 'the reader answers the new block too');

  // a took the lease in its start, before b started: it stops and releases it, and b indexes on
  await a.stop();
  const next = await commit();
  await until('the remaining instance indexes the next block', () => indexed(b, next));
  const second = await holder();
  t.ok(second.live && second.holder !== null, 'the lease is held again');
  const blocks = await b.get('/api/v1/blocks?limit=100');
  t.equal(blocks.total, next + 1, 'every block once');
  t.equal(new Set(blocks.data.map((x: { hash: string }) => x.hash)).size, next + 1);
});

t.test("a writer that dies keeps the lease until it lapses; then another instance takes over", { skip: postgresMissing() ?? false }, async (t) => {
  const url = await postgresDatabase();
  const db = openPostgres(url, { unavailableCode: 'TEST' });
  t.teardown(() => db.close());
  await migrate(db, 'explorer', EXPLORER_MIGRATIONS);
  // a writer that died just after renewing: its lease runs on
  await db.query("UPDATE explorer.index_writer SET holder = 'dead-instance', expires_at = now() + interval '2 seconds'");
  const { start, holder, node } = await instances(t, url);
  const b = await start();
  const started = Date.now();
  await new Promise((r) => setTimeout(r, 500));
  t.equal((await b.get('/api/v1/blocks')).total, 0, 'nothing is indexed while the dead instance holds the lease');
  t.equal((await holder()).holder, 'dead-instance');
  await until('the lease lapses and the instance indexes', async () => ((await b.get('/api/v1/blocks')).total as number) > node.store.head()!.seq);
  t.ok(Date.now() - started >= 1_000, 'not before the lease ran out');
  t.not((await holder()).holder, 'dead-instance');
});

t.test('a batch that finds the cursor moved by another writer is refused and writes nothing', { skip: postgresMissing() ?? false }, async (t) => {
  const url = await postgresDatabase();
  const db = openPostgres(url, { unavailableCode: 'TEST' });
  t.teardown(() => db.close());
  await migrate(db, 'explorer', EXPLORER_MIGRATIONS);
  const node = await setup(t, { blocks: true });
  const blocks = [];
  for await (const c of (await import('../../../node/plugins/block-stream.js')).committedBlocks(node.store, new HeadSignal(), 0, AbortSignal.timeout(5_000))) {
    blocks.push(c);
    if (c.seq === node.store.head()!.seq) break;
  }
  const deps = { db, network: 'testnet', credential: () => Promise.resolve(undefined) };
  const [one, two] = [new SqlIndexer(deps), new SqlIndexer(deps)];
  t.equal(await two.cursor(), 0, 'both start at seq 0');
  await one.applyAll(blocks);
  const refused = await two.applyAll(blocks).catch((err: unknown) => err);
  t.ok(refused instanceof LedgerError && refused.code === INDEX_MOVED, 'the second writer is refused');
  t.equal(Number((await db.query('SELECT count(*) AS n FROM explorer.blocks')).rows[0]!.n), blocks.length, 'each block once');
  t.equal(await two.cursor(), blocks.length, 'the refused writer reads the cursor again');
});

t.teardown(stopPostgres);
