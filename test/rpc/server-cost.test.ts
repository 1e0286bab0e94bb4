import t from 'tap';
import type { JSONRPCResponse } from 'json-rpc-2.0';
import { RPC_INVALID_PARAMS, RPC_LIMIT_EXCEEDED } from '../../node/rpc/errors.js';
import { param, uint } from '../../node/rpc/params.js';
import { createRpcServer, defineMethod } from '../../node/rpc/server.js';

/** The per-request budget of work units that costed (expensive) methods share (docs/rpc.md, "Expensive verification"). */

function server(maxBatchCost: number) {
  const ran: number[] = [];
  const methods = [
    defineMethod({
      name: 'test_verify',
      params: [param('units', uint({ max: 1000 }))] as const,
      cost: (units) => units,
      handler: (units) => {
        ran.push(units);
        return true;
      },
    }),
    defineMethod({ name: 'test_cheap', params: [], handler: () => 'ok' }),
  ];
  return { rpc: createRpcServer({ methods, maxBatchCost, maxEventLoopLagMs: 0 }), ran };
}

const call = (id: number, method: string, params: unknown[] = []) => ({ jsonrpc: '2.0', id, method, params });

t.test('the requests of a batch past its budget get -32005 in order, without running', async (t) => {
  const { rpc, ran } = server(100);
  const answer = (await rpc.handle([call(1, 'test_verify', [40]), call(2, 'test_verify', [50]), call(3, 'test_verify', [20]), call(4, 'test_cheap'), call(5, 'test_verify', [10])])) as JSONRPCResponse[];
  t.same(
    answer.map((r) => r.result ?? r.error?.code),
    [true, true, RPC_LIMIT_EXCEEDED, 'ok', true],
    'the third would take the batch to 110 of 100; the fifth fits in what is left',
  );
  t.match(answer[2]!.error, {
    message: /costs 20 work units and the request's budget has 10 of 100 left/,
    data: { code: 'BATCH_COST_EXCEEDED', cost: 20, spent: 90, maxBatchCost: 100 },
  });
  t.same(ran.sort((a, b) => a - b), [10, 40, 50]);
});

t.test('each payload has its own budget; invalid params cost nothing', async (t) => {
  const { rpc, ran } = server(100);
  for (let i = 0; i < 3; i++) t.equal(((await rpc.handle(call(i, 'test_verify', [90]))) as JSONRPCResponse).result, true);
  const answer = (await rpc.handle([call(1, 'test_verify', [5000]), call(2, 'test_verify', ['x']), call(3, 'test_verify', [100])])) as JSONRPCResponse[];
  t.same(answer.map((r) => r.result ?? r.error?.code), [RPC_INVALID_PARAMS, RPC_INVALID_PARAMS, true]);
  t.same(ran, [90, 90, 90, 100]);
});

t.test('a single request over the budget is refused as well', async (t) => {
  const { rpc, ran } = server(100);
  const answer = (await rpc.handle(call(1, 'test_verify', [101]))) as JSONRPCResponse;
  t.match(answer.error, { code: RPC_LIMIT_EXCEEDED, data: { code: 'BATCH_COST_EXCEEDED', cost: 101, spent: 0 } });
  t.same(ran, []);
});
