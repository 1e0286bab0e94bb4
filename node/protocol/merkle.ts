import { blake3 } from '../crypto/hash.js';
import { concatBytes } from './bytes.js';

export const ZERO_HASH = new Uint8Array(32);
const NODE = Uint8Array.of(0x01);

/**
 * Binary Merkle root over 32-byte leaves: parent = BLAKE3(0x01 || left || right); an odd node at
 * the end of a level moves up unchanged; the root of no leaves is 32 zero bytes.
 */
export function merkleRoot(leaves: Uint8Array[]): Uint8Array {
  if (leaves.length === 0) return ZERO_HASH;
  let level = leaves;
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const right = level[i + 1];
      next.push(right ? blake3(concatBytes(NODE, level[i]!, right)) : level[i]!);
    }
    level = next;
  }
  return level[0]!;
}
