import { formatAddress } from '../../../node/protocol/address.js';
import { parseDid } from '../../../node/protocol/did.js';
import type { User } from '../types.js';

/**
 * The ledger accounts that are the user's: its signing key's, its DID's identifier (the account
 * of the key that created the DID: after a recovery, or for an imported DID, it differs from the
 * signing key's) and the ledger entries it registered. Their history and balances are the user's.
 */
export function ledgerAddressesOf(user: Pick<User, 'did' | 'address' | 'addresses'>): string[] {
  const out = new Set<string>([user.address]);
  try {
    out.add(formatAddress(parseDid(user.did).identifier));
  } catch {
    // a stored DID always parses; nothing to add otherwise
  }
  for (const entry of user.addresses) if (entry.chain === 'ledger') out.add(entry.address);
  return [...out];
}
