import { isAddress } from '../../../../node/protocol/address.js';
import { notFound, validation } from '../../../common/http/problems.js';
import { Reply } from '../../../common/http/router.js';
import { DID_PATTERN, oneOf, onlyFields, onlyQuery, optionalString } from '../../../common/http/validate.js';
import { ADDRESS_BOOK_CHAINS, type AddressBookAddress, type AddressBookChain, type AddressBookStore } from '../../addressbook/store.js';
import { isBtcAddress } from '../../market/btc.js';
import { isEthAddress } from '../../market/eth.js';
import type { WalletRouter } from '../router.js';
import { refuseSecretParams, refuseSecrets } from '../secrets.js';

/**
 * The user's address book (seed 001 B, "address-book entry"):
 *   GET    /v1/address-book        the entries, a JSON array
 *   POST   /v1/address-book        `{name, did?, addresses?: [{chain, address}]}`: 201 and the entry
 *   DELETE /v1/address-book/<id>   204; 404 for an id that is not one of the caller's entries
 * `name` is 1-64 characters; an entry has a DID, addresses, or both; at most 20 addresses, each a
 * plausible address of its chain (ledger: base58 of 20 bytes; eth: 0x and 40 hex, its EIP-55
 * checksum when mixed case; btc: base58check P2PKH/P2SH or bech32/bech32m segwit).
 */

export const MAX_NAME_CHARS = 64;
export const MAX_ADDRESSES = 20;
const MAX_DID_CHARS = 256;

const PLAUSIBLE: Record<AddressBookChain, { test(address: string): boolean; what: string }> = {
  ledger: { test: isAddress, what: 'a ledger address (base58 of 20 bytes)' },
  eth: { test: isEthAddress, what: 'an Ethereum address (0x and 40 hex digits, with a valid EIP-55 checksum when mixed case)' },
  btc: { test: isBtcAddress, what: 'a Bitcoin address (base58check P2PKH/P2SH or bech32/bech32m segwit, with a valid checksum)' },
};

export function mountAddressBook(router: WalletRouter, deps: { book: AddressBookStore }): void {
  router.add('GET', '/v1/address-book', 'session', async (req) => {
    refuseSecretParams(req.query);
    onlyQuery(req.query, []);
    return deps.book.list(req.caller.userId);
  });

  router.add('POST', '/v1/address-book', 'session', async (req) => {
    refuseSecretParams(req.query);
    const body = await req.body();
    refuseSecrets(body);
    return new Reply(201, await deps.book.create(req.caller.userId, parseEntry(body)));
  });

  router.add('DELETE', /^\/v1\/address-book\/([^/]{1,200})$/, 'session', async (req) => {
    refuseSecretParams(req.query);
    onlyQuery(req.query, []);
    const id = req.params[0]!;
    if (!(await deps.book.remove(req.caller.userId, id))) throw notFound(`no address-book entry ${id.slice(0, 40)} in your address book`);
    return new Reply(204, null);
  });
}

/** The entry of a POST body, or a 400 naming the first fault. */
export function parseEntry(body: Record<string, unknown>): { name: string; did: string | null; addresses: AddressBookAddress[] } {
  onlyFields(body, ['name', 'did', 'addresses']);
  const name = optionalString(body, 'name', { max: MAX_NAME_CHARS })?.trim();
  if (name === undefined) throw validation(`name is required: 1 to ${MAX_NAME_CHARS} characters`, 'name');
  const did = optionalString(body, 'did', { max: MAX_DID_CHARS, pattern: DID_PATTERN, patternText: 'a DID (did:<method>:<id>)' }) ?? null;
  const raw = body['addresses'] ?? [];
  if (!Array.isArray(raw)) throw validation('addresses must be an array of {chain, address}', 'addresses');
  if (raw.length > MAX_ADDRESSES) throw validation(`an entry has at most ${MAX_ADDRESSES} addresses (got ${raw.length})`, 'addresses');
  const addresses = raw.map((a, i) => parseAddress(a, i));
  if (did === null && addresses.length === 0) throw validation('an entry needs a did, addresses, or both', 'did');
  const seen = new Set<string>();
  for (const a of addresses) {
    const k = `${a.chain}:${a.chain === 'ledger' ? a.address : a.address.toLowerCase()}`;
    if (seen.has(k)) throw validation(`the ${a.chain} address ${a.address} is listed twice`, 'addresses');
    seen.add(k);
  }
  return { name, did, addresses };
}

function parseAddress(value: unknown, i: number): AddressBookAddress {
  const field = `addresses[${i}]`;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw validation(`${field} must be an object {chain, address}`, field);
  const entry = value as Record<string, unknown>;
  for (const k of Object.keys(entry)) if (k !== 'chain' && k !== 'address') throw validation(`${field} has an unknown field ${k}; allowed: chain, address`, `${field}.${k}`);
  const chain = oneOf(entry['chain'], `${field}.chain`, ADDRESS_BOOK_CHAINS);
  const address = optionalString({ [`${field}.address`]: entry['address'] }, `${field}.address`, { max: 100 });
  if (address === undefined) throw validation(`${field}.address is required`, `${field}.address`);
  if (!PLAUSIBLE[chain].test(address)) throw validation(`${field}.address is not ${PLAUSIBLE[chain].what}: ${JSON.stringify(address.slice(0, 100))}`, `${field}.address`);
  return { chain, address };
}
