import t, { type Test } from 'tap';
import { RpcClient } from '../../node/client/rpc-client.js';
import { generateAccountKey, generateValidatorKey, writeKeyFile } from '../../node/config/keyfile.js';
import { parseJson, stringifyJson } from '../../node/protocol/json.js';
import { transactionFromJson, type Transaction } from '../../node/protocol/transaction.js';
import { startTestNode } from '../fixtures/real-node.js';
import { runLedger } from './fixtures/io.js';

const WAIT = ['--wait', '--timeout', '20000'];

async function setup(t: Test) {
  const node = await startTestNode(t);
  const client = new RpcClient(node.url);
  const to = generateAccountKey('testnet').address;
  // commands run in the data dir, so the funded key is keys/dev.json
  return { cwd: node.dir, node, client, key: node.dev, to, env: { LEDGER_RPC_URL: node.url } };
}

/** The transaction as the node stored it. */
async function committedTx(client: RpcClient, hash: string): Promise<Transaction> {
  const raw = await client.call('ledger_getTransaction', [hash]);
  return transactionFromJson(parseJson(stringifyJson(raw))).tx;
}

t.test('tx transfer signs locally, sends and waits for the receipt', async (t) => {
  const { cwd, client, key, to, env } = await setup(t);
  const r = await runLedger(['tx', 'transfer', '--key', 'keys/dev.json', '--to', to, '--amount', '1.5', ...WAIT], { cwd, env });
  t.equal(r.code, 0, r.stderr);
  const out = r.json();
  t.match(out.tx_hash, /^[0-9a-f]{64}$/);
  t.equal(out.receipt.tx_hash, out.tx_hash);
  t.equal(out.receipt.status, 'success');
  t.same(out.receipt.events.find((e: { type: string }) => e.type === 'Transfer'), { type: 'Transfer', from: key.address, to, amount: 150_000_000 });
  const tx = await committedTx(client, out.tx_hash);
  t.equal(tx.nonce, 0n, 'the nonce came from ledger_getNonce');
  t.same(tx.payload.kind === 'Transfer' && tx.payload.amount, 150_000_000n);
  t.equal(await client.getBalance(to), 150_000_000n);
  t.equal(await client.getNonce(key.address), 1n);
});

t.test('tx --print signs and prints the JSON text without sending it', async (t) => {
  const { cwd, client, key, env } = await setup(t);
  const r = await runLedger(['tx', 'did-create', '--key', 'keys/dev.json', '--print'], { cwd, env });
  t.equal(r.code, 0, r.stderr);
  const out = r.json();
  t.match(out, { tx_hash: /^[0-9a-f]{64}$/, json: String });
  const { tx } = transactionFromJson(parseJson(out.json));
  t.same([tx.payload.kind, tx.nonce], ['DidCreate', 0n]);
  t.equal(await client.getReceipt(out.tx_hash), null, 'nothing was sent');
  t.equal(await client.sendTransaction(out.json), out.tx_hash, 'the printed text is what ledger_sendTransaction takes');
  t.equal(await client.getNonce(key.address), 0n);
  const both = await runLedger(['tx', 'did-create', '--key', 'keys/dev.json', '--print', '--wait'], { cwd, env });
  t.equal(both.code, 2);
  t.match(both.stderr, /--print sends nothing/);
});

t.test('tx kinds, --nonce, --rpc and --amount-units', async (t) => {
  const { cwd, node, client, key, env } = await setup(t);
  const stake = await runLedger(['tx', 'stake', '--key', 'keys/dev.json', '--amount-units', '1000000000000', '--rpc', node.url, ...WAIT], { cwd });
  t.equal(stake.code, 0, stake.stderr);
  t.match(stake.json(), { tx_hash: /^[0-9a-f]{64}$/, receipt: { status: 'success' } });
  const unstake = await runLedger(['tx', 'unstake', '--key', 'keys/dev.json', '--amount', '1', '--nonce', '1', ...WAIT], { cwd, env });
  t.equal(unstake.code, 0, unstake.stderr);
  const create = await runLedger(
    ['tx', 'did-create', '--key', 'keys/dev.json', '--service', '#pod,SolidPod,https://pod.example/a?x=1,2', '--service', '#inbox,DIDCommMessaging,https://relay.example', ...WAIT],
    { cwd, env },
  );
  t.equal(create.code, 0, create.stderr);
  const deactivate = await runLedger(['tx', 'did-deactivate', '--key', 'keys/dev.json', ...WAIT], { cwd, env });
  t.equal(deactivate.code, 0, deactivate.stderr);
  const txs = await Promise.all([stake, unstake, create, deactivate].map((r) => committedTx(client, r.json().tx_hash)));
  t.same(
    txs.map((tx) => [tx.payload.kind, tx.nonce]),
    [['Stake', 0n], ['Unstake', 1n], ['DidCreate', 2n], ['DidDeactivate', 3n]],
  );
  const stakedTx = txs[0]!.payload;
  t.equal(stakedTx.kind === 'Stake' && stakedTx.amount, 1_000_000_000_000n, '--amount-units is taken as base units');
  const created = txs[2]!.payload;
  t.same(created.kind === 'DidCreate' && created.service, [
    { id: '#pod', type: 'SolidPod', serviceEndpoint: 'https://pod.example/a?x=1,2' },
    { id: '#inbox', type: 'DIDCommMessaging', serviceEndpoint: 'https://relay.example' },
  ]);
  const deactivated = txs[3]!.payload;
  t.equal(deactivated.kind === 'DidDeactivate' && deactivated.did, key.did, "defaults to the key's own DID");
  t.equal(await client.getNonce(key.address), 4n);
});

t.test('tx validator-register sends the BLS key of a validator key file with its proof of possession', async (t) => {
  const { cwd, client, env } = await setup(t);
  const joiner = generateValidatorKey('testnet');
  await writeKeyFile(`${cwd}/joiner.json`, joiner);
  const fund = await runLedger(['tx', 'transfer', '--key', 'keys/dev.json', '--to', joiner.address, '--amount', '1', ...WAIT], { cwd, env });
  t.equal(fund.code, 0, fund.stderr);
  const r = await runLedger(['tx', 'validator-register', '--key', 'joiner.json', ...WAIT], { cwd, env });
  t.equal(r.code, 0, r.stderr);
  t.same(r.json().receipt.events, [{ type: 'ValidatorRegistered', address: joiner.address }]);
  t.match(await client.getValidatorStake(joiner.address), { staked: 0n, active: false }, 'registered, not staked, not in the set');
  const again = await runLedger(['tx', 'validator-register', '--key', 'joiner.json', ...WAIT], { cwd, env });
  t.equal(again.code, 1, 'a second registration fails in execution');
  const account = await runLedger(['tx', 'validator-register', '--key', 'keys/dev.json'], { cwd, env });
  t.equal(account.code, 2);
  t.match(account.stderr, /needs a validator key file/);
});

t.test('tx usage errors exit 2 before anything is sent', async (t) => {
  const { cwd, client, key, to, env } = await setup(t);
  const cases: Array<[string[], RegExp]> = [
    [['tx'], /tx needs a kind/],
    [['tx', 'mint', '--key', 'keys/dev.json'], /unknown transaction kind "mint"/],
    [['tx', 'transfer', '--key', 'keys/dev.json', '--amount', '1'], /--to is required/],
    [['tx', 'transfer', '--key', 'keys/dev.json', '--to', to], /exactly one of --amount/],
    [['tx', 'transfer', '--key', 'keys/dev.json', '--to', to, '--amount', '1', '--amount-units', '1'], /exactly one of --amount/],
    [['tx', 'stake', '--key', 'keys/dev.json', '--amount', '1.123456789'], /at most 8 decimals/],
    [['tx', 'stake', '--key', 'keys/dev.json', '--amount', '1', '--to', to], /--to does not apply to tx stake/],
    [['tx', 'stake', '--amount', '1'], /--key is required/],
    [['tx', 'did-create', '--key', 'keys/dev.json', '--service', 'only,two'], /--service takes id,type,endpoint/],
    [['tx', 'stake', '--key', 'keys/dev.json', '--amount', '1', '--nonce', '-1'], /nonce/],
  ];
  for (const [argv, re] of cases) {
    const r = await runLedger(argv, { cwd, env });
    t.equal(r.code, 2, argv.join(' '));
    t.match(r.stderr, re);
  }
  // had any case sent a transaction, nonce 0 would be taken and this one refused
  const r = await runLedger(['tx', 'transfer', '--key', 'keys/dev.json', '--to', to, '--amount-units', '1', ...WAIT], { cwd, env });
  t.equal(r.code, 0, r.stderr);
  t.equal((await committedTx(client, r.json().tx_hash)).nonce, 0n, 'nothing was sent before');
  t.equal(await client.getNonce(key.address), 1n);
  t.equal(await client.getBalance(to), 1n);
});

t.test('tx reports node errors and unreachable nodes with exit 1', async (t) => {
  const { cwd, client, key, to, env } = await setup(t);
  const first = await runLedger(['tx', 'transfer', '--key', 'keys/dev.json', '--to', to, '--amount', '1', ...WAIT], { cwd, env });
  t.equal(first.code, 0, first.stderr);
  const reused = await runLedger(['tx', 'transfer', '--key', 'keys/dev.json', '--to', to, '--amount', '1', '--nonce', '0'], { cwd, env });
  t.equal(reused.code, 1);
  t.match(reused.stderr, /JSON-RPC error -32000 from ledger_sendTransaction: nonce 0 is already used; the next nonce is 1/);
  t.equal(reused.stdout, '');
  const ahead = await runLedger(['tx', 'transfer', '--key', 'keys/dev.json', '--to', to, '--amount', '1', '--nonce', '1000'], { cwd, env });
  t.equal(ahead.code, 1);
  t.match(ahead.stderr, /JSON-RPC error -?\d+ from ledger_sendTransaction: nonce 1000 is too far ahead/);
  const poor = generateAccountKey('testnet');
  await writeKeyFile(`${cwd}/poor.json`, poor);
  const broke = await runLedger(['tx', 'transfer', '--key', 'poor.json', '--to', to, '--amount', '1'], { cwd, env });
  t.equal(broke.code, 1);
  t.match(broke.stderr, /JSON-RPC error -32000 from ledger_sendTransaction: balance 0 of \w+ cannot cover this transaction/);
  const down = await runLedger(['tx', 'stake', '--key', 'keys/dev.json', '--amount', '1', '--rpc', 'http://127.0.0.1:1'], { cwd });
  t.equal(down.code, 1);
  t.match(down.stderr, /cannot reach http:\/\/127\.0\.0\.1:1/);
  const missing = await runLedger(['tx', 'stake', '--key', 'nope.json', '--amount', '1'], { cwd, env });
  t.equal(missing.code, 1);
  t.match(missing.stderr, /cannot read key file .*nope\.json: no such file/);
  t.equal(await client.getNonce(key.address), 1n, 'only the first transfer was committed');
  t.equal(await client.getBalance(to), 100_000_000n);
});
