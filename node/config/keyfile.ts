import { bls12_381 } from '@noble/curves/bls12-381.js';
import { chmod, mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { generateSeed, keyPairFromSeed } from '../crypto/ed25519.js';
import { LedgerError } from '../errors.js';
import { addressFromPublicKey } from '../protocol/address.js';
import { bytesEqual, fromHex, toHex } from '../protocol/bytes.js';
import { didForPublicKey, parseDid } from '../protocol/did.js';

/**
 * Key files. An account key file is
 *   { "type": "ed25519", "public_key": hex, "secret_key": hex (the 32-byte seed), "address", "did" }
 * and a validator key file adds "bls_secret_key" (32 bytes) and "bls_public_key" (48 bytes, BLS12-381
 * min-pk G1). Files are written 0600 in a 0700 directory and never overwritten without `force`.
 */

const bls = bls12_381.longSignatures;

export interface AccountKey {
  seed: Uint8Array;
  publicKey: Uint8Array;
  address: string;
  did: string;
  /** the DID's network segment */
  network: string;
}

export interface ValidatorKey extends AccountKey {
  blsSecretKey: Uint8Array;
  blsPublicKey: Uint8Array;
}

export type KeyFile = AccountKey | ValidatorKey;

export function isValidatorKey(k: KeyFile): k is ValidatorKey {
  return 'blsSecretKey' in k;
}

export function accountKeyFromSeed(seed: Uint8Array, network: string): AccountKey {
  const { publicKey } = keyPairFromSeed(seed);
  return { seed: Uint8Array.from(seed), publicKey, address: addressFromPublicKey(publicKey), did: didForPublicKey(network, publicKey), network };
}

export function generateAccountKey(network: string): AccountKey {
  return accountKeyFromSeed(generateSeed(), network);
}

export function blsPublicKeyOf(secretKey: Uint8Array): Uint8Array {
  return bls.getPublicKey(secretKey).toBytes();
}

export function generateValidatorKey(network: string): ValidatorKey {
  const { secretKey, publicKey } = bls.keygen();
  return { ...generateAccountKey(network), blsSecretKey: secretKey, blsPublicKey: publicKey.toBytes() };
}

export function keyFileToJson(k: KeyFile): Record<string, string> {
  const out: Record<string, string> = {
    type: 'ed25519',
    public_key: toHex(k.publicKey),
    secret_key: toHex(k.seed),
    address: k.address,
    did: k.did,
  };
  if (isValidatorKey(k)) {
    out.bls_secret_key = toHex(k.blsSecretKey);
    out.bls_public_key = toHex(k.blsPublicKey);
  }
  return out;
}

export function keyError(where: string, message: string): LedgerError {
  return new LedgerError('BAD_KEY_FILE', `key file ${where}: ${message}`, 'invalid', { file: where });
}

const ACCOUNT_FIELDS = ['type', 'public_key', 'secret_key', 'address', 'did'];
const VALIDATOR_FIELDS = [...ACCOUNT_FIELDS, 'bls_secret_key', 'bls_public_key'];

/** The JSON object of a key file, with only `allowed` fields and each of `strings` a string. */
export function keyFileObject(value: unknown, where: string, allowed: readonly string[], strings: readonly string[]): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw keyError(where, 'must hold a JSON object');
  const o = value as Record<string, unknown>;
  for (const key of Object.keys(o)) if (!allowed.includes(key)) throw keyError(where, `unknown field ${JSON.stringify(key)}`);
  for (const key of strings) if (typeof o[key] !== 'string') throw keyError(where, `missing string field ${JSON.stringify(key)}`);
  if (o.type !== 'ed25519') throw keyError(where, `type must be "ed25519", got ${JSON.stringify(o.type)}`);
  return o;
}

export function hexField(o: Record<string, unknown>, field: string, length: number, where: string): Uint8Array {
  try {
    return fromHex(o[field] as string, length, field);
  } catch (err) {
    throw keyError(where, (err as Error).message);
  }
}

/** A key file's public part: the address and DID are checked against the public key. */
export function publicPart(o: Record<string, unknown>, publicKey: Uint8Array, where: string): Omit<AccountKey, 'seed'> {
  const address = addressFromPublicKey(publicKey);
  if (o.address !== address) throw keyError(where, `address ${String(o.address)} does not match the public key (expected ${address})`);
  let network: string;
  try {
    network = parseDid(o.did).network;
  } catch (err) {
    throw keyError(where, (err as Error).message);
  }
  if (o.did !== didForPublicKey(network, publicKey)) throw keyError(where, `did ${String(o.did)} does not match the public key`);
  return { publicKey, address, did: o.did as string, network };
}

/** The public key must be the seed's: a file whose parts disagree is refused. */
export function checkSeed(seed: Uint8Array, publicKey: Uint8Array, where: string, field = 'secret_key'): void {
  if (!bytesEqual(keyPairFromSeed(seed).publicKey, publicKey)) throw keyError(where, `public_key does not match ${field}`);
}

/** Validates every field against the secret keys: a file whose public parts disagree is refused. */
export function keyFileFromJson(value: unknown, where = '<input>'): KeyFile {
  if (typeof value === 'object' && value !== null && 'sealed' in value) {
    // a service key file (service-key-file.ts): only the node, with the secret, opens it
    throw keyError(where, 'holds its seed sealed under the service-key secret (a service key file); it cannot be used as a key here');
  }
  const isValidator = typeof value === 'object' && value !== null && ('bls_secret_key' in value || 'bls_public_key' in value);
  const allowed = isValidator ? VALIDATOR_FIELDS : ACCOUNT_FIELDS;
  const o = keyFileObject(value, where, allowed, allowed);
  const seed = hexField(o, 'secret_key', 32, where);
  const publicKey = hexField(o, 'public_key', 32, where);
  checkSeed(seed, publicKey, where);
  const account: AccountKey = { seed, ...publicPart(o, publicKey, where) };
  if (!isValidator) return account;
  const blsSecretKey = hexField(o, 'bls_secret_key', 32, where);
  const blsPublicKey = hexField(o, 'bls_public_key', 48, where);
  let derivedBls: Uint8Array;
  try {
    derivedBls = blsPublicKeyOf(blsSecretKey);
  } catch (err) {
    throw keyError(where, `bls_secret_key is not a valid BLS12-381 secret key: ${(err as Error).message}`);
  }
  if (!bytesEqual(derivedBls, blsPublicKey)) throw keyError(where, 'bls_public_key does not match bls_secret_key');
  return { ...account, blsSecretKey, blsPublicKey };
}

/** A key file's JSON, unchecked; KEY_FILE_UNREADABLE or BAD_KEY_FILE naming the file. */
export async function readKeyJson(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new LedgerError('KEY_FILE_UNREADABLE', `cannot read key file ${path}: ${code === 'ENOENT' ? 'no such file' : (err as Error).message}`, 'not_found', { file: path });
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw keyError(path, `not valid JSON: ${(err as Error).message}`);
  }
}

export async function readKeyFile(path: string): Promise<KeyFile> {
  return keyFileFromJson(await readKeyJson(path), path);
}

export async function readValidatorKeyFile(path: string): Promise<ValidatorKey> {
  const k = await readKeyFile(path);
  if (!isValidatorKey(k)) throw keyError(path, 'is an account key; a validator key file also holds bls_secret_key and bls_public_key');
  return k;
}

/**
 * Writes a key file 0600 (its directory 0700). Without `force` an existing file is an error and is
 * left untouched; with it the file is replaced atomically through a temporary file.
 */
export async function writeKeyFile(path: string, k: KeyFile, options: { force?: boolean } = {}): Promise<void> {
  await writePrivateJson(path, keyFileToJson(k), options);
}

/**
 * Writes JSON holding a secret, 0600 in a 0700 directory, fsynced. Without `force` an existing
 * file is KEY_FILE_EXISTS and is left untouched; with it the file is replaced through a
 * temporary file and a rename, so a reader (or a crash) never sees half of it.
 */
export async function writePrivateJson(path: string, value: object, options: { force?: boolean } = {}): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const text = JSON.stringify(value, null, 2) + '\n';
  const target = options.force ? `${path}.${process.pid}.tmp` : path;
  let handle;
  try {
    handle = await open(target, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new LedgerError('KEY_FILE_EXISTS', `key file ${target} already exists; refusing to overwrite it (use --force to replace it)`, 'conflict', { file: target });
    }
    throw err;
  }
  try {
    await handle.chmod(0o600);
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  if (options.force) {
    try {
      await rename(target, path);
    } catch (err) {
      await rm(target, { force: true });
      throw err;
    }
  }
}

/** Tightens a keys directory that already existed with looser permissions. */
export async function secureKeysDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
}
