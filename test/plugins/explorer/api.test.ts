import t, { type Test } from 'tap';
import { Registry } from 'prom-client';
import { createLogger } from '../../../node/logging.js';
import { HeadSignal } from '../../../node/plugins/block-stream.js';
import { PluginHost } from '../../../node/plugins/host.js';
import { formatAddress } from '../../../node/protocol/address.js';
import { toHex } from '../../../node/protocol/bytes.js';
import { transactionHash } from '../../../node/protocol/transaction.js';
import { openDatabase, type Database } from '../../../node/state/db.js';
import { createExplorer } from '../../../plugins/explorer/index.js';
import { nextBlock } from '../../fixtures/chain-blocks.js';
import { CHAIN, setup } from '../../rpc/ledger/harness.js';

/** The explorer on a real ChainStore (genesis and two blocks of signed transfers), through the plugin host. */
async function explorer(t: Test, db?: Database) {
  const node = await setup(t, { blocks: true });
  const pluginDb = db ?? (await openDatabase('memory'));
  if (!db) t.teardown(() => pluginDb.close());
  const start = async () => {
    const host = new PluginHost({ chainId: CHAIN, network: 'testnet', store: node.store, db: pluginDb, mempool: node.mempool, head: new HeadSignal(), metrics: new Registry(), log: createLogger({ level: 'silent' }) });
    t.teardown(() => host.stop());
    const [state] = await host.start([createExplorer()], { explorer: { enabled: true, host: '127.0.0.1', port: 0 } });
    const url = (state as { url: string }).url;
    const get = async (path: string) => {
      const res = await fetch(`${url}${path}`);
      return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as Record<string, any> };
    };
    // the indexer catches up from the stream in the background
    for (let i = 0; i < 100 && (await get('/api/v1/blocks')).body.total < (node.store.head()!.seq + 1); i++) await new Promise((r) => setTimeout(r, 20));
    return { host, get };
  };
  return { ...node, start };
}

t.test('blocks: the list wrapper, newest first, string heights, latest, by height with its transactions', async (t) => {
  const { store, start } = await explorer(t);
  const { get } = await start();
  const list = await get('/api/v1/blocks');
  t.equal(list.status, 200);
  t.match(list.body, { total: 3, page: 1, limit: 20 });
  const heights = list.body.data.map((b: { height: string }) => b.height);
  const latest = await store.blocks.bySeq(2);
  t.same(heights, [String(latest!.header.height), String((await store.blocks.bySeq(1))!.header.height), '0'], 'newest first; heights are strings');
  t.match(list.body.data[0], { hash: toHex(latest!.hash), tx_count: latest!.transactions.length, timestamp_ms: String(latest!.header.timestampMs), round: String(latest!.header.round), proposer: formatAddress(latest!.header.proposer) });
  t.same((await get('/api/v1/blocks/latest')).body, list.body.data[0]);
  const one = await get(`/api/v1/blocks/${latest!.header.height}`);
  t.equal(one.body.transactions.length, latest!.transactions.length);
  t.match(one.body.transactions[0], { hash: transactionHash(CHAIN, latest!.transactions[0]!), tx_index: 0, type: 'Transfer', status: 'success' });
  const missing = await get('/api/v1/blocks/999999');
  t.equal(missing.status, 404);
  t.match(missing.body, { title: 'Not Found', status: 404, type: /\/404$/ });
  t.match(missing.type, /application\/problem\+json/);
});

t.test('transactions and addresses: detail, filters by type and address, live balance and nonce', async (t) => {
  const { store, start } = await explorer(t);
  const { get } = await start();
  const block = (await store.blocks.bySeq(1))!;
  const tx = block.transactions[0]!;
  const hash = transactionHash(CHAIN, tx);
  const detail = await get(`/api/v1/txs/${hash}`);
  t.match(detail.body, { hash, block_height: block.header.height, tx_index: 0, type: 'Transfer', status: 'success', fee: /^\d+$/, amount: /^\d+$/, timestamp_ms: String(block.header.timestampMs), created_at: /^\d{4}-/ });
  t.equal(typeof detail.body.block_height, 'number');
  t.notOk('error_reason' in detail.body, 'no error_reason on success');
  const all = await get('/api/v1/txs?limit=2');
  t.match(all.body, { page: 1, limit: 2 });
  t.equal(all.body.data.length, 2);
  t.notOk('created_at' in all.body.data[0], 'list rows leave the detail fields out');
  t.equal((await get('/api/v1/txs?type=Transfer')).body.total, all.body.total);
  t.same((await get('/api/v1/txs?type=Stake')).body, { data: [], total: 0, page: 1, limit: 20 });
  const sender = detail.body.sender as string;
  const history = await get(`/api/v1/addresses/${sender}/txs`);
  t.ok(history.body.total >= 1 && history.body.data.every((r: { sender: string; recipient: string }) => r.sender === sender || r.recipient === sender));
  const addr = await get(`/api/v1/addresses/${sender}`);
  t.match(addr.body, { address: sender, tx_count: history.body.total, is_validator: false, did: null, balance: /^\d+$/, nonce: /^\d+$/ });
  t.equal((await get(`/api/v1/txs/${'0'.repeat(64)}`)).status, 404);
  t.equal((await get('/api/v1/addresses/1111111111111111111111111111/txs')).status, 400, 'not an address of 20 bytes');
});

t.test('paging: defaults, the cap of 100, and a 400 Problem for bad values', async (t) => {
  const { start } = await explorer(t);
  const { get } = await start();
  t.match((await get('/api/v1/blocks?page=2&limit=2')).body, { page: 2, limit: 2, total: 3, data: [{ height: '0' }] });
  t.same((await get('/api/v1/blocks?page=9')).body.data, [], 'past the end: empty data, the total still');
  for (const q of ['limit=0', 'limit=101', 'page=0', 'page=-1', 'page=abc', 'limit=1.5']) {
    const r = await get(`/api/v1/blocks?${q}`);
    t.equal(r.status, 400, q);
    t.match(r.body, { title: 'Bad Request', detail: /must be an integer from 1 to/ });
  }
  t.match((await get('/health')).body, { status: 'ok', ts: Number });
});

t.test('a restarted explorer resumes at its cursor: no gap, no duplicate', async (t) => {
  const db = await openDatabase('memory');
  t.teardown(() => db.close());
  const { store, start } = await explorer(t, db);
  const first = await start();
  await first.host.stop();
  await store.commitBlock(await nextBlock(store));
  const second = await start();
  const list = await second.get('/api/v1/blocks?limit=100');
  t.equal(list.body.total, 4);
  t.same(new Set(list.body.data.map((b: { hash: string }) => b.hash)).size, 4, 'each block once');
  const txs = await second.get('/api/v1/txs?limit=100');
  t.equal(txs.body.total, txs.body.data.length);
  t.equal(new Set(txs.body.data.map((r: { hash: string }) => r.hash)).size, txs.body.total);
});
