import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { AUTH_ERRORS, authError } from './errors.js';

/**
 * API keys for machine callers: `<prefix><43 base64url characters>` (32 random bytes). Only the
 * SHA-256 of a key is stored. A fast hash is enough here, unlike for passwords: a 256-bit random
 * key cannot be guessed from its hash, and a plain digest lets a request find its key by lookup.
 */

/** A prefix names the product that issued the key (`slk_`), so a leaked key can be recognised by scanners. */
const PREFIX = /^[a-z][a-z0-9]{0,6}_$/;
const KEY_BYTES = 32;
const BODY = /^[A-Za-z0-9_-]{43}$/;
const HASH = /^[0-9a-f]{64}$/;
const DISPLAY_CHARS = 12;

export interface NewApiKey {
  /** the key itself: shown to its owner once, never stored */
  key: string;
  /** a public id for the key's record (list, revoke) */
  id: string;
  /** SHA-256 of the key, hex: what the store keeps */
  hash: string;
  /** the first 12 characters and `…`, to tell keys apart in a list */
  displayPrefix: string;
}

export function newApiKey(prefix: string): NewApiKey {
  if (typeof prefix !== 'string' || !PREFIX.test(prefix)) {
    throw authError(AUTH_ERRORS.API_KEY_PREFIX_INVALID, 'an API key prefix is a lowercase letter, up to 6 lowercase letters or digits, and `_` (e.g. slk_)', 'invalid');
  }
  const key = prefix + randomBytes(KEY_BYTES).toString('base64url');
  return { key, id: randomUUID(), hash: hashApiKey(key), displayPrefix: displayPrefix(key) };
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function displayPrefix(key: string): string {
  return `${key.slice(0, DISPLAY_CHARS)}…`;
}

/** Whether `key` has the shape newApiKey(prefix) makes: refuse junk before hashing and looking it up. */
export function looksLikeApiKey(key: unknown, prefix: string): key is string {
  return typeof key === 'string' && key.startsWith(prefix) && BODY.test(key.slice(prefix.length));
}

/**
 * Compares two hex hashes in constant time. Lookups by hash are already safe; this is for the
 * case where a record is found some other way (by id) and its hash must then match.
 */
export function sameHash(a: string, b: string): boolean {
  if (typeof a !== 'string' || typeof b !== 'string' || !HASH.test(a) || !HASH.test(b)) return false;
  return timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));
}
