import { transactionToJson } from '../../protocol/transaction.js';
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
      // no bound here: the mempool measures the UTF-8 size and refuses an oversize with TX_TOO_LARGE
      // (-32005, with size and limit); the request body limit stops absurd strings earlier
      params: [param('tx_json', string())],
      handler: async (text) => (await ctx.mempool.admitJson(text)).hash,
    }),
  ];
}
