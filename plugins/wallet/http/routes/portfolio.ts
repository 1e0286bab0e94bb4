import { onlyQuery, queryString } from '../../../common/http/validate.js';
import type { ChainView } from '../../../../node/plugins/chain-view.js';
import { parseAddress } from '../../../../node/protocol/address.js';
import type { ChainAdapters } from '../../market/adapters.js';
import type { PriceFeed } from '../../market/prices.js';
import { totalUsd, valueHoldings } from '../../market/valuation.js';
import { ledgerAddressesOf } from '../../users/ledger-addresses.js';
import type { UserStore } from '../../users/store.js';
import type { WalletRouter } from '../router.js';

/**
 * `GET /v1/portfolio/assets`: the live ledger balance of each of the user's ledger accounts (from
 * committed state, with what it has staked), and the balance of each registered `eth` and `btc`
 * address through the configured adapters; a chain without one is `available: false` with the
 * reason, never a zero. USD values come from the price feed, or are null with the reason.
 *
 * `GET /v1/prices/<assetId>/series?range=1d|7d|30d` (default 7d): the feed's series, cached.
 */

export interface PortfolioDeps {
  chain: Pick<ChainView, 'account' | 'validator'>;
  users: Pick<UserStore, 'require'>;
  adapters: Pick<ChainAdapters, 'balanceOf'>;
  prices: Pick<PriceFeed, 'quotes' | 'series'>;
}

/** the native token's decimals: 1 LGR = 10^8 units */
const LGR_DECIMALS = 8;

export function mountPortfolio(router: WalletRouter, d: PortfolioDeps): void {
  router.add('GET', '/v1/portfolio/assets', 'session', async (req) => {
    onlyQuery(req.query, []);
    const user = await d.users.require(req.caller.userId);
    const ledger = await Promise.all(
      ledgerAddressesOf(user).map(async (address) => {
        const bytes = parseAddress(address);
        const [account, validator] = await Promise.all([d.chain.account(bytes), d.chain.validator(bytes)]);
        return { available: true as const, chain: 'ledger', address, assetId: 'lgr', balance: account.balance.toString(), staked: (validator?.staked ?? 0n).toString(), decimals: LGR_DECIMALS };
      }),
    );
    const others = await Promise.all(user.addresses.filter((a) => a.chain !== 'ledger').map((a) => d.adapters.balanceOf(a.chain, a.address)));
    const quotes = await d.prices.quotes(['lgr', 'eth', 'btc']);
    const assets = valueHoldings([...ledger, ...others], quotes);
    return { assets, totalUsd: totalUsd(assets), hideBalances: user.hideBalances };
  });

  router.add('GET', /^\/v1\/prices\/([^/]+)\/series$/, 'session', async (req) => {
    onlyQuery(req.query, ['range']);
    const range = queryString(req.query, 'range', 10) ?? '7d';
    return d.prices.series(req.params[0]!.toLowerCase() as never, range as never);
  });
}
