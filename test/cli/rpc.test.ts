import t from 'tap';
import { parseParam } from '../../node/cli/commands/rpc.js';
import { startFakeNode } from '../client/fixtures/fake-node.js';
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
  const node = await startFakeNode();
  t.teardown(node.close);
  const cwd = t.testdir({});
  node.balances.set('addr', 123456789012345678901234n);
  const r = await runLedger(['rpc', 'ledger_getBalance', 'addr', '--rpc', node.url], { cwd });
  t.equal(r.code, 0, r.stderr);
  t.equal(r.stdout, '123456789012345678901234\n');
  const echo = await runLedger(['rpc', 'ledger_echo', '7', 'x', '{"k":[1]}', '--', '-5'], { cwd, env: { LEDGER_RPC_URL: node.url } });
  t.equal(echo.code, 0, echo.stderr);
  t.same(echo.json(), [7, 'x', { k: [1] }, -5]);
});

t.test('a JSON-RPC error exits 1 with its code and message', async (t) => {
  const node = await startFakeNode();
  t.teardown(node.close);
  const r = await runLedger(['rpc', 'ledger_getAccount', 'x', '--rpc', node.url], { cwd: t.testdir({}) });
  t.equal(r.code, 1);
  t.match(r.stderr, /JSON-RPC error -32601 from ledger_getAccount: method not found/);
  t.equal(r.stdout, '');
  t.equal((await runLedger(['rpc'], { cwd: t.testdir({}) })).code, 2);
});
