import { base58Decode, base58Encode } from './base58.js';
import { invalid } from '../errors.js';

/** multicodec varint for ed25519-pub */
const ED25519_PUB_PREFIX = Uint8Array.of(0xed, 0x01);

/** `z` + base58btc(bytes): multibase base58btc, as proofValue and publicKeyMultibase use it. */
export function base58btcMultibase(bytes: Uint8Array): string {
  return 'z' + base58Encode(bytes);
}

export function fromBase58btcMultibase(value: string, what = 'multibase value'): Uint8Array {
  if (typeof value !== 'string' || !value.startsWith('z')) throw invalid('BAD_MULTIBASE', `${what} must start with z (base58btc)`);
  return base58Decode(value.slice(1));
}

/** `z` + base58btc(0xed01 || key), the publicKeyMultibase of an Ed25519VerificationKey2020. */
export function ed25519PublicKeyMultibase(publicKey: Uint8Array): string {
  const bytes = new Uint8Array(ED25519_PUB_PREFIX.length + publicKey.length);
  bytes.set(ED25519_PUB_PREFIX);
  bytes.set(publicKey, ED25519_PUB_PREFIX.length);
  return base58btcMultibase(bytes);
}

export function ed25519PublicKeyFromMultibase(value: string): Uint8Array {
  const bytes = fromBase58btcMultibase(value, 'publicKeyMultibase');
  if (bytes.length !== 34 || bytes[0] !== 0xed || bytes[1] !== 0x01) {
    throw invalid('BAD_MULTIBASE', 'publicKeyMultibase is not an ed25519-pub multicodec key');
  }
  return bytes.subarray(2);
}
