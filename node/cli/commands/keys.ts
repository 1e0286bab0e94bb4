import { join, resolve } from 'node:path';
import { dataPaths, DEFAULT_DATA_DIR } from '../../config/datadir.js';
import { generateAccountKey, generateValidatorKey, keyFileFromJson, readKeyJson, secureKeysDir, writeKeyFile, type AccountKey, type KeyFile } from '../../config/keyfile.js';
import { isSealedKeyFile, readServiceKeyPublic } from '../../config/service-key-file.js';
import { toHex } from '../../protocol/bytes.js';
import { NETWORK_RE } from '../../protocol/genesis.js';
import { parseCommandArgs, printJson, stringFlag, UsageError, type CliIo } from '../io.js';

export const keysHelp = `ledger keys: create and inspect key files

Usage:
  ledger keys new [--out <file>] [--network <name>] [--validator] [--force]
  ledger keys show <file>

keys new writes a fresh Ed25519 key file (mode 0600) and prints its address, DID,
public key and path; it never prints the secret key. With --validator the file
also holds a BLS12-381 key pair for consensus votes. keys show also reads the
service key files ledger init writes, whose seed is sealed (kind "service").

Options of keys new:
  --out <file>         where to write (default: <data-dir>/keys/<address>.json)
  --data-dir <dir>     data directory for the default path (default: $LEDGER_DATA_DIR or ./data)
  --network <name>     DID network segment (default: testnet)
  --validator          also generate a BLS12-381 key pair
  --force              overwrite an existing file

Examples:
  ledger keys new
  ledger keys new --out alice.json --network testnet
  ledger keys show data/keys/dev.json`;

/** What may be shown about a key: everything but the secrets. A service key file's seed is sealed: only its public part is known. */
export function publicKeyInfo(k: KeyFile | Omit<AccountKey, 'seed'>, file: string): Record<string, string> {
  const out: Record<string, string> = {
    kind: !('seed' in k) ? 'service' : 'blsPublicKey' in k ? 'validator' : 'account',
    address: k.address,
    did: k.did,
    public_key: toHex(k.publicKey),
  };
  if ('blsPublicKey' in k) out.bls_public_key = toHex(k.blsPublicKey);
  out.file = file;
  return out;
}

async function keysNew(argv: string[], io: CliIo): Promise<number> {
  const p = parseCommandArgs('keys new', argv, {
    out: { type: 'string' },
    'data-dir': { type: 'string' },
    network: { type: 'string' },
    validator: { type: 'boolean' },
    force: { type: 'boolean' },
  });
  const network = stringFlag(p, 'network') ?? 'testnet';
  if (!NETWORK_RE.test(network)) throw new UsageError(`--network must be 1-32 lowercase letters and digits, got ${JSON.stringify(network)}`, 'keys');
  const key = p.values.validator === true ? generateValidatorKey(network) : generateAccountKey(network);
  const out = stringFlag(p, 'out');
  let file: string;
  if (out !== undefined) {
    file = resolve(io.cwd, out);
  } else {
    const keysDir = dataPaths(resolve(io.cwd, stringFlag(p, 'data-dir') ?? (io.env.LEDGER_DATA_DIR || DEFAULT_DATA_DIR))).keysDir;
    await secureKeysDir(keysDir);
    file = join(keysDir, `${key.address}.json`);
  }
  await writeKeyFile(file, key, { force: p.values.force === true });
  printJson(io, publicKeyInfo(key, file));
  return 0;
}

async function keysShow(argv: string[], io: CliIo): Promise<number> {
  const p = parseCommandArgs('keys show', argv, {}, true);
  if (p.positionals.length !== 1) throw new UsageError('keys show takes exactly one key file', 'keys');
  const file = resolve(io.cwd, p.positionals[0]!);
  const value = await readKeyJson(file);
  printJson(io, publicKeyInfo(isSealedKeyFile(value) ? await readServiceKeyPublic(file) : keyFileFromJson(value, file), file));
  return 0;
}

export async function runKeys(argv: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'new') return keysNew(rest, io);
  if (sub === 'show') return keysShow(rest, io);
  throw new UsageError(sub === undefined ? 'keys needs a subcommand: new or show' : `unknown keys subcommand ${JSON.stringify(sub)}; use new or show`, 'keys');
}
