import { gunzipSync, inflateSync } from 'node:zlib';
import { gzipSync, zlibSync } from 'fflate';
import { invalid } from '../errors.js';

/**
 * A revocation list: 131,072 entries (16 KiB), one bit per credential, set when the credential is
 * revoked and never cleared. Bit order is that of RevocationList2020 and StatusList2021: entry 0
 * is the most significant bit of byte 0.
 *
 * Two encodings:
 * - on chain, zlib (RFC 1950) made by fflate at level 9: every node must produce the same bytes,
 *   since they go into the state root, so they come from one pinned library, never from the zlib
 *   that ships with the running Node;
 * - in the revocation list credential, `encodedList` = GZIP (RFC 1952) then base64url without
 *   padding: what the W3C examples and verifiers actually use, although the RevocationList2020
 *   text says ZLIB.
 * Decoding goes through node:zlib with an output cap, so a small hostile input cannot expand
 * into a large allocation.
 */

export const REVOCATION_LIST_ENTRIES = 131_072;
export const REVOCATION_LIST_BYTES = REVOCATION_LIST_ENTRIES / 8;
/** an encodedList longer than this cannot be a compressed 16 KiB list (GZIP adds 18 bytes to stored blocks) */
const MAX_ENCODED_LIST_CHARS = 32 * 1024;

function badList(message: string) {
  return invalid('BAD_REVOCATION_LIST', message);
}

export class RevocationList {
  private constructor(private readonly bits: Uint8Array) {}

  static empty(): RevocationList {
    return new RevocationList(new Uint8Array(REVOCATION_LIST_BYTES));
  }

  static fromBytes(bytes: Uint8Array): RevocationList {
    if (bytes.length !== REVOCATION_LIST_BYTES) throw badList(`a revocation list is ${REVOCATION_LIST_BYTES} bytes, got ${bytes.length}`);
    return new RevocationList(Uint8Array.from(bytes));
  }

  /** From the on-chain (zlib) form. */
  static fromChain(compressed: Uint8Array): RevocationList {
    return RevocationList.fromBytes(inflateCapped(() => inflateSync(compressed, { maxOutputLength: REVOCATION_LIST_BYTES })));
  }

  /** From a credential's `encodedList` (base64url, with or without padding, of GZIP). */
  static fromEncodedList(encoded: string): RevocationList {
    if (typeof encoded !== 'string' || encoded.length > MAX_ENCODED_LIST_CHARS || !/^[A-Za-z0-9_-]*={0,2}$/.test(encoded)) {
      throw badList('encodedList must be base64url text of at most 32 KiB');
    }
    const gz = Buffer.from(encoded, 'base64url');
    return RevocationList.fromBytes(inflateCapped(() => gunzipSync(gz, { maxOutputLength: REVOCATION_LIST_BYTES })));
  }

  isRevoked(index: number): boolean {
    checkIndex(index);
    return (this.bits[index >> 3]! & (0x80 >> (index & 7))) !== 0;
  }

  /** A new list with `index` revoked (revocation is permanent: there is no way back). */
  revoke(index: number): RevocationList {
    checkIndex(index);
    const next = Uint8Array.from(this.bits);
    next[index >> 3]! |= 0x80 >> (index & 7);
    return new RevocationList(next);
  }

  /** How many entries are revoked. */
  count(): number {
    let n = 0;
    for (const b of this.bits) for (let v = b; v; v &= v - 1) n++;
    return n;
  }

  toBytes(): Uint8Array {
    return Uint8Array.from(this.bits);
  }

  /** The on-chain form: deterministic zlib (fflate, level 9). */
  toChain(): Uint8Array {
    return zlibSync(this.bits, { level: 9 });
  }

  /** The credential's `encodedList`: GZIP (mtime 0, so equal lists give equal strings) and base64url without padding. */
  encodedList(): string {
    return Buffer.from(gzipSync(this.bits, { level: 9, mtime: 0 })).toString('base64url');
  }
}

function checkIndex(index: number): void {
  if (!Number.isInteger(index) || index < 0 || index >= REVOCATION_LIST_ENTRIES) {
    throw invalid('BAD_REVOCATION_INDEX', `a revocation list index is an integer from 0 to ${REVOCATION_LIST_ENTRIES - 1}, got ${index}`);
  }
}

function inflateCapped(run: () => Buffer): Uint8Array {
  try {
    return new Uint8Array(run());
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) throw badList(`a revocation list decompresses to more than ${REVOCATION_LIST_BYTES} bytes`);
    throw badList(`not a compressed revocation list: ${(err as Error).message}`);
  }
}
