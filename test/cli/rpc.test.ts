import t from 'tap';
import { DEV_BALANCE } from '../../node/cli/commands/init.js';
import { parseParam } from '../../node/cli/commands/rpc.js';
import { startTestNode } from '../fixtures/real-node.js';
import { runLedger } from './fixtures/io.js';

t.test('params parse as JSON when they can, else stay strings', async (t) => {
  t.equal(parseParam('12'), 12);
  t.equal(parseParam('true'), true);
  t.equal(parseParam('null'), null);
  t.same(parseParam('[1,{"a":2}]'), [1, { a: 2 }]);
  t.equal(parseParam('"12"'), '12');
  t.equal(parseParam('3JQmMsGbVaLaZTtzMmPd41x8mrVb'), '3JQmMsGbVaLaZTtzMmPd41x8mrVb');
  t.equal(parseParam('123456789012345678901234567890'), 123456789012345678901234567890n, 'big integers stay exact');
});

t.test('rpc prints the result as JSON, bigint-safe', async (t) => {
  const node = await startTestNode(t);
  const cwd = t.testdir({});
  t.ok(DEV_BALANCE > BigInt(Number.MAX_SAFE_INTEGER), 'the balance is beyond 2^53, so a lossy printer would show it');
  const r = await runLedger(['rpc', 'ledger_getBalance', node.dev.address, '--rpc', node.url], { cwd });
  t.equal(r.code, 0, r.stderr);
  t.equal(r.stdout, `${DEV_BALANCE}\n`);
  const info = await runLedger(['rpc', 'ledger_chainInfo'], { cwd, env: { LEDGER_RPC_URL: node.url } });
  t.equal(info.code, 0, info.stderr);
  t.match(info.json(), { chain_id: node.chainId, native_token: { decimals: 8 }, genesis_hash: /^[0-9a-f]{64}$/ });
  // a number param and one after `--` that starts with a dash reach the node as numbers
  const block = await runLedger(['rpc', 'ledger_getBlockBySeq', '0'], { cwd, env: { LEDGER_RPC_URL: node.url } });
  t.equal(block.code, 0, block.stderr);
  t.match(block.json(), { height: 0, hash: info.json().genesis_hash, tx_count: 0 }, 'the genesis block');
  const status = await runLedger(['rpc', 'ledger_getConsensusStatus'], { cwd, env: { LEDGER_RPC_URL: node.url } });
  t.equal(status.code, 0, status.stderr);
  const validator = (await runLedger(['rpc', 'ledger_getEpoch'], { cwd, env: { LEDGER_RPC_URL: node.url } })).json().validators[0].address;
  t.match(status.json(), { epoch: 0, round: Number, leader: validator, active_validators: [validator], halted: null }, 'the one validator leads every round');
  const negative = await runLedger(['rpc', 'ledger_getBlockBySeq', '--', '-5'], { cwd, env: { LEDGER_RPC_URL: node.url } });
  t.equal(negative.code, 1);
  t.match(negative.stderr, /JSON-RPC error -32602 from ledger_getBlockBySeq: invalid params: seq \(param 1\) must be a non-negative integer/);
});

t.test('a JSON-RPC error exits 1 with its code and message', async (t) => {
  const node = await startTestNode(t);
  const r = await runLedger(['rpc', 'ledger_nope', 'x', '--rpc', node.url], { cwd: t.testdir({}) });
  t.equal(r.code, 1);
  t.match(r.stderr, /JSON-RPC error -32601 from ledger_nope: method not found/);
  t.equal(r.stdout, '');
  t.equal((await runLedger(['rpc'], { cwd: t.testdir({}) })).code, 2);
});
