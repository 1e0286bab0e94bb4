import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { dataPaths } from '../../config/datadir.js';
import { loadConfig } from '../../config/load.js';
import type { PluginName } from '../../config/schema.js';
import { resealServiceKeyFiles } from '../../config/service-key-file.js';
import { readSecretFile, resolveServiceKeySecret, SERVICE_KEY_SECRET_ENV, writeSecretFile, type ResealedSecrets } from '../../config/service-key-secret.js';
import { LedgerError } from '../../errors.js';
import { pluginOptions } from '../../plugins/host.js';
import { bytesEqual } from '../../protocol/bytes.js';
import { openDatabase } from '../../state/db.js';
import { parseCommandArgs, printJson, requireFlag, UsageError, type CliIo } from '../io.js';
import { openStoppedDatabase } from '../offline-db.js';

export const serviceKeysHelp = `ledger service-keys: the secret the plugins' service keys are encrypted under

Usage:
  ledger service-keys new-secret --out <file>
  ledger service-keys rotate --new-secret-file <file> [--data-dir <dir>] [--config <file>]
                             [--service-key-secret-file <file>]

The KYC issuer's keys (Ed25519 and BBS) and the wallet sponsor's key are kept in the node's
database, and the seeds of the service key files "ledger init" writes (keys/service-*.json),
encrypted (AES-256-GCM under a key derived with scrypt) under the service-key secret:
$${SERVICE_KEY_SECRET_ENV}, else the file serviceKeySecretFile names
($LEDGER_SERVICE_KEY_SECRET_FILE, --service-key-secret-file), else
<data-dir>/secrets/service-keys.secret, which "ledger init" or "ledger start" makes when
nothing is configured.

  new-secret  writes a random secret to a new file, mode 0600; never over an existing file.
  rotate      re-encrypts every stored service key from the current secret (found as
              "ledger start" finds it) to the one in --new-secret-file: the database's
              in one write, then the old envelopes are compacted out of its files, then
              each service key file is replaced. Nothing is written unless every key
              opens. The keys, their accounts and DIDs stay the same; the old secret no
              longer opens them. Run it while the node is stopped, then start the node
              with the new secret.

The relay's own secrets (its mediator's Ed25519 seed, its operator session secret) are
sealed the same way, in the node's database or, with plugins.relay.postgresUrl, in
Postgres, which every relay instance on that database shares. When the relay is enabled on
Postgres, rotate moves its rows there too, in one transaction before the node's database
is written. Run rotate on every node whose relay shares the database, with the same new
secret: the first moves the shared rows, the others find them moved and leave them.

Examples:
  ledger service-keys new-secret --out /etc/ledger/service-keys.secret
  ledger service-keys rotate --new-secret-file /etc/ledger/service-keys.secret
  ledger start --service-key-secret-file /etc/ledger/service-keys.secret`;

const COMMAND = 'service-keys';

async function newSecret(argv: string[], io: CliIo): Promise<number> {
  const p = parseCommandArgs(COMMAND, argv, { out: { type: 'string' } });
  const file = resolve(io.cwd, requireFlag(p, 'out', COMMAND));
  await writeSecretFile(file);
  printJson(io, { file, mode: '0600' });
  return 0;
}

async function rotate(argv: string[], io: CliIo): Promise<number> {
  const p = parseCommandArgs(COMMAND, argv, { 'new-secret-file': { type: 'string' }, config: { type: 'string' }, 'data-dir': { type: 'string' }, 'service-key-secret-file': { type: 'string' } });
  const next = resolve(io.cwd, requireFlag(p, 'new-secret-file', COMMAND));
  const { config } = loadConfig({ flags: p.values, env: io.env, cwd: io.cwd });
  const from = await resolveServiceKeySecret({ env: io.env, file: config.serviceKeySecretFile, dataDir: config.dataDir, create: false });
  const to = await readSecretFile(next);
  if (bytesEqual(from.bytes, to.bytes)) throw new LedgerError('SERVICE_KEY_SECRET_UNCHANGED', `the new secret (${to.source}) is the current one (${from.source})`, 'invalid');
  // a data directory that was initialised and never started has key files and no database yet: an empty one stands in, and none is made
  const db = existsSync(dataPaths(config.dataDir).chainDb) ? await openStoppedDatabase(config.dataDir) : await openDatabase('memory');
  const plans: Array<ResealedSecrets & { plugin: string }> = [];
  try {
    // every plugin's rows and every service key file are opened before anything is written: a wrong current secret changes nothing
    for (const entry of io.plugins ?? []) {
      const section = config.plugins[entry.name as PluginName];
      if (entry.resealSecrets) plans.push({ plugin: entry.name, ...(await entry.resealSecrets(db.pluginStore(entry.name), from, to, pluginOptions(section))) });
    }
    const keyFiles = await resealServiceKeyFiles(config.dataDir, from, to);
    // another database first: should the batch fail after it, a second run finds its rows moved and goes on
    for (const plan of plans) await plan.commit?.();
    await db.root.batch(plans.flatMap((plan) => plan.ops));
    for (const plan of plans) await plan.compact();
    await keyFiles.write();
    printJson(io, { data_dir: config.dataDir, from: from.source, to: to.source, resealed: [...plans.flatMap((plan) => plan.rows.map((row) => `${plan.plugin}/${row}`)), ...keyFiles.files] });
  } finally {
    for (const plan of plans) await plan.close?.();
    await db.close();
  }
  io.stderr(`Start the node with the new secret (serviceKeySecretFile, $LEDGER_SERVICE_KEY_SECRET_FILE or --service-key-secret-file ${next}); the old one opens nothing now.\n`);
  return 0;
}

export async function runServiceKeys(argv: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'new-secret') return newSecret(rest, io);
  if (sub === 'rotate') return rotate(rest, io);
  throw new UsageError(sub === undefined ? 'service-keys needs a subcommand: new-secret or rotate' : `unknown subcommand ${JSON.stringify(sub)}: new-secret or rotate`, COMMAND);
}
