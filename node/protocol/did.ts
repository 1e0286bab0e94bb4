import { invalid } from '../errors.js';
import { addressFromPublicKey, formatAddress, parseAddress } from './address.js';

/** `did:ledger:<network>:<address>`; a DID without the network segment is invalid. */
export const DID_METHOD = 'ledger';
const NETWORK_RE = /^[a-z0-9]{1,32}$/;

export interface ParsedDid {
  did: string;
  network: string;
  /** the 20-byte identifier, the same bytes as the controlling account's address */
  identifier: Uint8Array;
}

export function parseDid(did: unknown): ParsedDid {
  if (typeof did !== 'string' || did.length > 128) throw invalid('INVALID_DID', 'a DID is a string of at most 128 characters');
  const parts = did.split(':');
  if (parts.length !== 4 || parts[0] !== 'did' || parts[1] !== DID_METHOD) {
    throw invalid('INVALID_DID', `not a did:${DID_METHOD} DID of the form did:${DID_METHOD}:<network>:<identifier>: ${did}`);
  }
  const network = parts[2]!;
  if (!NETWORK_RE.test(network)) throw invalid('INVALID_DID', `bad network segment in ${did}`);
  let identifier: Uint8Array;
  try {
    identifier = parseAddress(parts[3]);
  } catch {
    throw invalid('INVALID_DID', `the identifier of ${did} is not base58 of 20 bytes`);
  }
  return { did, network, identifier };
}

export function didForIdentifier(network: string, identifier: Uint8Array): string {
  return `did:${DID_METHOD}:${network}:${formatAddress(identifier)}`;
}

export function didForPublicKey(network: string, publicKey: Uint8Array): string {
  return `did:${DID_METHOD}:${network}:${addressFromPublicKey(publicKey)}`;
}
