import t, { type Test } from 'tap';
import { generateAccountKey, writeKeyFile } from '../../node/config/keyfile.js';
import { startFakeNode } from '../client/fixtures/fake-node.js';
import { runLedger } from './fixtures/io.js';

async function setup(t: Test) {
  const cwd = t.testdir({});
  const node = await startFakeNode();
  t.teardown(node.close);
  const key = generateAccountKey('testnet');
  await writeKeyFile(`${cwd}/key.json`, key);
  const to = generateAccountKey('testnet').address;
  return { cwd, node, key, to, env: { LEDGER_RPC_URL: node.url } };
}

t.test('tx transfer signs locally, sends and waits for the receipt', async (t) => {
  const { cwd, node, key, to, env } = await setup(t);
  node.nonces.set(key.address, 5n);
  const r = await runLedger(['tx', 'transfer', '--key', 'key.json', '--to', to, '--amount', '1.5', '--wait', '--timeout', '5000'], { cwd, env });
  t.equal(r.code, 0, r.stderr);
  const out = r.json();
  t.equal(out.tx_hash, node.received[0]!.hash);
  t.equal(out.receipt.status, 'success');
  const { tx, chainId } = node.received[0]!;
  t.equal(chainId, 'ledger-testnet-1', 'chain_id from ledger_chainInfo is in the JSON');
  t.equal(tx.nonce, 5n, 'the nonce came from ledger_getNonce');
  t.same(tx.payload.kind === 'Transfer' && tx.payload.amount, 150_000_000n);
});

t.test('tx kinds, --nonce, --rpc and --amount-units', async (t) => {
  const { cwd, node, key, env } = await setup(t);
  const stake = await runLedger(['tx', 'stake', '--key', 'key.json', '--amount-units', '1000000000000', '--rpc', node.url], { cwd });
  t.equal(stake.code, 0, stake.stderr);
  t.match(stake.json(), { tx_hash: /^[0-9a-f]{64}$/ });
  const unstake = await runLedger(['tx', 'unstake', '--key', 'key.json', '--amount', '1', '--nonce', '1'], { cwd, env });
  t.equal(unstake.code, 0, unstake.stderr);
  const create = await runLedger(['tx', 'did-create', '--key', 'key.json', '--service', '#pod,SolidPod,https://pod.example/a?x=1,2', '--service', '#inbox,DIDCommMessaging,https://relay.example'], { cwd, env });
  t.equal(create.code, 0, create.stderr);
  const deactivate = await runLedger(['tx', 'did-deactivate', '--key', 'key.json'], { cwd, env });
  t.equal(deactivate.code, 0, deactivate.stderr);
  t.same(
    node.received.map((r) => [r.tx.payload.kind, r.tx.nonce]),
    [['Stake', 0n], ['Unstake', 1n], ['DidCreate', 2n], ['DidDeactivate', 3n]],
  );
  const created = node.received[2]!.tx.payload;
  t.same(created.kind === 'DidCreate' && created.service, [
    { id: '#pod', type: 'SolidPod', serviceEndpoint: 'https://pod.example/a?x=1,2' },
    { id: '#inbox', type: 'DIDCommMessaging', serviceEndpoint: 'https://relay.example' },
  ]);
  const deactivated = node.received[3]!.tx.payload;
  t.equal(deactivated.kind === 'DidDeactivate' && deactivated.did, key.did, 'defaults to the key\'s own DID');
});

t.test('tx usage errors exit 2 before anything is sent', async (t) => {
  const { cwd, node, to, env } = await setup(t);
  const cases: Array<[string[], RegExp]> = [
    [['tx'], /tx needs a kind/],
    [['tx', 'mint', '--key', 'key.json'], /unknown transaction kind "mint"/],
    [['tx', 'transfer', '--key', 'key.json', '--amount', '1'], /--to is required/],
    [['tx', 'transfer', '--key', 'key.json', '--to', to], /exactly one of --amount/],
    [['tx', 'transfer', '--key', 'key.json', '--to', to, '--amount', '1', '--amount-units', '1'], /exactly one of --amount/],
    [['tx', 'stake', '--key', 'key.json', '--amount', '1.123456789'], /at most 8 decimals/],
    [['tx', 'stake', '--key', 'key.json', '--amount', '1', '--to', to], /--to does not apply to tx stake/],
    [['tx', 'stake', '--amount', '1'], /--key is required/],
    [['tx', 'did-create', '--key', 'key.json', '--service', 'only,two'], /--service takes id,type,endpoint/],
    [['tx', 'stake', '--key', 'key.json', '--amount', '1', '--nonce', '-1'], /nonce/],
  ];
  for (const [argv, re] of cases) {
    const r = await runLedger(argv, { cwd, env });
    t.equal(r.code, 2, argv.join(' '));
    t.match(r.stderr, re);
  }
  t.equal(node.received.length, 0);
});

t.test('tx reports node errors and unreachable nodes with exit 1', async (t) => {
  const { cwd, node, to, env } = await setup(t);
  const r = await runLedger(['tx', 'transfer', '--key', 'key.json', '--to', to, '--amount', '1', '--nonce', '9'], { cwd, env });
  t.equal(r.code, 1);
  t.match(r.stderr, /JSON-RPC error -32602 from ledger_sendTransaction: nonce 9, expected 0/);
  const down = await runLedger(['tx', 'stake', '--key', 'key.json', '--amount', '1', '--rpc', 'http://127.0.0.1:1'], { cwd });
  t.equal(down.code, 1);
  t.match(down.stderr, /cannot reach http:\/\/127\.0\.0\.1:1/);
  const missing = await runLedger(['tx', 'stake', '--key', 'nope.json', '--amount', '1'], { cwd, env });
  t.equal(missing.code, 1);
  t.match(missing.stderr, /cannot read key file .*nope\.json: no such file/);
  t.equal(node.received.length, 0);
});
