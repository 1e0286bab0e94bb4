import { base58 } from '@scure/base';
import { invalid } from '../errors.js';

/** Bitcoin-alphabet base58, used for addresses and multibase `z` values. */
export function base58Encode(bytes: Uint8Array): string {
  return base58.encode(bytes);
}

export function base58Decode(text: string): Uint8Array {
  try {
    return base58.decode(text);
  } catch {
    throw invalid('BAD_BASE58', `not valid base58: ${JSON.stringify(text.slice(0, 80))}`);
  }
}
