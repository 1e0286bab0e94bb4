import type { PayloadKind } from '../../../../node/protocol/payloads.js';
import { Reply } from '../../../common/http/router.js';
import { onlyQuery } from '../../../common/http/validate.js';
import type { NetworkStatsService } from '../../chain/network-stats.js';
import type { TransactionPreparer } from '../../chain/prepare.js';
import { readTransactionText, type Relay } from '../../chain/relay.js';
import type { WalletRequest, WalletRouter } from '../router.js';
import { refuseSecretParams } from '../secrets.js';

/**
 * Preparing and relaying the user's own ledger transactions, and staking stats (seed 001 B). The
 * relays answer 202: the transaction is in the mempool, not yet in a block; its receipt is at
 * `ledger_getReceipt` and its row, once committed, in `GET /v1/transactions`.
 */

export interface TransactionRouteDeps {
  preparer: TransactionPreparer;
  relay: Relay;
  stats: NetworkStatsService;
}

export function mountTransactions(router: WalletRouter, deps: TransactionRouteDeps): void {
  router.add('POST', '/v1/transactions/prepare', 'session', async (req) => {
    noQuery(req.query);
    return deps.preparer.prepare(req.caller, await req.body());
  });

  const relayRoute = (path: string, kinds: readonly PayloadKind[]) =>
    router.add('POST', path, 'session', async (req: WalletRequest<'session'>) => {
      noQuery(req.query);
      const text = await readTransactionText(req.ctx);
      return new Reply(202, await deps.relay.relay(req.caller, text, kinds));
    });
  relayRoute('/v1/transactions/send', ['Transfer']);
  relayRoute('/v1/staking/stake', ['Stake']);
  relayRoute('/v1/staking/unstake', ['Unstake']);

  router.add('GET', '/v1/staking/network-stats', 'none', (req) => {
    noQuery(req.query);
    return deps.stats.get();
  });
}

/** None of these routes takes a query; a secret in one is refused as in a body. */
function noQuery(query: URLSearchParams): void {
  refuseSecretParams(query);
  onlyQuery(query, []);
}
