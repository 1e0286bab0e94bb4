import { notFound, validation } from '../../../common/http/problems.js';
import { DID_PATTERN, onlyQuery, queryString } from '../../../common/http/validate.js';
import type { User } from '../../types.js';
import { HANDLE_PATTERN, type UserStore } from '../../users/store.js';
import type { WalletRouter } from '../router.js';
import { refuseSecretParams } from '../secrets.js';

/**
 * `GET /v1/directory/resolve?did=|handle=` (session): a registered wallet user's receive
 * addresses, by DID or by its unique handle (exactly one of the two, else 400; 404 when no
 * registered user matches). Only what a payer needs is shown: the DID, handle, display name, the
 * ledger receive address and the address entries without their derivation paths.
 */

export interface DirectoryDeps {
  users: Pick<UserStore, 'byDid' | 'byHandle'>;
}

export function mountDirectory(router: WalletRouter, deps: DirectoryDeps): void {
  router.add('GET', '/v1/directory/resolve', 'session', async (req) => {
    refuseSecretParams(req.query);
    onlyQuery(req.query, ['did', 'handle']);
    const did = queryString(req.query, 'did', 128);
    const handle = queryString(req.query, 'handle', 64);
    if ((did === undefined) === (handle === undefined)) throw validation('give exactly one of did or handle');
    if (did !== undefined && !DID_PATTERN.test(did)) throw validation('did must be a DID (did:ledger:<network>:<address>)', 'did');
    if (handle !== undefined && !HANDLE_PATTERN.test(handle.toLowerCase())) throw validation('handle must be 3-32 characters of a-z, 0-9, _, . and -, starting and ending with a letter or digit', 'handle');
    const user = did !== undefined ? await deps.users.byDid(did) : await deps.users.byHandle(handle!);
    if (!user) throw notFound(did !== undefined ? `no wallet user is registered with ${did}` : `no wallet user has the handle ${handle}`);
    return directoryEntry(user);
  });
}

export function directoryEntry(user: User): Record<string, unknown> {
  return {
    did: user.did,
    handle: user.handle,
    displayName: user.displayName,
    address: user.address,
    addresses: user.addresses.map((e) => ({ chain: e.chain, address: e.address })),
  };
}
