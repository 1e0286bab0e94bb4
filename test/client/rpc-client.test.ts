import t from 'tap';
import { buildTransfer, signAndEncode, waitForReceipt } from '../../node/client/builder.js';
import { RpcError, RpcTransportError } from '../../node/client/errors.js';
import { RpcClient } from '../../node/client/rpc-client.js';
import { DEV_BALANCE, VALIDATOR_STAKE } from '../../node/cli/commands/init.js';
import { generateAccountKey } from '../../node/config/keyfile.js';
import { startTestNode } from '../fixtures/real-node.js';

const TWO_POW_60 = 2n ** 60n;

t.test('calls, typed wrappers and lossless integers', async (t) => {
  const node = await startTestNode(t);
  const client = new RpcClient(node.url);
  t.ok(DEV_BALANCE > BigInt(Number.MAX_SAFE_INTEGER));
  t.equal(await client.getBalance(node.dev.address), DEV_BALANCE, 'a balance beyond 2^53 arrives exact');
  const other = generateAccountKey('testnet').address;
  t.equal(await client.getBalance(other), 0n, 'small integers become bigint too');
  t.equal(await client.getNonce(node.dev.address), 0n);
  const info = await client.chainInfo();
  t.equal(info.chain_id, node.chainId);
  t.equal(info.chain_id, 'ledger-testnet-1');
  const [v] = await client.getValidators();
  t.equal(v!.staked, VALIDATOR_STAKE);
  t.equal(v!.unbonding, 0n);
  const epoch = await client.getEpoch();
  t.match(epoch, { epoch: 0, first_height: 0, last_height: 99, epoch_length: 100 });
  t.same(epoch!.validators.map((x) => x.address), [v!.address], 'the one genesis validator, weight 3 (core tier)');
  t.equal(epoch!.validators[0]!.weight, 3);
  t.same(await client.call('ledger_getBlockBySeq', [99]), null, 'a param goes out and null comes back');
});

t.test('errors: JSON-RPC errors and transport errors are told apart', async (t) => {
  const node = await startTestNode(t);
  const client = new RpcClient(node.url);
  const err = await client.call('ledger_nope', ['x']).catch((e: unknown) => e);
  t.ok(err instanceof RpcError, 'an RpcError');
  t.match(err, { code: -32601, method: 'ledger_nope', message: /method not found/ });
  await t.rejects(client.credentialsBySubject('did:ledger:testnet:x'), { code: -32001, message: /disabled/ });
  const dead = new RpcClient('http://127.0.0.1:1', { timeoutMs: 2000 });
  const down = await dead.chainInfo().catch((e: unknown) => e);
  t.ok(down instanceof RpcTransportError, 'an RpcTransportError');
  t.match((down as Error).message, /cannot reach http:\/\/127\.0\.0\.1:1/);
});

t.test('batch returns results in call order, errors in place', async (t) => {
  const node = await startTestNode(t);
  const client = new RpcClient(node.url);
  const results = await client.batch([
    { method: 'ledger_getBalance', params: [node.dev.address] },
    { method: 'nope' },
    { method: 'ledger_getNonce', params: [node.dev.address] },
  ]);
  t.same(results[0], { ok: true, result: DEV_BALANCE });
  t.equal(results[1]!.ok, false);
  t.equal(!results[1]!.ok && results[1]!.error.code, -32601);
  t.same(results[2], { ok: true, result: 0n });
  t.same(await client.batch([]), []);
});

t.test('build, sign, send and wait for the receipt', async (t) => {
  const node = await startTestNode(t);
  const client = new RpcClient(node.url);
  const { seed, publicKey, address: from } = node.dev;
  const to = generateAccountKey('testnet').address;
  const { chain_id } = await client.chainInfo();
  const amount = TWO_POW_60 + 1n; // beyond 2^53: a lossy codec anywhere would change it
  const signed = signAndEncode(chain_id, buildTransfer({ senderPubkey: publicKey, nonce: await client.getNonce(from), to, amount }), seed);
  const hash = await client.sendTransaction(signed.json);
  t.equal(hash, signed.hash, 'the node computes the same hash');
  await t.rejects(client.sendTransaction(signed.json), { code: -32000, message: /already pending/ });
  const receipt = await waitForReceipt(client, hash, { intervalMs: 20, timeoutMs: 20_000 });
  t.equal(receipt.status, 'success');
  t.equal(receipt.tx_hash, hash);
  t.equal(typeof receipt.fee_paid, 'bigint', 'amounts are bigint');
  t.ok(receipt.fee_paid > 0n);
  t.equal(receipt.events.find((e) => e.type === 'Transfer')!.amount, amount);
  t.equal(await client.getBalance(to), amount, 'the recipient holds the exact amount');
  t.equal(await client.getBalance(from), DEV_BALANCE - amount - receipt.fee_paid);
  t.equal(await client.getNonce(from), 1n);
  await t.rejects(waitForReceipt(client, 'ff'.repeat(32), { timeoutMs: 50, intervalMs: 10 }), { code: 'RECEIPT_TIMEOUT' });
  await t.rejects(client.sendTransaction(signed.json), { code: -32000, message: /nonce 0 is already used; the next nonce is 1/ });
  const other = signAndEncode('ledger-test-9', buildTransfer({ senderPubkey: publicKey, nonce: 1n, to, amount: 1n }), seed);
  await t.rejects(client.sendTransaction(other.json), { code: -32602, message: /transaction is for chain "ledger-test-9"; this node runs "ledger-testnet-1"/ }, 'the chain id is checked');
});

t.test('getNonce pending: several transactions sent back to back, none refused', async (t) => {
  const node = await startTestNode(t);
  const client = new RpcClient(node.url);
  const { seed, publicKey, address: from } = node.dev;
  const to = generateAccountKey('testnet').address;
  const { chain_id } = await client.chainInfo();
  const hashes: string[] = [];
  for (let i = 0; i < 3; i++) {
    const nonce = await client.getNonce(from, { pending: true });
    t.equal(nonce, BigInt(i), 'the pending nonce follows what was sent, committed or not');
    hashes.push(await client.sendTransaction(signAndEncode(chain_id, buildTransfer({ senderPubkey: publicKey, nonce, to, amount: 1n }), seed).json));
  }
  for (const h of hashes) t.equal((await waitForReceipt(client, h, { intervalMs: 20, timeoutMs: 20_000 })).status, 'success');
  t.equal(await client.getNonce(from), 3n);
  t.equal(await client.getNonce(from, { pending: true }), 3n, 'nothing pending: the same as latest');
});
