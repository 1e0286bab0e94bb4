import t, { type Test } from 'tap';
import { Registry } from 'prom-client';
import { WebSocket } from 'ws';
import { createLogger } from '../../../node/logging.js';
import { HeadSignal } from '../../../node/plugins/block-stream.js';
import { PluginHost } from '../../../node/plugins/host.js';
import { formatAddress } from '../../../node/protocol/address.js';
import { toHex } from '../../../node/protocol/bytes.js';
import { transactionHash } from '../../../node/protocol/transaction.js';
import { openDatabase, type Database } from '../../../node/state/db.js';
import { createExplorer } from '../../../plugins/explorer/index.js';
import { backends, stopPostgres, type Backend } from './backends.js';
import { VALIDATORS, nextBlock } from '../../fixtures/chain-blocks.js';
import { CHAIN, DID, DID_ID, FUNDER, UNBONDER, funder, setup } from '../../rpc/ledger/harness.js';
import { buildTransfer, signAndEncode } from '../../../node/client/builder.js';
import { UNIT } from '../../../node/protocol/amount.js';

/** The explorer on a real ChainStore (genesis and two blocks of signed transfers), through the plugin host, its index in `backend`. */
async function explorer(t: Test, backend: Backend, db?: Database) {
  const node = await setup(t, { blocks: true });
  const index = await backend.index(t);
  const pluginDb = db ?? (await openDatabase('memory'));
  if (!db) t.teardown(() => pluginDb.close());
  const head = new HeadSignal();
  const metrics = new Registry();
  const start = async () => {
    const host = new PluginHost({ chainId: CHAIN, network: 'testnet', store: node.store, db: pluginDb, mempool: node.mempool, head, metrics, log: createLogger({ level: 'silent' }) });
    t.teardown(() => host.stop());
    const [state] = await host.start([createExplorer({ store: index })], { explorer: { enabled: true, host: '127.0.0.1', port: 0 } });
    const url = (state as { url: string }).url;
    const get = async (path: string) => {
      const res = await fetch(`${url}${path}`);
      return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as Record<string, any> };
    };
    // the indexer catches up from the stream in the background
    for (let i = 0; i < 100 && (await get('/api/v1/blocks')).body.total < (node.store.head()!.seq + 1); i++) await new Promise((r) => setTimeout(r, 20));
    return { host, get, url };
  };
  return { ...node, head, metrics, start };
}

/** The same routes and shapes on every backend of the index. */
for (const backend of backends()) {
  t.test(backend.name, { skip: backend.skip }, async (t) => {
    t.test('blocks: the list wrapper, newest first, string heights, latest, by height with its transactions', async (t) => {
      const { store, start, metrics } = await explorer(t, backend);
      const { get } = await start();
      for (let i = 0; i < 50 && !/^ledger_explorer_next_seq 3$/m.test(await metrics.metrics()); i++) await new Promise((r) => setTimeout(r, 10));
      t.match(await metrics.metrics(), /^ledger_explorer_next_seq 3$/m, 'the progress gauge');
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
      const { store, start } = await explorer(t, backend);
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

    t.test('addresses: one with chain state but no indexed transaction answers 200; unseen 404; malformed 400', async (t) => {
      const { start } = await explorer(t, backend);
      const { get } = await start();
      const funded = await get(`/api/v1/addresses/${formatAddress(FUNDER)}`);
      t.equal(funded.status, 200, 'a genesis account that never sent or received');
      t.same(funded.body, { address: formatAddress(FUNDER), first_seen: null, last_seen: null, tx_count: 0, is_validator: false, did: null, created_at: null, updated_at: null, balance: (1_000n * UNIT).toString(), nonce: '0' });
      const unbonder = await get(`/api/v1/addresses/${formatAddress(UNBONDER)}`);
      t.match(unbonder.body, { tx_count: 0, is_validator: true, balance: '0' }, 'a validator record alone');
      const did = await get(`/api/v1/addresses/${formatAddress(DID_ID)}`);
      t.match(did.body, { tx_count: 0, did: DID, is_validator: false }, 'a DID alone');
      const unseen = await get(`/api/v1/addresses/${formatAddress(new Uint8Array(20).fill(0x77))}`);
      t.equal(unseen.status, 404);
      t.match(unseen.body, { title: 'Not Found' });
      for (const bad of ['abc', '0xdeadbeef', '1111111111111111111111111111', 'l'.repeat(30)]) {
        const r = await get(`/api/v1/addresses/${bad}`);
        t.equal(r.status, 400, bad);
        t.match(r.body, { title: 'Bad Request', detail: /not a base58 address/ });
      }
    });

    t.test('paging: defaults, the cap of 100, and a 400 Problem for bad values', async (t) => {
      const { start } = await explorer(t, backend);
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
      const { store, start } = await explorer(t, backend, db);
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

    t.test('validators: live stake and status with the blocks each proposed; a summary; sort and 404', async (t) => {
      const { start } = await explorer(t, backend);
      const { get } = await start();
      const list = await get('/api/v1/validators');
      t.equal(list.status, 200);
      const proposer = formatAddress(VALIDATORS[0]!.address);
      t.match(list.body, { total: 3, page: 1, limit: 20, summary: { total_validators: 3, active_validators: 2, total_blocks_proposed: 2 } });
      t.equal(list.body.summary.total_staked, (VALIDATORS[0]!.stake + VALIDATORS[1]!.stake + 7n).toString());
      t.match(list.body.data.find((v: { address: string }) => v.address === proposer), { blocks_proposed: 2, active: true, staked: VALIDATORS[0]!.stake.toString(), unbonding: '0' });
      const unbonding = list.body.data.find((v: { address: string }) => v.address === formatAddress(UNBONDER));
      t.match(unbonding, { staked: '7', unbonding: (2n ** 70n + 3n).toString(), reputation: 900, active: false });
      t.same((await get('/api/v1/validators?sort=blocks_proposed')).body.data[0].address, proposer);
      t.equal((await get('/api/v1/validators?sort=age')).status, 400);
      const one = await get(`/api/v1/validators/${proposer}`);
      t.equal(one.body.recent_blocks.length, 2);
      t.equal(one.body.recent_blocks[0].proposer, proposer);
      t.equal((await get(`/api/v1/validators/${formatAddress(new Uint8Array(20).fill(9))}`)).status, 404);
    });

    t.test('POST /txs/broadcast relays a signed transaction to the local mempool, and refuses anything else', async (t) => {
      const { start, mempool } = await explorer(t, backend);
      const { url } = await start();
      const post = async (body: string) => {
        const res = await fetch(`${url}/api/v1/txs/broadcast`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        return { status: res.status, body: (await res.json()) as Record<string, any> };
      };
      const signed = signAndEncode(CHAIN, buildTransfer({ senderPubkey: funder.publicKey, nonce: 0, to: new Uint8Array(20).fill(1), amount: 5n }), funder.seed);
      const ok = await post(JSON.stringify({ tx: signed.json }));
      t.same(ok, { status: 200, body: { tx_hash: signed.hash } });
      t.ok(mempool.has(signed.hash));
      t.match(await post('{"tx": 5}'), { status: 400, body: { detail: /the body is \{"tx"/ } });
      t.match(await post('not json'), { status: 400 });
      t.match(await post(JSON.stringify({ tx: '{"nonce": 1}' })), { status: 400 });
      t.equal((await fetch(`${url}/api/v1/txs/broadcast`)).status, 405, 'GET is not allowed');
    });

    t.test('stats, charts, the address list, search, and time windows', async (t) => {
      const { store, start } = await explorer(t, backend);
      const { get } = await start();
      const net = await get('/api/v1/stats/network');
      const txTotal = (await get('/api/v1/txs')).body.total;
      t.match(net.body, {
        blocks: { total_blocks: 3, latest_height: (await store.blocks.bySeq(2))!.header.height },
        transactions: { total_transactions: txTotal, unique_senders: 1 },
        dids: { total_dids: 0, active_dids: 0 },
        credentials: { total_credentials: 0, active_credentials: 0 },
        validators: { total_validators: 3, active_validators: 2 },
        cached_at: /^\d{4}-/,
      });
      t.equal((await get('/api/v1/stats/network')).body.cached_at, net.body.cached_at, 'served from the 30 s cache');

      const day = await get('/api/v1/stats/charts');
      t.match(day.body, { metric: 'blocks', range: '24h', bucket_ms: 3_600_000 });
      t.equal(day.body.data.length, 24);
      const all = await get('/api/v1/stats/charts?metric=txs&range=30d');
      t.equal(all.body.data.length, 30);
      t.equal((await get('/api/v1/stats/charts?range=7d')).body.data.length, 28);
      t.equal((await get('/api/v1/stats/charts?metric=users')).status, 400);
      t.equal((await get('/api/v1/stats/charts?range=1y')).status, 400);

      const byCount = await get('/api/v1/addresses');
      t.equal(byCount.body.total, byCount.body.data.length);
      const counts = byCount.body.data.map((a: { tx_count: number }) => a.tx_count);
      t.same(counts, [...counts].sort((a, b) => b - a), 'most transactions first');
      t.equal((await get('/api/v1/addresses?sort=first_seen')).body.total, byCount.body.total);
      t.equal((await get('/api/v1/addresses?sort=name')).status, 400);

      const block = (await store.blocks.bySeq(1))!;
      const txHash = transactionHash(CHAIN, block.transactions[0]!);
      t.match((await get(`/api/v1/search?q=${block.header.height}`)).body, { total: 1, data: [{ type: 'block', data: { hash: toHex(block.hash) } }] });
      t.match((await get(`/api/v1/search?q=${toHex(block.hash)}&type=block`)).body, { total: 1, data: [{ type: 'block' }] });
      t.match((await get(`/api/v1/search?q=${txHash}`)).body, { total: 1, data: [{ type: 'transaction', data: { hash: txHash } }] });
      t.match((await get(`/api/v1/search?q=${formatAddress(VALIDATORS[0]!.address)}`)).body, { total: 1, data: [{ type: 'validator', data: { blocks_proposed: 2 } }] });
      t.same((await get('/api/v1/search?q=nothing-here')).body, { data: [], total: 0 });
      t.equal((await get('/api/v1/search')).status, 400, 'q is required');
      t.equal((await get(`/api/v1/search?q=${'x'.repeat(129)}`)).status, 400);
      t.equal((await get('/api/v1/search?q=1&type=planet')).status, 400);

      const ts = block.header.timestampMs;
      t.equal((await get(`/api/v1/txs?from_time=0&to_time=${Number.MAX_SAFE_INTEGER}`)).body.total, txTotal);
      t.equal((await get(`/api/v1/txs?from_time=${ts}&to_time=${ts}`)).body.total, block.transactions.length);
      t.equal((await get(`/api/v1/txs?from_time=${ts}&to_time=${ts}&type=Stake`)).body.total, 0);
      t.equal((await get('/api/v1/txs?from_time=5&to_time=4')).status, 400);
      t.equal((await get('/api/v1/txs?from_time=yesterday')).status, 400);
    });

    t.test('the WebSocket feed at /ws pushes each newly indexed block and its transactions', async (t) => {
      const { store, head, start } = await explorer(t, backend);
      const { url } = await start();
      const ws = new WebSocket(`${url.replace('http', 'ws')}/ws`);
      const messages: Array<{ type: string; data?: Record<string, unknown> }> = [];
      ws.on('message', (d) => messages.push(JSON.parse(d.toString())));
      await new Promise((r) => ws.once('open', r));
      t.teardown(() => ws.terminate());
      ws.send(JSON.stringify({ subscribe: ['blocks', 'transactions'] }));
      const wait = async (n: number) => {
        for (let i = 0; i < 200 && messages.length < n; i++) await new Promise((r) => setTimeout(r, 10));
      };
      await wait(1);
      const commit = await nextBlock(store);
      await store.commitBlock(commit);
      head.committed();
      await wait(2 + commit.block.transactions.length);
      t.same(messages[0], { type: 'subscribed', topics: ['blocks', 'transactions'] });
      t.match(messages[1], { type: 'block', data: { hash: toHex(commit.block.hash), height: String(commit.block.header.height) } });
      t.same(
        messages.slice(2).map((m) => m.data?.hash),
        commit.block.transactions.map((tx) => transactionHash(CHAIN, tx)),
        'then each transaction, in block order',
      );
    });
  });
}
t.teardown(stopPostgres);
