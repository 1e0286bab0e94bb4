import { stat } from 'node:fs/promises';
import { readKeyFile, type KeyFile } from '../config/keyfile.js';
import { LedgerError } from '../errors.js';

export type { AccountKey, KeyFile, ValidatorKey } from '../config/keyfile.js';

/**
 * Reads a key file as `ledger keys new` writes it: the seed (`secret_key`), public key, address and
 * DID, plus the BLS keys of a validator key file; every public part is checked against the secret
 * ones. On POSIX the file must be private to its owner, as the CLI writes it (0600): a key file
 * that group or others can read is refused with KEY_FILE_PERMISSIONS before it is read, as ssh
 * refuses such a private key. A malformed file throws BAD_KEY_FILE, a missing one KEY_FILE_UNREADABLE.
 */
export async function loadKeyFile(path: string): Promise<KeyFile> {
  if (process.platform !== 'win32') {
    // a stat failure (no such file) is reported by the read below, with its own code
    const mode = await stat(path).then((s) => s.mode, () => undefined);
    if (mode !== undefined && (mode & 0o077) !== 0) {
      const octal = (mode & 0o777).toString(8).padStart(4, '0');
      throw new LedgerError('KEY_FILE_PERMISSIONS', `key file ${path} has mode ${octal}: group or others have access to it; a key file must be private to its owner (chmod 600 ${path})`, 'invalid', { file: path, mode: octal });
    }
  }
  return readKeyFile(path);
}
