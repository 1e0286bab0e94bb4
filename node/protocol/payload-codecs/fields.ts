import { invalid } from '../../errors.js';
import { ADDRESS_LENGTH, parseAddress } from '../address.js';
import { amountFromJson } from '../amount.js';
import { fromHex, toHex } from '../bytes.js';
import { parseCredentialId } from '../credential-id.js';
import { parseDid } from '../did.js';
import { nonIntegerLiteral } from '../json.js';
import type { JsonForm } from '../payload-types.js';

/** The field rules every payload codec shares. The binary decoders enforce the same rules as the JSON ones. */

export function fields(body: Record<string, unknown>, kind: string, allowed: string[]): void {
  for (const key of Object.keys(body)) {
    if (!allowed.includes(key)) throw invalid('MALFORMED_PAYLOAD', `${kind} has no field ${JSON.stringify(key)} (fields: ${allowed.join(', ')})`);
  }
}

export function nonZero(amount: bigint, kind: string): bigint {
  if (amount === 0n) throw invalid('MALFORMED_PAYLOAD', `${kind}.amount must be greater than zero`);
  return amount;
}

export function positiveAmount(value: unknown, kind: string): bigint {
  const amount = amountFromJson(value, `${kind}.amount`);
  if (amount === 0n) throw invalid('MALFORMED_PAYLOAD', `${kind}.amount must be greater than zero`);
  return amount;
}

export function byteArrayFromJson(value: unknown, length: number, what: string): Uint8Array {
  const ok = (b: unknown, i: number) => Number.isInteger(b) && (b as number) >= 0 && (b as number) <= 255 && nonIntegerLiteral(value as unknown[], i) === undefined;
  if (!Array.isArray(value) || value.length !== length || !value.every(ok)) {
    throw invalid('MALFORMED_TRANSACTION', `${what} must be an array of ${length} bytes (integers 0-255)`);
  }
  return Uint8Array.from(value as number[]);
}

export function addressFromJson(value: unknown, what: string): Uint8Array {
  if (Array.isArray(value)) return byteArrayFromJson(value, ADDRESS_LENGTH, what);
  try {
    return parseAddress(value);
  } catch {
    throw invalid('MALFORMED_PAYLOAD', `${what} must be a base58 address of 20 bytes`);
  }
}

/** Fixed-length bytes from JSON: lowercase hex (the standard form) or an array of byte values (the raw form). */
export function fixedBytesFromJson(value: unknown, length: number, what: string): Uint8Array {
  try {
    return typeof value === 'string' ? fromHex(value, length, what) : byteArrayFromJson(value, length, what);
  } catch {
    throw invalid('MALFORMED_PAYLOAD', `${what} must be ${length} bytes: lowercase hex or an array of byte values`);
  }
}

export function fixedBytesToJson(bytes: Uint8Array, form: JsonForm): string | number[] {
  return form === 'raw' ? Array.from(bytes) : toHex(bytes);
}

/** Rounds and heights: u64 on the wire, but no larger than 2^53 - 1 (JSON numbers, and the engine's). */
export function heightFromWire(n: bigint, what: string): number {
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw invalid('MALFORMED_PAYLOAD', `${what} must be at most 2^53 - 1`);
  return Number(n);
}

export function heightFromJson(value: unknown, what: string): number {
  const n = typeof value === 'bigint' ? value : typeof value === 'number' && Number.isSafeInteger(value) ? BigInt(value) : -1n;
  if (n < 0n) throw invalid('MALFORMED_PAYLOAD', `${what} must be a non-negative integer`);
  return heightFromWire(n, what);
}


/** A DID in a payload, normalised by parseDid; malformed text is a payload error naming the field. */
export function didField(value: unknown, what: string): string {
  try {
    return parseDid(value).did;
  } catch (err) {
    throw invalid('MALFORMED_PAYLOAD', `${what}: ${(err as Error).message}`);
  }
}

/** A bounded integer field: `max` is inclusive. */
export function intField(value: unknown, min: number, max: number, what: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalid('MALFORMED_PAYLOAD', `${what} must be an integer from ${min} to ${max}`);
  }
  return value;
}

/** A credential id (URN or UUID) in a payload; malformed text is a payload error naming the field. */
export function credentialIdField(value: unknown, what: string): Uint8Array {
  try {
    return parseCredentialId(value);
  } catch (err) {
    throw invalid('MALFORMED_PAYLOAD', `${what}: ${(err as Error).message}`);
  }
}
