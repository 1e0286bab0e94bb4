import t from 'tap';
import { createServer } from 'node:net';
import { WebSocket } from 'ws';
import { createAccount, feedUrl, RpcClient, subscribeBlocks, type ExplorerBlock } from '../../node/client/core.js';
import { generateAccountKey } from '../../node/config/keyfile.js';
import { createExplorer } from '../../plugins/explorer/index.js';
import { startTestNode } from '../fixtures/real-node.js';

const ROW_FIELDS = ['created_at', 'hash', 'height', 'parent_hash', 'proposer', 'round', 'state_root', 'timestamp_ms', 'tx_count'];

t.test("subscribeBlocks: a real node's explorer feed delivers the block of a transfer, then closes cleanly", async (t) => {
  const node = await startTestNode(t, { plugins: [createExplorer()] });
  const explorerUrl = (node.plugins[0] as { url: string }).url;
  const client = new RpcClient(node.url);
  const seen: ExplorerBlock[] = [];
  let want: string | undefined;
  let found!: (b: ExplorerBlock) => void;
  const arrived = new Promise<ExplorerBlock>((resolve) => (found = resolve));
  const check = () => {
    const b = seen.find((x) => x.height === want);
    if (b) found(b);
  };
  const sub = subscribeBlocks(explorerUrl, (b) => (seen.push(b), check()), { WebSocket });
  // a subscriber whose callback throws: its subscription ends with that error, the others go on
  const thrower = subscribeBlocks(explorerUrl, () => {
    throw new Error('dApp bug');
  }, { WebSocket });
  // one still open when the node stops
  const orphan = subscribeBlocks(feedUrl(explorerUrl), () => undefined, { WebSocket });
  await Promise.all([sub.ready, thrower.ready, orphan.ready]);

  const account = createAccount(client, node.dev.seed);
  const to = generateAccountKey('testnet').address;
  const sent = await account.sendTransaction({ to, value: 5n });
  const receipt = await sent.wait({ timeoutMs: 20_000, intervalMs: 20 });
  want = String(receipt.block_height);
  check();
  const block = await arrived;
  t.equal(block.tx_count, 1, 'the block of the transfer, as the explorer indexed it');
  t.same(Object.keys(block).sort(), ROW_FIELDS, 'in the row shape of /api/v1/blocks');
  const heights = seen.map((b) => BigInt(b.height));
  t.same(heights, [...heights].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)), 'in height order');
  await t.rejects(thrower.done, { message: 'dApp bug' });

  sub.close();
  await t.resolves(sub.done, 'close() ends it cleanly');
  await node.close();
  await t.rejects(orphan.done, { name: 'LedgerError', code: 'FEED_CLOSED', message: /feed at ws:\/\/127\.0\.0\.1:\d+\/ws closed/ });
});

t.test('subscribeBlocks: nothing listening rejects ready and done with FEED_CLOSED', async (t) => {
  const port = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
  const sub = subscribeBlocks(`http://127.0.0.1:${port}`, () => undefined, { WebSocket });
  await t.rejects(sub.ready, { code: 'FEED_CLOSED' });
  await t.rejects(sub.done, { code: 'FEED_CLOSED' });
});

t.test('feedUrl: the explorer base URL or its ws URL; anything else is BAD_URL', async (t) => {
  t.equal(feedUrl('http://127.0.0.1:8081'), 'ws://127.0.0.1:8081/ws');
  t.equal(feedUrl('https://explorer.example/base/'), 'wss://explorer.example/base/ws');
  t.equal(feedUrl('ws://127.0.0.1:8081/ws'), 'ws://127.0.0.1:8081/ws');
  t.throws(() => feedUrl('127.0.0.1:8081'), { code: 'BAD_URL' });
  t.throws(() => feedUrl('ftp://host/'), { code: 'BAD_URL', message: /http\(s\) or ws\(s\), got ftp:/ });
});

t.test('subscribeBlocks without a WebSocket (no global one, none passed) says what to pass', async (t) => {
  const global = Object.getOwnPropertyDescriptor(globalThis, 'WebSocket');
  Object.defineProperty(globalThis, 'WebSocket', { value: undefined, configurable: true, writable: true });
  t.teardown(() => {
    if (global) Object.defineProperty(globalThis, 'WebSocket', global);
    else delete (globalThis as { WebSocket?: unknown }).WebSocket;
  });
  t.throws(() => subscribeBlocks('http://127.0.0.1:1', () => undefined), { code: 'NO_WEBSOCKET', message: /'ws' package/ });
});
