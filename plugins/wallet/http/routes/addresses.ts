import { onlyQuery } from '../../../common/http/validate.js';
import type { UserStore } from '../../users/store.js';
import type { WalletRouter } from '../router.js';
import { refuseSecretParams } from '../secrets.js';

/**
 * `GET /v1/wallet/addresses` (session): the user's wallet address entries `{chain, address,
 * derivation}`, a bare array like the other lists; the ledger entry of the user's own account
 * comes first and is always there.
 */

export interface AddressesDeps {
  users: Pick<UserStore, 'require'>;
}

export function mountAddresses(router: WalletRouter, deps: AddressesDeps): void {
  router.add('GET', '/v1/wallet/addresses', 'session', async (req) => {
    refuseSecretParams(req.query);
    onlyQuery(req.query, []);
    return (await deps.users.require(req.caller.userId)).addresses;
  });
}
