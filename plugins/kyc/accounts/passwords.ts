import { randomBytes } from 'node:crypto';
import { hash, verify, type Options } from '@node-rs/argon2';
import { validation } from '../../common/http/problems.js';

/**
 * Passwords as Argon2id hashes (PHC strings carrying their own salt and parameters). The work
 * runs on libuv's thread pool, so a login does not block the event loop. Parameters: OWASP's
 * Argon2id minimum (19 MiB, 2 passes, 1 lane).
 */

export const MIN_PASSWORD = 8;
/** a cap, so a megabyte "password" cannot be used to burn hashing time */
export const MAX_PASSWORD = 128;

// 2 is Argon2id in the library's (const) enum, which is not importable as a value
const OPTIONS: Options = { algorithm: 2 as Options['algorithm'], memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export function checkPassword(value: unknown, field = 'password'): string {
  if (value === undefined || value === null) throw validation(`${field} is required`, field);
  if (typeof value !== 'string') throw validation(`${field} must be a string`, field);
  if (value.length < MIN_PASSWORD) throw validation(`${field} must be at least ${MIN_PASSWORD} characters`, field);
  if (value.length > MAX_PASSWORD) throw validation(`${field} must be at most ${MAX_PASSWORD} characters`, field);
  return value;
}

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

export async function verifyPassword(phc: string, password: string): Promise<boolean> {
  try {
    return await verify(phc, password);
  } catch {
    // a malformed stored hash is a wrong password, not a crash of the login route
    return false;
  }
}

let dummy: Promise<string> | undefined;

/**
 * Spends the time of one verification against a throwaway hash: a login for an unknown email
 * then takes as long as one with a wrong password.
 */
export async function burnVerification(password: string): Promise<void> {
  dummy ??= hashPassword(randomBytes(16).toString('hex'));
  await verifyPassword(await dummy, password);
}
