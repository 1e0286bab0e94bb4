import { onlyQuery, queryEnum, queryInt, queryString } from '../../../common/http/validate.js';
import { DEFAULT_LIMIT, MAX_LIMIT, type TxIndex } from '../../chain/tx-index.js';
import { ledgerAddressesOf } from '../../users/ledger-addresses.js';
import type { UserStore } from '../../users/store.js';
import type { WalletRouter } from '../router.js';

/**
 * `GET /v1/transactions` (session): the caller's ledger history from the plugin's own index of
 * the block stream, newest first: `{items, nextCursor}`; each item carries the transaction hash.
 */

export const DATE_RANGES = ['30d', '90d', '1y', 'all'] as const;
export const HISTORY_TYPES = ['all', 'send', 'receive', 'stake', 'unstake', 'credential'] as const;

export function mountHistory(router: WalletRouter, d: { index: Pick<TxIndex, 'list'>; users: Pick<UserStore, 'require'>; now(): number }): void {
  router.add('GET', '/v1/transactions', 'session', async (req) => {
    onlyQuery(req.query, ['dateRange', 'assetId', 'type', 'search', 'limit', 'cursor']);
    const user = await d.users.require(req.caller.userId);
    const assetId = queryString(req.query, 'assetId', 20) ?? 'all';
    return d.index.list(
      ledgerAddressesOf(user),
      {
        dateRange: queryEnum(req.query, 'dateRange', DATE_RANGES) ?? 'all',
        assetId: assetId.toLowerCase(),
        type: queryEnum(req.query, 'type', HISTORY_TYPES) ?? 'all',
        ...(req.query.has('search') ? { search: queryString(req.query, 'search', 200)! } : {}),
        limit: queryInt(req.query, 'limit', DEFAULT_LIMIT, 1, MAX_LIMIT),
        ...(req.query.has('cursor') ? { cursor: queryString(req.query, 'cursor', 200)! } : {}),
      },
      d.now(),
    );
  });
}
