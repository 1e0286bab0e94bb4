import t from 'tap';
import { buildTransfer, waitForReceipt } from '../../node/client/builder.js';
import { createAccount, RpcClient } from '../../node/client/index.js';
import { generateAccountKey } from '../../node/config/keyfile.js';
import { startTestNode } from '../fixtures/real-node.js';

t.test('createAccount: three sends started back to back are all admitted with consecutive nonces', async (t) => {
  const node = await startTestNode(t);
  const client = new RpcClient(node.url);
  const account = createAccount(client, node.dev.seed);
  t.equal(account.address, node.dev.address);
  const to = generateAccountKey('testnet').address;
  const sends = [1n, 2n, 3n].map((amount) => account.send((b) => buildTransfer({ ...b, to, amount })));
  const hashes = await Promise.all(sends);
  t.equal(new Set(hashes).size, 3);
  const receipts = await Promise.all(hashes.map((h) => waitForReceipt(client, h, { intervalMs: 20, timeoutMs: 20_000 })));
  t.ok(receipts.every((r) => r.status === 'success'));
  const nonces = await Promise.all(hashes.map(async (h) => (await client.getTransaction(h))!.nonce));
  t.same(nonces.map(BigInt), [0n, 1n, 2n], 'consecutive, in call order');
  t.equal(await client.getBalance(to), 6n);
  t.equal(await account.send((b) => buildTransfer({ ...b, to, amount: 4n })).then((h) => typeof h), 'string', 'and later sends go on from there');
  t.equal(await client.getNonce(node.dev.address, { pending: true }), 4n);
});

t.test('createAccount: a refused send rejects, and the next one reads the pending nonce again', async (t) => {
  const node = await startTestNode(t);
  const client = new RpcClient(node.url);
  const account = createAccount(client, node.dev.seed);
  const to = generateAccountKey('testnet').address;
  await t.rejects(account.send((b) => buildTransfer({ ...b, to, amount: 10n ** 30n })), { code: -32000 });
  const hash = await account.send((b) => buildTransfer({ ...b, to, amount: 1n }));
  t.equal((await waitForReceipt(client, hash, { intervalMs: 20, timeoutMs: 20_000 })).status, 'success');
});

t.test("account.sendTransaction({ to, value }), viem's shape: the hash once admitted, and a wait for the receipt", async (t) => {
  const node = await startTestNode(t);
  const client = new RpcClient(node.url);
  const account = createAccount(client, node.dev.seed);
  const to = generateAccountKey('testnet').address;
  const sent = await account.sendTransaction({ to, value: 7n });
  t.match(sent.hash, /^[0-9a-f]{64}$/);
  const receipt = await sent.wait({ intervalMs: 20, timeoutMs: 20_000 });
  t.equal(receipt.tx_hash, sent.hash);
  t.equal(receipt.status, 'success');
  t.equal(await client.getBalance(to), 7n);
  const second = await account.submit((b) => buildTransfer({ ...b, to, amount: 1n }));
  t.equal((await second.wait({ intervalMs: 20, timeoutMs: 20_000 })).status, 'success', 'submit: any builder, the same handle');
  t.equal(await client.getBalance(to), 8n);
  await t.rejects(account.sendTransaction({ to: 'not-an-address', value: 1n }), { name: 'LedgerError' }, 'a bad address fails before anything is sent');
  await t.rejects((await account.sendTransaction({ to, value: 1n })).wait({ signal: AbortSignal.abort() }), { name: 'AbortError' }, 'wait takes waitForReceipt options');
});
