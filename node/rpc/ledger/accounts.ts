import { formatAddress, parseAddress } from '../../protocol/address.js';
import type { ValidatorRecord } from '../../protocol/records.js';
import { address, param } from '../params.js';
import { defineMethod, type RpcMethod } from '../server.js';
import type { RpcContext } from './context.js';

/** The RPC Validator shape: `unbonding` is the total still locked or not yet released. */
function validatorJson(addr: Uint8Array, v: ValidatorRecord) {
  return { address: formatAddress(addr), staked: v.staked, unbonding: v.unbonding.reduce((n, u) => n + u.amount, 0n), reputation: v.reputation, active: v.active };
}

export function accountMethods(ctx: RpcContext): RpcMethod[] {
  return [
    defineMethod({ name: 'ledger_getBalance', params: [param('address', address())], handler: async (a) => (await ctx.store.accounts.get(parseAddress(a))).balance }),
    defineMethod({ name: 'ledger_getNonce', params: [param('address', address())], handler: async (a) => (await ctx.store.accounts.get(parseAddress(a))).nonce }),
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
