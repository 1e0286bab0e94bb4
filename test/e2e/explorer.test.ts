import t from 'tap';
import { buildTransfer, RpcClient, signAndEncode, waitForReceipt } from '../../node/client/index.js';
import { generateAccountKey } from '../../node/config/keyfile.js';
import { freePortRange } from '../../node/devnet/ports.js';
import { devKey, runCli, startNodeProcess, tempDataDir } from './harness.js';

/**
 * The explorer on a real node process: it catches up on a chain it has not indexed, is killed
 * with SIGKILL in the middle, and resumes from its cursor with no gap and no duplicate; then
 * `ledger reindex explorer` drops its index and the next start rebuilds the same one.
 */

t.test('kill -9 during catch-up, restart, reindex: the index always matches the chain', async (t) => {
  const dir = await tempDataDir(t);
  const first = await startNodeProcess(t, dir, { logLevel: 'warn' });
  let rpc = new RpcClient(first.url);
  const dev = await devKey(dir);
  const { chain_id: chainId } = await rpc.chainInfo();
  let last = '';
  for (let nonce = 0; nonce < 60; nonce++) {
    const s = signAndEncode(chainId, buildTransfer({ senderPubkey: dev.publicKey, nonce, to: generateAccountKey('testnet').address, amount: 1n }), dev.seed);
    last = await rpc.sendTransaction(s.json);
    if (nonce % 10 === 9) await waitForReceipt(rpc, last, { timeoutMs: 20_000 });
  }
  await waitForReceipt(rpc, last, { timeoutMs: 20_000 });
  await first.stop();

  const port = await freePortRange(1);
  const explorer = `http://127.0.0.1:${port}`;
  const get = async (path: string) => (await (await fetch(`${explorer}${path}`)).json()) as Record<string, any>;
  const caughtUp = async (node: { url: string }) => {
    const head = (await new RpcClient(node.url).canonHead())!.seq;
    for (let i = 0; i < 300; i++) {
      if (((await get('/api/v1/blocks').catch(() => ({ total: 0 }))).total as number) > head) return head;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('the explorer did not catch up');
  };
  /** Every committed transaction once, and each block once. */
  const consistent = async (head: number, what: string) => {
    const blocks = await get('/api/v1/blocks?limit=100');
    const txs = await get('/api/v1/txs?limit=100');
    let committed = 0;
    for (let seq = 1; seq <= head; seq++) committed += (await rpc.getBlockBySeq(seq))?.tx_count ?? 0;
    t.equal(blocks.total, head + 1, `${what}: every block`);
    t.equal(new Set(blocks.data.map((b: { hash: string }) => b.hash)).size, Math.min(100, head + 1), `${what}: no block twice`);
    t.equal(txs.total, committed, `${what}: every transaction`);
    t.equal(new Set(txs.data.map((r: { hash: string }) => r.hash)).size, Math.min(100, committed), `${what}: no transaction twice`);
  };

  const crashed = await startNodeProcess(t, dir, { logLevel: 'warn', explorerPort: port });
  await new Promise((r) => setTimeout(r, 150));
  await crashed.kill9();

  const again = await startNodeProcess(t, dir, { logLevel: 'warn', explorerPort: port });
  rpc = new RpcClient(again.url);
  await consistent(await caughtUp(again), 'after kill -9');
  await again.stop();

  const reindex = await runCli(['reindex', 'explorer', '--data-dir', dir]);
  t.equal(reindex.code, 0, reindex.stderr);
  t.match(JSON.parse(reindex.stdout), { plugin: 'explorer', deleted_keys: Number });
  const rebuilt = await startNodeProcess(t, dir, { logLevel: 'warn', explorerPort: port });
  rpc = new RpcClient(rebuilt.url);
  await consistent(await caughtUp(rebuilt), 'after reindex');
  await rebuilt.stop();
  const usage = await runCli(['reindex']);
  t.equal(usage.code, 2, 'reindex needs a plugin name');
});
