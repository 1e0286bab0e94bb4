import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import { mkdir, open, readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { LedgerError } from '../errors.js';
import type { StoreOp } from '../state/db.js';
import { serviceKeySecretPath } from './datadir.js';

/**
 * The secret the plugins' service keys (the KYC issuer's, the wallet sponsor's) are encrypted
 * under in their stores (plugins/common/secrets) and in the service key files `ledger init`
 * writes (service-key-file.ts; docs/operators.md, "The service-key secret").
 * It comes from, in this order:
 *   1. LEDGER_SERVICE_KEY_SECRET, the secret itself;
 *   2. the file `serviceKeySecretFile` names (LEDGER_SERVICE_KEY_SECRET_FILE,
 *      --service-key-secret-file), private to its owner;
 *   3. <dataDir>/secrets/service-keys.secret, made on first use when nothing is configured, so
 *      that a fresh data directory starts with no setup. Kept beside the data, it protects
 *      against a leak of the store alone, not against a copy of the whole directory.
 * A node without a data directory (tests, benches) holds a random one in memory, as it does its store.
 */

export const SERVICE_KEY_SECRET_ENV = 'LEDGER_SERVICE_KEY_SECRET';
/** shorter secrets are refused: a secret is a key, not a PIN */
export const MIN_SECRET_CHARS = 16;

export interface ServiceKeySecret {
  /** where it came from, for messages and logs; never the secret */
  readonly source: string;
  readonly kind: 'env' | 'file' | 'data-dir' | 'memory';
  /** true when this resolution wrote the data directory's file */
  readonly generated: boolean;
  /** the secret's bytes (not enumerable: a logged or serialized object never shows them) */
  readonly bytes: Uint8Array;
}

function secret(text: string, source: string, kind: ServiceKeySecret['kind'], generated = false): ServiceKeySecret {
  const trimmed = text.trim();
  if (trimmed.length < MIN_SECRET_CHARS) {
    throw new LedgerError('SERVICE_KEY_SECRET_INVALID', `the service-key secret from ${source} has ${trimmed.length} characters; it needs at least ${MIN_SECRET_CHARS} (ledger service-keys new-secret writes a random one)`, 'invalid', { source });
  }
  const out = { source, kind, generated } as ServiceKeySecret;
  Object.defineProperty(out, 'bytes', { value: new TextEncoder().encode(trimmed), enumerable: false });
  return out;
}

/**
 * Reads a secret file. On POSIX it must be a regular file owned by this process's user with no
 * access for group or others (0600 or stricter), as ssh requires of a private key.
 */
export async function readSecretFile(path: string, kind: 'file' | 'data-dir' = 'file'): Promise<ServiceKeySecret> {
  const source = `the file ${path}`;
  let st: Stats;
  try {
    st = await stat(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new LedgerError('SERVICE_KEY_SECRET_FILE_UNREADABLE', `cannot read the service-key secret file ${path}: ${code === 'ENOENT' ? 'no such file' : (err as Error).message}`, 'not_found', { file: path });
  }
  if (!st.isFile()) throw new LedgerError('SERVICE_KEY_SECRET_FILE_UNREADABLE', `the service-key secret file ${path} is not a regular file`, 'invalid', { file: path });
  if (process.platform !== 'win32') {
    const mode = (st.mode & 0o777).toString(8).padStart(4, '0');
    if ((st.mode & 0o077) !== 0) {
      throw new LedgerError('SERVICE_KEY_SECRET_FILE_PERMISSIONS', `the service-key secret file ${path} has mode ${mode}: group or others have access to it; it must be private to its owner (chmod 600 ${path})`, 'invalid', { file: path, mode });
    }
    const uid = process.getuid?.();
    if (uid !== undefined && st.uid !== uid) {
      throw new LedgerError('SERVICE_KEY_SECRET_FILE_OWNER', `the service-key secret file ${path} is owned by uid ${st.uid}, not by the node's user (uid ${uid}); chown it to that user`, 'invalid', { file: path, owner: st.uid, uid });
    }
  }
  return secret(await readFile(path, 'utf8'), source, kind);
}

/** Writes a new random secret to `path` (0600, its directory 0700) and returns it; an existing file is an error. */
export async function writeSecretFile(path: string): Promise<string> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  let handle;
  try {
    handle = await open(path, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new LedgerError('SERVICE_KEY_SECRET_FILE_EXISTS', `${path} already exists; refusing to overwrite a secret`, 'conflict', { file: path });
    throw err;
  }
  const text = randomBytes(32).toString('base64url');
  try {
    await handle.chmod(0o600);
    await handle.writeFile(`${text}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  return text;
}

/** what `ledger init` and `ledger start` say when they make the data directory's secret */
export const GENERATED_SECRET_WARNING =
  'no service-key secret is configured: made one in the data directory. Beside the data it protects against a leak of the store alone, not against a copy of the directory: move it elsewhere and set serviceKeySecretFile (docs/operators.md, "The service-key secret")';

export interface SecretSources {
  env: Readonly<Record<string, string | undefined>>;
  /** serviceKeySecretFile from the config, an absolute path */
  file?: string;
  dataDir?: string;
  /** make the data directory's file when nothing is configured (false: refuse, for `ledger service-keys rotate`) */
  create?: boolean;
}

/** The secret from the first configured source; see the top of this file for the order. */
export async function resolveServiceKeySecret(sources: SecretSources): Promise<ServiceKeySecret> {
  const fromEnv = sources.env[SERVICE_KEY_SECRET_ENV];
  if (fromEnv !== undefined && fromEnv !== '') return secret(fromEnv, `the environment variable ${SERVICE_KEY_SECRET_ENV}`, 'env');
  if (sources.file !== undefined) return readSecretFile(sources.file);
  if (sources.dataDir === undefined) return secret(randomBytes(32).toString('base64url'), 'a random secret held in memory (the node has no data directory)', 'memory');
  const path = serviceKeySecretPath(sources.dataDir);
  const exists = await stat(path).then(() => true, () => false);
  if (exists) return readSecretFile(path, 'data-dir');
  if (sources.create === false) {
    throw new LedgerError('SERVICE_KEY_SECRET_MISSING', `no service-key secret is configured (${SERVICE_KEY_SECRET_ENV}, serviceKeySecretFile) and ${path} does not exist`, 'not_found', { file: path });
  }
  return secret(await writeSecretFile(path), `the file ${path}`, 'data-dir', true);
}

/**
 * A plugin's part of `ledger service-keys rotate` (plugins/common/secrets/sealed-rows.ts makes
 * it): the writes that re-encrypt the secrets it keeps, for one batch on the node's database.
 */
export interface ResealedSecrets {
  /** `table/row` of each secret */
  rows: string[];
  ops: StoreOp[];
  /**
   * Writes outside the node's database (the relay's Postgres), made before the batch; a row they
   * find under the new secret already stays as it is, so that a rotate cut short runs again.
   */
  commit?(): Promise<void>;
  /** after the batch: drop the replaced envelopes from the database files */
  compact(): Promise<void>;
  /** releases what the preparation holds (a connection), written or not */
  close?(): Promise<void>;
}
