import { MAX_TX_JSON_BYTES, transactionToJson } from '../../protocol/transaction.js';
import { hash, param, string } from '../params.js';
import { defineMethod, type RpcMethod } from '../server.js';
import type { RpcContext } from './context.js';

export function transactionMethods(ctx: RpcContext): RpcMethod[] {
  return [
    defineMethod({ name: 'ledger_getReceipt', params: [param('tx_hash', hash())], handler: async (h) => (await ctx.store.receipts.byTxHash(h)) ?? null }),
    defineMethod({
      name: 'ledger_getTransaction',
      params: [param('tx_hash', hash())],
      // The raw form: keys and addresses as byte arrays (seed 002).
      handler: async (h) => {
        const found = await ctx.store.getTransaction(h);
        return found ? transactionToJson(found.tx, 'raw') : null;
      },
    }),
    defineMethod({
      name: 'ledger_sendTransaction',
      write: true,
      // the mempool measures the UTF-8 size precisely; this bound only stops absurd strings early
      params: [param('tx_json', string({ maxLength: MAX_TX_JSON_BYTES }))],
      handler: async (text) => (await ctx.mempool.admitJson(text)).hash,
    }),
  ];
}
