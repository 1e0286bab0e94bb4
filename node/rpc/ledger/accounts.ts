import { formatAddress, parseAddress } from '../../protocol/address.js';
import type { ValidatorRecord } from '../../protocol/records.js';
import { address, oneOf, optionalParam, param } from '../params.js';
import { defineMethod, type RpcMethod } from '../server.js';
import type { RpcContext } from './context.js';

/** The RPC Validator shape: `unbonding` is the total still locked or not yet released. */
function validatorJson(addr: Uint8Array, v: ValidatorRecord) {
  return { address: formatAddress(addr), staked: v.staked, unbonding: v.unbonding.reduce((n, u) => n + u.amount, 0n), reputation: v.reputation, active: v.active };
}

const BLOCK_TAGS = `"latest" (the committed next nonce, the default) or "pending" (also counting the sender's transactions pending in this node's mempool)`;

export function accountMethods(ctx: RpcContext): RpcMethod[] {
  return [
    defineMethod({ name: 'ledger_getBalance', params: [param('address', address())], handler: async (a) => (await ctx.store.accounts.get(parseAddress(a))).balance }),
    defineMethod({
      name: 'ledger_getNonce',
      params: [param('address', address()), optionalParam('block', oneOf(['latest', 'pending'], BLOCK_TAGS))],
      handler: async (a, block) => {
        const bytes = parseAddress(a);
        const committed = (await ctx.store.accounts.get(bytes)).nonce;
        return block === 'pending' ? ctx.mempool.pendingNonce(bytes, committed) : committed;
      },
    }),
    defineMethod({
      name: 'ledger_getValidators',
      params: [],
      handler: async () => (await ctx.store.validators.list()).map((v) => validatorJson(v.address, v.validator)),
    }),
    defineMethod({
      name: 'ledger_getValidatorStake',
      params: [param('address', address())],
      handler: async (a) => {
        const bytes = parseAddress(a);
        const v = await ctx.store.validators.get(bytes);
        return v ? validatorJson(bytes, v) : null;
      },
    }),
  ];
}
