import { existsSync } from 'node:fs';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { dataPaths, serviceKeyPath, SERVICE_KEY_PLUGINS, validatorKeyPath } from '../../config/datadir.js';
import { generateAccountKey, generateValidatorKey, secureKeysDir, writeKeyFile, type ValidatorKey } from '../../config/keyfile.js';
import { loadConfig } from '../../config/load.js';
import { defaultConfig, PLUGIN_NAMES } from '../../config/schema.js';
import { writeServiceKeyFile } from '../../config/service-key-file.js';
import { GENERATED_SECRET_WARNING, resolveServiceKeySecret, SERVICE_KEY_SECRET_ENV, type ServiceKeySecret } from '../../config/service-key-secret.js';
import { LedgerError } from '../../errors.js';
import { parseAddress } from '../../protocol/address.js';
import { formatTokens, UNIT } from '../../protocol/amount.js';
import { CHAIN_ID_RE, genesisToJson, NETWORK_RE, parseGenesis, parseGenesisTemplate, type Genesis } from '../../protocol/genesis.js';
import { packageRoot } from '../package-root.js';
import { intFlag, parseCommandArgs, printJson, stringFlag, UsageError, type CliIo } from '../io.js';
import { DEFAULT_EPOCH_LENGTH, MAX_EPOCH_LENGTH, MIN_EPOCH_LENGTH } from '../../protocol/params.js';

export const DEV_BALANCE = 20_000_000_000n * UNIT; // above 2^60 units, so big amounts can be tried at once
export const VALIDATOR_STAKE = 1_000_000n * UNIT;
export const VALIDATOR_BALANCE = 1_000n * UNIT;
/** a plugin's service account: enough for a long run of credential fees or sponsored accounts */
export const SERVICE_BALANCE = 10_000_000n * UNIT;
export const GENESIS_REPUTATION = 1000;
export const MAX_INIT_VALIDATORS = 100;

export const initHelp = `ledger init: create a data directory with a fresh local chain

Usage: ledger init [options]

Writes <data-dir>/genesis.json (the network template plus freshly generated keys),
<data-dir>/keys/validator.json (validator 0; with --validators N > 1 also
validator-1.json ... validator-<N-1>.json), <data-dir>/keys/dev.json (a developer
account funded with ${formatTokens(DEV_BALANCE)} tokens at genesis),
<data-dir>/keys/service-kyc.json and service-wallet.json (the KYC plugin's credential
issuer and the wallet plugin's sponsor, each funded with ${formatTokens(SERVICE_BALANCE)}) and, if absent,
<data-dir>/config.json with every plugin enabled. Prints a JSON summary.

The service key files keep their address, DID and public key in clear; their seeds are
encrypted under the service-key secret, found as "ledger start" finds it:
$${SERVICE_KEY_SECRET_ENV}, else the file serviceKeySecretFile names
(--service-key-secret-file, $LEDGER_SERVICE_KEY_SECRET_FILE, the config file), else
<data-dir>/secrets/service-keys.secret, made (0600) when absent.

Options:
  --data-dir <dir>     data directory (default: $LEDGER_DATA_DIR or ./data)
  --network <name>     DID network segment, lowercase letters and digits (default: testnet)
  --chain-id <id>      chain id (default: the template's for testnet, else ledger-<network>-1)
  --validators <n>     number of genesis validators, 1-${MAX_INIT_VALIDATORS} (default: 1)
  --epoch-length <n>   blocks per epoch, at whose end the validator set may change,
                       ${MIN_EPOCH_LENGTH}-${MAX_EPOCH_LENGTH} (default: the template's, else ${DEFAULT_EPOCH_LENGTH})
  --template <file>    genesis template (default: genesis/testnet.json of this package)
  --service-key-secret-file <file>
                       the secret the service key files are encrypted under (a 0600 file)
  --force              replace an existing genesis and keys and delete the chain database
  -h, --help           show this help

Examples:
  ledger init
  ledger init --data-dir /var/lib/ledger --validators 4
  ledger init --data-dir /var/lib/ledger --service-key-secret-file /etc/ledger/service-keys.secret
  ledger init --network devnet --chain-id ledger-devnet-7 --force`;

export interface InitOptions {
  dataDir: string;
  network?: string;
  chainId?: string;
  validators?: number;
  /** blocks per epoch (default: the template's) */
  epochLength?: number;
  templatePath?: string;
  force?: boolean;
  /** the genesis time when the template leaves it 0; default Date.now() */
  now?: number;
  /**
   * The secret the service key files are sealed under, asked for once the checks have passed
   * (so a refused init makes no secret file); default: the data directory's, made if absent.
   */
  serviceKeySecret?: () => Promise<ServiceKeySecret>;
}

export interface InitSummary {
  data_dir: string;
  chain_id: string;
  network: string;
  genesis_file: string;
  config_file: string | null;
  chain_db_removed: boolean;
  validators: Array<{ address: string; did: string; key_file: string }>;
  dev_account: { address: string; did: string; public_key: string; balance: string; key_file: string };
  service_accounts: Array<{ plugin: string; address: string; balance: string; key_file: string }>;
  /** where the secret the service key files are sealed under came from */
  service_key_secret: string;
}

export function defaultTemplatePath(network = 'testnet'): string {
  const path = join(packageRoot(), 'genesis', `${network}.json`);
  if (!existsSync(path)) throw new LedgerError('NO_GENESIS_TEMPLATE', `cannot find ${path}; pass --template <file>`, 'not_found');
  return path;
}

/** Writes through a temporary file, fsynced, then renamed: a reader never sees half a file. */
export async function writeFileAtomic(path: string, text: string, mode = 0o644): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  const handle = await open(tmp, 'w', mode);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(tmp, path);
}

/** The config an `init`ed data dir starts with: every plugin on, as `npm start` promises. */
function initialConfigJson(): string {
  const d = defaultConfig();
  const plugins = Object.fromEntries(PLUGIN_NAMES.map((p) => [p, { enabled: true, port: d.plugins[p].port }]));
  return JSON.stringify({ plugins }, null, 2) + '\n';
}

export async function initDataDir(o: InitOptions): Promise<InitSummary> {
  const dataDir = resolve(o.dataDir);
  const paths = dataPaths(dataDir);
  const hadGenesis = existsSync(paths.genesis);
  if (hadGenesis && !o.force) {
    throw new LedgerError('ALREADY_INITIALIZED', `${paths.genesis} already exists; refusing to re-initialize (use --force to replace the chain)`, 'conflict', {
      file: paths.genesis,
    });
  }
  const templatePath = o.templatePath ?? defaultTemplatePath();
  let templateJson: unknown;
  try {
    templateJson = JSON.parse(await readFile(templatePath, 'utf8'));
  } catch (err) {
    throw new LedgerError('BAD_GENESIS', `cannot read genesis template ${templatePath}: ${(err as Error).message}`, 'invalid');
  }
  const template = parseGenesisTemplate(templateJson);
  const network = o.network ?? 'testnet';
  if (!NETWORK_RE.test(network)) throw new UsageError(`--network must be 1-32 lowercase letters and digits, got ${JSON.stringify(network)}`, 'init');
  const chainId = o.chainId ?? (network === template.network ? template.chainId : `ledger-${network}-1`);
  if (!CHAIN_ID_RE.test(chainId)) throw new UsageError(`--chain-id must be 1-64 lowercase letters, digits and hyphens, got ${JSON.stringify(chainId)}`, 'init');
  const count = o.validators ?? 1;

  const validators: ValidatorKey[] = Array.from({ length: count }, () => generateValidatorKey(network));
  const dev = generateAccountKey(network);
  const services = SERVICE_KEY_PLUGINS.map((plugin) => ({ plugin, key: generateAccountKey(network), file: serviceKeyPath(dataDir, plugin) }));
  const genesis: Genesis = {
    ...template,
    epochLength: o.epochLength ?? template.epochLength,
    chainId,
    network,
    genesisTimeMs: template.genesisTimeMs || (o.now ?? Date.now()),
    accounts: [
      ...template.accounts,
      { address: parseAddress(dev.address), balance: DEV_BALANCE },
      ...services.map((s) => ({ address: parseAddress(s.key.address), balance: SERVICE_BALANCE })),
      ...validators.map((v) => ({ address: parseAddress(v.address), balance: VALIDATOR_BALANCE })),
    ],
    validators: [
      ...template.validators,
      ...validators.map((v) => ({
        address: parseAddress(v.address),
        ed25519PublicKey: v.publicKey,
        blsPublicKey: v.blsPublicKey,
        stake: VALIDATOR_STAKE,
        reputation: GENESIS_REPUTATION,
      })),
    ],
  };
  const genesisJson = genesisToJson(genesis);
  parseGenesis(genesisJson); // what we write must be what a node accepts

  await mkdir(dataDir, { recursive: true });
  await secureKeysDir(paths.keysDir);
  const force = o.force ?? false;
  const validatorFiles = validators.map((_, i) => validatorKeyPath(dataDir, i));
  // Without --force, refuse before writing anything, so a refused init leaves no partial state.
  if (!force) {
    for (const f of [...validatorFiles, paths.devKey, ...services.map((s) => s.file)]) {
      if (existsSync(f)) throw new LedgerError('KEY_FILE_EXISTS', `key file ${f} already exists; refusing to overwrite it (use --force)`, 'conflict', { file: f });
    }
  }
  const secret = await (o.serviceKeySecret ?? (() => resolveServiceKeySecret({ env: {}, dataDir })))();
  for (const [i, v] of validators.entries()) await writeKeyFile(validatorFiles[i]!, v, { force });
  await writeKeyFile(paths.devKey, dev, { force });
  for (const s of services) await writeServiceKeyFile(s.file, s.plugin, s.key, secret, { force });

  let chainDbRemoved = false;
  if (force && existsSync(paths.chainDb)) {
    await rm(paths.chainDb, { recursive: true, force: true });
    chainDbRemoved = true;
  }
  let configFile: string | null = null;
  if (!existsSync(paths.config)) {
    await writeFileAtomic(paths.config, initialConfigJson());
    configFile = paths.config;
  }
  // genesis.json last: its presence marks the data dir as initialized
  await writeFileAtomic(paths.genesis, JSON.stringify(genesisJson, null, 2) + '\n');

  return {
    data_dir: dataDir,
    chain_id: chainId,
    network,
    genesis_file: paths.genesis,
    config_file: configFile,
    chain_db_removed: chainDbRemoved,
    validators: validators.map((v, i) => ({ address: v.address, did: v.did, key_file: validatorFiles[i]! })),
    dev_account: { address: dev.address, did: dev.did, public_key: Buffer.from(dev.publicKey).toString('hex'), balance: formatTokens(DEV_BALANCE), key_file: paths.devKey },
    service_accounts: services.map((s) => ({ plugin: s.plugin, address: s.key.address, balance: formatTokens(SERVICE_BALANCE), key_file: s.file })),
    service_key_secret: secret.source,
  };
}

export async function runInit(argv: string[], io: CliIo): Promise<number> {
  const p = parseCommandArgs('init', argv, {
    'data-dir': { type: 'string' },
    network: { type: 'string' },
    'chain-id': { type: 'string' },
    validators: { type: 'string' },
    'epoch-length': { type: 'string' },
    template: { type: 'string' },
    force: { type: 'boolean' },
    'service-key-secret-file': { type: 'string' },
  });
  const dataDir = resolve(io.cwd, stringFlag(p, 'data-dir') ?? (io.env.LEDGER_DATA_DIR || defaultConfig().dataDir));
  const templatePath = stringFlag(p, 'template');
  // the secret `ledger start` will open the service key files with: the same sources, in the same order
  const serviceKeySecret = async () => {
    const { config } = loadConfig({ flags: { 'data-dir': dataDir, 'service-key-secret-file': stringFlag(p, 'service-key-secret-file') }, env: io.env, cwd: io.cwd });
    const secret = await resolveServiceKeySecret({ env: io.env, file: config.serviceKeySecretFile, dataDir });
    if (secret.generated) io.stderr(`ledger init: ${GENERATED_SECRET_WARNING} (${secret.source})\n`);
    return secret;
  };
  const summary = await initDataDir({
    dataDir,
    network: stringFlag(p, 'network'),
    chainId: stringFlag(p, 'chain-id'),
    validators: intFlag(p, 'validators', 'init', 1, MAX_INIT_VALIDATORS),
    epochLength: intFlag(p, 'epoch-length', 'init', MIN_EPOCH_LENGTH, MAX_EPOCH_LENGTH),
    templatePath: templatePath === undefined ? undefined : resolve(io.cwd, templatePath),
    force: p.values.force === true,
    serviceKeySecret,
  });
  printJson(io, summary);
  return 0;
}
