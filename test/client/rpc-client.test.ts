import t from 'tap';
import { buildTransfer, signAndEncode, waitForReceipt } from '../../node/client/builder.js';
import { RpcError, RpcTransportError } from '../../node/client/errors.js';
import { RpcClient } from '../../node/client/rpc-client.js';
import { generateSeed, keyPairFromSeed } from '../../node/crypto/ed25519.js';
import { addressFromPublicKey } from '../../node/protocol/address.js';
import { startFakeNode } from './fixtures/fake-node.js';

t.test('calls, typed wrappers and lossless integers', async (t) => {
  const node = await startFakeNode();
  t.teardown(node.close);
  const client = new RpcClient(node.url);
  const big = 123_456_789_012_345_678_901_234n;
  node.balances.set('addr', big);
  t.equal(await client.getBalance('addr'), big, 'a balance beyond 2^53 arrives exact');
  t.equal(await client.getBalance('other'), 0n, 'small integers become bigint too');
  t.equal(await client.getNonce('addr'), 0n);
  t.equal((await client.chainInfo()).chain_id, 'ledger-testnet-1');
  const [v] = await client.getValidators();
  t.equal(v!.staked, 123_456_789_012_345_678_901n);
  t.equal(v!.unbonding, 0n);
  t.same(await client.call('ledger_echo', [1, 'a', { b: big }]), [1, 'a', { b: big }], 'params go out losslessly');
});

t.test('errors: JSON-RPC errors and transport errors are told apart', async (t) => {
  const node = await startFakeNode();
  t.teardown(node.close);
  const client = new RpcClient(node.url);
  const err = await client.call('ledger_getAccount', ['x']).catch((e: unknown) => e);
  t.ok(err instanceof RpcError, 'an RpcError');
  t.match(err, { code: -32601, method: 'ledger_getAccount', message: 'method not found' });
  await t.rejects(client.credentialsBySubject('did:ledger:testnet:x'), { code: -32001, message: /disabled/ });
  const dead = new RpcClient('http://127.0.0.1:1', { timeoutMs: 2000 });
  const down = await dead.chainInfo().catch((e: unknown) => e);
  t.ok(down instanceof RpcTransportError, 'an RpcTransportError');
  t.match((down as Error).message, /cannot reach http:\/\/127\.0\.0\.1:1/);
});

t.test('batch returns results in call order, errors in place', async (t) => {
  const node = await startFakeNode();
  t.teardown(node.close);
  const client = new RpcClient(node.url);
  const results = await client.batch([{ method: 'ledger_echo', params: [1] }, { method: 'nope' }, { method: 'ledger_echo', params: [2] }]);
  t.same(results[0], { ok: true, result: [1] });
  t.equal(results[1]!.ok, false);
  t.equal(!results[1]!.ok && results[1]!.error.code, -32601);
  t.same(results[2], { ok: true, result: [2] });
  t.same(await client.batch([]), []);
});

t.test('build, sign, send and wait for the receipt', async (t) => {
  const node = await startFakeNode('ledger-test-9');
  t.teardown(node.close);
  const client = new RpcClient(node.url);
  const seed = generateSeed();
  const { publicKey } = keyPairFromSeed(seed);
  const from = addressFromPublicKey(publicKey);
  node.nonces.set(from, 3n);
  const to = addressFromPublicKey(keyPairFromSeed(generateSeed()).publicKey);
  const { chain_id } = await client.chainInfo();
  const signed = signAndEncode(chain_id, buildTransfer({ senderPubkey: publicKey, nonce: await client.getNonce(from), to, amount: 150_000_000n }), seed);
  const hash = await client.sendTransaction(signed.json);
  t.equal(hash, signed.hash, 'the node computes the same hash');
  t.equal(node.received[0]!.chainId, 'ledger-test-9');
  node.receiptDelay = 2;
  const receipt = await waitForReceipt(client, hash, { intervalMs: 10 });
  t.equal(receipt.status, 'success');
  t.equal(receipt.fee_paid, 1000n, 'amounts are bigint');
  t.equal(receipt.events[0]!.amount, 150_000_000n);
  await t.rejects(waitForReceipt(client, 'ff'.repeat(32), { timeoutMs: 50, intervalMs: 10 }), { code: 'RECEIPT_TIMEOUT' });
  await t.rejects(client.sendTransaction(signed.json), { code: -32602, message: /nonce 3, expected 4/ });
});
