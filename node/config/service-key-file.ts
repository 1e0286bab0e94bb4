import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { sealerFor, type SealedEnvelope } from '../crypto/envelope.js';
import { LedgerError } from '../errors.js';
import { toHex } from '../protocol/bytes.js';
import { dataPaths, serviceKeyPath } from './datadir.js';
import { checkSeed, hexField, keyError, keyFileFromJson, keyFileObject, publicPart, readKeyJson, writePrivateJson, type AccountKey } from './keyfile.js';
import type { ServiceKeySecret } from './service-key-secret.js';

/**
 * The service key files `ledger init` writes (keys/service-<plugin>.json): the account funded at
 * genesis that a plugin adopts on first start. The public fields stay in clear, so tooling can
 * read the address and DID; the seed is sealed under the service-key secret (crypto/envelope.ts):
 *   { "type": "ed25519", "public_key": hex, "address", "did", "sealed": <envelope> }
 * The envelope's associated data names the plugin, so a file copied under another plugin's name
 * does not open. A file from an older `ledger init` holds the seed in clear ("secret_key"); the
 * plugin host seals it in place at start (sealServiceKeyFile).
 */

const SEALED_FIELDS = ['type', 'public_key', 'address', 'did', 'sealed'];
const PUBLIC_FIELDS = ['type', 'public_key', 'address', 'did'];

/** binds an envelope to a service key file of that plugin */
const aad = (plugin: string): string => `ledger-service-key-file/v1\0${plugin}\0ed25519-seed`;

export interface ServiceKeyFile {
  key: AccountKey;
  /** false: the seed is in clear, as an older `ledger init` wrote it */
  sealed: boolean;
}

function sealedJson(key: AccountKey, sealed: SealedEnvelope): object {
  return { type: 'ed25519', public_key: toHex(key.publicKey), address: key.address, did: key.did, sealed };
}

/** Writes the key file of `plugin`'s service account with its seed sealed under `secret` (as writeKeyFile: 0600, `force` to replace). */
export async function writeServiceKeyFile(path: string, plugin: string, key: AccountKey, secret: ServiceKeySecret, options: { force?: boolean } = {}): Promise<void> {
  await writePrivateJson(path, sealedJson(key, await sealerFor(secret).seal(key.seed, aad(plugin))), options);
}

/** A service key file with its seed sealed, as opposed to any other key file. */
export function isSealedKeyFile(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && 'sealed' in value;
}

/** The public part of a service key file, sealed or not, checked field against field; no secret needed. */
export async function readServiceKeyPublic(path: string): Promise<Omit<AccountKey, 'seed'>> {
  const value = await readKeyJson(path);
  const o = keyFileObject(value, path, isSealedKeyFile(value) ? SEALED_FIELDS : [...PUBLIC_FIELDS, 'secret_key'], PUBLIC_FIELDS);
  return publicPart(o, hexField(o, 'public_key', 32, path), path);
}

const notAnAccountKey = (path: string): LedgerError => keyError(path, 'is a validator key; a service key file holds an account key');

function wrongSecret(path: string, plugin: string, secret: ServiceKeySecret): LedgerError {
  return new LedgerError(
    'SERVICE_KEY_SECRET_WRONG',
    `the service key file ${path} does not open as the ${plugin} plugin's with the service-key secret from ${secret.source}: it was sealed under another secret or for another plugin, or it was altered. Configure the secret it was sealed under (docs/operators.md, "The service-key secret"); no new key is made in its place, since its account is the one funded at genesis`,
    'invalid',
    { file: path, plugin, source: secret.source },
  );
}

/**
 * The key of `plugin`'s service key file. A sealed file opens under `secret` or is
 * SERVICE_KEY_SECRET_WRONG naming the file; a plaintext one (an older `ledger init`) is read as it is.
 */
export async function openServiceKeyFile(path: string, plugin: string, secret: ServiceKeySecret): Promise<ServiceKeyFile> {
  const value = await readKeyJson(path);
  if (!isSealedKeyFile(value)) {
    const key = keyFileFromJson(value, path);
    if ('blsSecretKey' in key) throw notAnAccountKey(path);
    return { key, sealed: false };
  }
  const o = keyFileObject(value, path, SEALED_FIELDS, PUBLIC_FIELDS);
  const publicKey = hexField(o, 'public_key', 32, path);
  let seed: Uint8Array | undefined;
  try {
    seed = await sealerFor(secret).open(o.sealed, aad(plugin));
  } catch (err) {
    if (err instanceof LedgerError && err.code === 'SEALED_SECRET_MALFORMED') throw new LedgerError(err.code, `the service key file ${path}: ${err.message}`, 'invalid', { file: path });
    throw err;
  }
  if (!seed) throw wrongSecret(path, plugin, secret);
  if (seed.length !== 32) throw keyError(path, `the sealed seed has ${seed.length} bytes, not 32`);
  checkSeed(seed, publicKey, path, 'the sealed seed');
  return { key: { seed, ...publicPart(o, publicKey, path) }, sealed: true };
}

/**
 * Seals a plaintext service key file in place (a temporary file, fsynced, renamed over it; 0600)
 * and says whether it did. A sealed file is left as it is, unopened: it is opened only when its
 * plugin asks for the key, on its first start.
 */
export async function sealServiceKeyFile(path: string, plugin: string, secret: ServiceKeySecret): Promise<boolean> {
  const value = await readKeyJson(path);
  if (isSealedKeyFile(value)) return false;
  const key = keyFileFromJson(value, path);
  if ('blsSecretKey' in key) throw notAnAccountKey(path);
  await writeServiceKeyFile(path, plugin, key, secret, { force: true });
  return true;
}

const SERVICE_KEY_FILE = /^service-(.+)\.json$/;

/** The service key files in the data directory's keys/, by plugin. */
async function serviceKeyFiles(dataDir: string): Promise<Array<{ plugin: string; path: string }>> {
  let names: string[];
  try {
    names = await readdir(dataPaths(dataDir).keysDir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return names.flatMap((name) => {
    const plugin = SERVICE_KEY_FILE.exec(name)?.[1];
    return plugin === undefined ? [] : [{ plugin, path: serviceKeyPath(dataDir, plugin) }];
  });
}

export interface ResealedKeyFiles {
  /** each file, relative to the data directory (`keys/service-kyc.json`) */
  files: string[];
  /** writes each file sealed under the new secret, each replaced atomically */
  write(): Promise<void>;
}

/** The file's key under `from`; undefined when it is sealed under `to` already (a rotate cut short, run again). */
async function keyToReseal(path: string, plugin: string, from: ServiceKeySecret, to: ServiceKeySecret): Promise<AccountKey | undefined> {
  try {
    return (await openServiceKeyFile(path, plugin, from)).key;
  } catch (err) {
    if (!(err instanceof LedgerError && err.code === 'SERVICE_KEY_SECRET_WRONG')) throw err;
    const moved = await openServiceKeyFile(path, plugin, to).then(() => true, () => false);
    if (moved) return undefined;
    throw err;
  }
}

/**
 * `ledger service-keys rotate`'s part for the key files: every service key file under keys/ is
 * opened with `from` before anything is written (SERVICE_KEY_SECRET_WRONG otherwise, with nothing
 * changed); write() then seals each under `to`, plaintext ones too. A file sealed under `to`
 * already is left as it is.
 */
export async function resealServiceKeyFiles(dataDir: string, from: ServiceKeySecret, to: ServiceKeySecret): Promise<ResealedKeyFiles> {
  const opened: Array<{ plugin: string; path: string; key: AccountKey }> = [];
  for (const f of await serviceKeyFiles(dataDir)) {
    const key = await keyToReseal(f.path, f.plugin, from, to);
    if (key) opened.push({ ...f, key });
  }
  return {
    files: opened.map((f) => join('keys', `service-${f.plugin}.json`)),
    write: async () => {
      for (const f of opened) await writeServiceKeyFile(f.path, f.plugin, f.key, to, { force: true });
    },
  };
}
