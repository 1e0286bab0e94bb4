import { invalid } from '../../../node/errors.js';
import type { Metadata } from '../types.js';

/**
 * A session's `metadata` (seed 001: "arbitrary key-value pairs"): any JSON object the
 * organization sends (strings, numbers, booleans, null, arrays, nested objects), kept and
 * returned as given on create, GET, list and in the verification webhooks. Bounded, because it
 * rides along on every list page and event: at most METADATA_LIMITS.keys keys at the top, each
 * 1 to keyChars characters, nested at most `depth` levels, and `bytes` of JSON (UTF-8) in all.
 * An integer beyond 2^53 - 1 is refused rather than rounded: JSON readers cannot all keep it.
 */

export const METADATA_LIMITS = { keys: 50, keyChars: 40, depth: 8, bytes: 8192 } as const;

const refuse = (code: string, message: string) => invalid(code, message, { field: 'metadata' });

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Refuses what is not a JSON value, or nests deeper than the limit; `path` names the place. */
function check(value: unknown, path: string, depth: number): void {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw refuse('METADATA_VALUE_INVALID', `${path} must be a finite number`);
    return;
  }
  if (typeof value === 'bigint') {
    throw refuse('METADATA_NUMBER_UNSAFE', `${path} is an integer beyond 2^53 - 1 (${String(value).slice(0, 40)}), which not every JSON reader keeps exactly: send it as a string`);
  }
  if (typeof value !== 'object') throw refuse('METADATA_VALUE_INVALID', `${path} is not a JSON value`);
  if (depth > METADATA_LIMITS.depth) throw refuse('METADATA_TOO_DEEP', `metadata nests at most ${METADATA_LIMITS.depth} levels of objects and arrays; ${path} is deeper`);
  if (Array.isArray(value)) value.forEach((v, i) => check(v, `${path}[${i}]`, depth + 1));
  else for (const [k, v] of Object.entries(value)) check(v, `${path}.${k.slice(0, 40)}`, depth + 1);
}

/** The creation body's `metadata`: absent or null is `{}`. */
export function parseMetadata(value: unknown): Metadata {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) throw refuse('METADATA_NOT_OBJECT', 'metadata must be a JSON object of key-value pairs');
  const keys = Object.keys(value);
  if (keys.length > METADATA_LIMITS.keys) throw refuse('METADATA_TOO_MANY_KEYS', `metadata takes at most ${METADATA_LIMITS.keys} keys; it has ${keys.length}`);
  for (const k of keys) {
    if (k.length < 1 || k.length > METADATA_LIMITS.keyChars) throw refuse('METADATA_KEY_INVALID', `metadata keys are 1 to ${METADATA_LIMITS.keyChars} characters (${JSON.stringify(k.slice(0, 50))})`);
  }
  check(value, 'metadata', 1);
  const bytes = Buffer.byteLength(JSON.stringify(value), 'utf8');
  if (bytes > METADATA_LIMITS.bytes) throw refuse('METADATA_TOO_LARGE', `metadata is ${bytes} bytes of JSON; the limit is ${METADATA_LIMITS.bytes} bytes (8 KB)`);
  return value as Metadata;
}
