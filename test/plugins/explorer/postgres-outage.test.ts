import t from 'tap';
import pg from 'pg';
import { Registry } from 'prom-client';
import { createLogger } from '../../../node/logging.js';
import { HeadSignal } from '../../../node/plugins/block-stream.js';
import { PluginHost } from '../../../node/plugins/host.js';
import { openDatabase } from '../../../node/state/db.js';
import { postgresMissing, startPostgres } from '../../../bench/lib/servers/postgres.js';
import { createExplorer } from '../../../plugins/explorer/index.js';
import { postgresStore } from '../../../plugins/explorer/store/open.js';
import { nextBlock } from '../../fixtures/chain-blocks.js';
import { CHAIN, setup } from '../../rpc/ledger/harness.js';

/**
 * The explorer on a real Postgres that goes down while it runs (docs/explorer.md, "Index
 * stores"): the routes answer 503 with Retry-After and EXPLORER_POSTGRES_UNAVAILABLE, never a
 * 500; the indexer waits; once the server is back the routes answer again and the index catches
 * up to the chain's head, every block and transaction there exactly once.
 */

const until = async (what: string, check: () => Promise<boolean>, ms = 30_000) => {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting until ${what}`);
};

t.test('Postgres down mid-run: 503s, the indexer waits, and catches up once it is back', { skip: postgresMissing() ?? false }, async (t) => {
  const server = await startPostgres();
  t.teardown(() => server.stop());
  const node = await setup(t, { blocks: true });
  const head = new HeadSignal();
  const db = await openDatabase('memory');
  const host = new PluginHost({ chainId: CHAIN, network: 'testnet', store: node.store, db, mempool: node.mempool, head, metrics: new Registry(), log: createLogger({ level: 'silent' }) });
  t.teardown(async () => {
    await host.stop();
    await db.close();
  });
  const [state] = await host.start([createExplorer({ store: postgresStore(server.url, 1_500), leaseRenewMs: 200, followMs: 100, retryMs: 200 })], { explorer: { enabled: true, host: '127.0.0.1', port: 0 } });
  const base = (state as { url: string }).url;
  const commit = async (n: number) => {
    for (let i = 0; i < n; i++) {
      await node.store.commitBlock(await nextBlock(node.store));
      head.committed();
    }
    return node.store.head()!.seq;
  };
  const total = async () => {
    const res = await fetch(`${base}/api/v1/blocks?limit=1`);
    return res.status === 200 ? ((await res.json()) as { total: number }).total : -1;
  };

  const before = await commit(3);
  await until('the index reaches the head', async () => (await total()) === before + 1);

  await server.halt();
  const behind = await commit(4);
  for (const path of ['/api/v1/blocks', '/api/v1/txs', '/api/v1/stats/network', `/api/v1/blocks/${behind}`, '/api/v1/verifications']) {
    const res = await fetch(`${base}${path}`);
    t.equal(res.status, 503, `${path}: 503 while Postgres is down`);
    t.ok(Number(res.headers.get('retry-after')) >= 1, `${path}: Retry-After ${res.headers.get('retry-after')}`);
    t.match(await res.json(), { status: 503, code: 'EXPLORER_POSTGRES_UNAVAILABLE' }, `${path}: names the engine`);
  }
  // the indexer keeps trying meanwhile; give it a few rounds against the halted server
  await new Promise((r) => setTimeout(r, 1_000));

  await server.resume();
  const last = await commit(2);
  await until('the index catches up after Postgres is back', async () => (await total()) === last + 1);
  t.equal((await fetch(`${base}/api/v1/blocks`)).status, 200, 'the routes answer again');

  const sql = new pg.Client({ connectionString: server.url });
  await sql.connect();
  t.teardown(() => sql.end());
  const q = async (text: string) => (await sql.query<Record<string, string>>(text)).rows;
  t.same(await q('SELECT next_seq::text FROM explorer.index_cursor'), [{ next_seq: String(last + 1) }], 'the cursor is past the head');
  const blocks = await q('SELECT count(*)::text AS n, count(DISTINCT seq)::text AS seqs, min(seq)::text AS lo, max(seq)::text AS hi FROM explorer.blocks');
  t.same(blocks, [{ n: String(last + 1), seqs: String(last + 1), lo: '0', hi: String(last) }], 'every block once, none missing');
  const [txs] = await q('SELECT (SELECT count(*) FROM explorer.transactions)::text AS n, (SELECT count(DISTINCT hash) FROM explorer.transactions)::text AS hashes, (SELECT sum(tx_count) FROM explorer.blocks)::text AS in_blocks');
  t.ok(Number(txs!.n) >= 2 * (last - before), 'the blocks committed while down have their transactions');
  t.same(txs, { n: txs!.in_blocks, hashes: txs!.in_blocks, in_blocks: txs!.in_blocks }, 'every transaction of every block once');
  t.same(await q("SELECT value::text FROM explorer.totals WHERE name = 'blocks'"), [{ value: String(last + 1) }], 'the block total agrees');
});
