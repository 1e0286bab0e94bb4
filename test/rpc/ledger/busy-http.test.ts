import t from 'tap';
import { RpcError } from '../../../node/client/errors.js';
import { RpcClient } from '../../../node/client/rpc-client.js';
import { HttpServer } from '../../../node/http/server.js';
import { formatAddress } from '../../../node/protocol/address.js';
import { stringifyJson } from '../../../node/protocol/json.js';
import { signTransaction, transactionToJson } from '../../../node/protocol/transaction.js';
import { COUNTER } from '../../fixtures/chain-blocks.js';
import { CHAIN, FUNDER, funder, setup } from './harness.js';

/** The real mempool behind the real HTTP server, through the project client. */
t.test('back to back with the pending nonce, then busy (503, Retry-After) at the per-sender bound', async (t) => {
  const { server, mempool } = await setup(t, { mempool: { maxPerSender: 2 } });
  const http = new HttpServer({ host: '127.0.0.1', port: 0, maxBodyBytes: 1024 * 1024 });
  server.mount(http);
  const { port } = await http.listen();
  t.teardown(() => http.close());
  const url = `http://127.0.0.1:${port}/`;
  const client = new RpcClient(url);
  const from = formatAddress(FUNDER);
  const transfer = (nonce: bigint) =>
    stringifyJson(transactionToJson(signTransaction(CHAIN, { senderPubkey: funder.publicKey, nonce, payload: { kind: 'Transfer', to: COUNTER, amount: 1n } }, funder.seed)));

  for (let i = 0; i < 2; i++) await client.sendTransaction(transfer(await client.getNonce(from, { pending: true })));
  t.equal(mempool.size, 2, 'no ALREADY_KNOWN or NONCE_TAKEN: each send took the next pending nonce');
  t.equal(await client.getNonce(from), 0n, 'the committed nonce is unchanged');
  t.equal(await client.getNonce(from, { pending: true }), 2n);

  const third = transfer(2n);
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: stringifyJson({ jsonrpc: '2.0', id: 1, method: 'ledger_sendTransaction', params: [third] }) });
  t.equal(res.status, 503);
  t.equal(res.headers.get('retry-after'), '1');
  t.match(await res.json(), { error: { code: -32010, data: { code: 'MEMPOOL_FULL', reason: 'sender_limit', retryAfterMs: 1000 } } });
  const err = await client.sendTransaction(third).catch((e: unknown) => e);
  t.ok(err instanceof RpcError);
  t.match(err, { code: -32010, busy: true, retryAfterMs: 1000, method: 'ledger_sendTransaction' });
});
