import { base58Decode, base58Encode } from '../crypto/base58.js';
import { blake3 } from '../crypto/hash.js';
import { invalid } from '../errors.js';

export const ADDRESS_LENGTH = 20;

const ADDRESS_CACHE_LIMIT = 50_000;
const addresses = new Map<string, Uint8Array>();

/** The first 20 bytes of BLAKE3 over the 32-byte Ed25519 public key (remembered: senders repeat). */
export function addressBytesFromPublicKey(publicKey: Uint8Array): Uint8Array {
  if (publicKey.length !== 32) throw invalid('BAD_PUBLIC_KEY', `an Ed25519 public key is 32 bytes, got ${publicKey.length}`);
  const key = Buffer.from(publicKey.buffer, publicKey.byteOffset, publicKey.length).toString('hex');
  let address = addresses.get(key);
  if (!address) {
    address = blake3(publicKey).slice(0, ADDRESS_LENGTH);
    if (addresses.size >= ADDRESS_CACHE_LIMIT) addresses.clear();
    addresses.set(key, address);
  }
  return Uint8Array.from(address);
}

export function addressFromPublicKey(publicKey: Uint8Array): string {
  return base58Encode(addressBytesFromPublicKey(publicKey));
}

export function formatAddress(bytes: Uint8Array): string {
  if (bytes.length !== ADDRESS_LENGTH) throw invalid('BAD_ADDRESS', `an address is ${ADDRESS_LENGTH} bytes, got ${bytes.length}`);
  return base58Encode(bytes);
}

export function parseAddress(text: unknown): Uint8Array {
  if (typeof text !== 'string' || text.length === 0 || text.length > 40) {
    throw invalid('BAD_ADDRESS', 'an address is a base58 string of 20 bytes');
  }
  const bytes = base58Decode(text);
  if (bytes.length !== ADDRESS_LENGTH) throw invalid('BAD_ADDRESS', `address ${text} decodes to ${bytes.length} bytes, not ${ADDRESS_LENGTH}`);
  return bytes;
}

export function isAddress(text: unknown): boolean {
  try {
    parseAddress(text);
    return true;
  } catch {
    return false;
  }
}
