import { existsSync } from 'node:fs';
import { dataPaths } from '../../config/datadir.js';
import { loadConfig } from '../../config/load.js';
import { FOLLOW_ENV, SUBJECT_ENUMERATION_ENV, type NodeConfig, type PluginName } from '../../config/schema.js';
import { GENERATED_SECRET_WARNING, resolveServiceKeySecret, type ServiceKeySecret } from '../../config/service-key-secret.js';
import { createLogger, type Logger } from '../../logging.js';
import { startNode } from '../../node.js';
import { parseCommandArgs, printJson, stringFlag, type CliIo, type Options } from '../io.js';
import { prepareFollower } from './follow.js';
import { initDataDir } from './init.js';

export const CONFIG_FLAGS: Options = {
  config: { type: 'string' },
  'data-dir': { type: 'string' },
  'rpc-host': { type: 'string' },
  'rpc-port': { type: 'string' },
  'p2p-host': { type: 'string' },
  'p2p-port': { type: 'string' },
  bootstrap: { type: 'string', multiple: true },
  'log-level': { type: 'string' },
  'attestation-auto': { type: 'string' },
  plugins: { type: 'string' },
  'explorer-host': { type: 'string' },
  'explorer-port': { type: 'string' },
  'relay-host': { type: 'string' },
  'relay-port': { type: 'string' },
  'kyc-host': { type: 'string' },
  'kyc-port': { type: 'string' },
  'wallet-host': { type: 'string' },
  'wallet-port': { type: 'string' },
  'relay-postgres-url': { type: 'string' },
  'relay-redis-url': { type: 'string' },
  'relay-keys-file': { type: 'string' },
  'explorer-postgres-url': { type: 'string' },
  'service-key-secret-file': { type: 'string' },
};

export const startHelp = `ledger start: run the node

Usage: ledger start [options]

Resolves the config (defaults < config file < environment < flags), initializes the
data directory with one local validator if it has no genesis yet, starts the node and
prints {"rpc_url": ...} on stdout once it serves. Logs go to stderr as JSON lines.
With --follow, the node joins the network of another node instead, without voting.
SIGINT or SIGTERM shuts down cleanly (exit 0); a second signal exits at once.

Options:
  --config <file>          config file (default: <data-dir>/config.json if present)
  --data-dir <dir>         data directory (default: ./data)
  --rpc-host <host>        JSON-RPC listen address (default: 127.0.0.1)
  --rpc-port <port>        JSON-RPC port, 0 = any free port (default: 8545)
  --p2p-host <host>        libp2p listen address (default: 0.0.0.0)
  --p2p-port <port>        libp2p TCP port (default: 30333)
  --bootstrap <multiaddr>  a peer to dial at start; repeatable or comma-separated
  --follow <rpc url>       follow the network of the node at this JSON-RPC URL: fetch and
                           check its genesis, make a node key no genesis lists, dial it;
                           the node never votes (for relay and explorer instances)
  --log-level <level>      trace, debug, info, warn, error, fatal or silent (default: info)
  --attestation-auto <b>   a validator attests credential requests its VRF selects it for
                           (default: true; false leaves attesting to the operator)
  --plugins <list>         all, none, or a comma-separated list of explorer,relay,kyc,wallet
  --explorer-port <port>   and --relay-port, --kyc-port, --wallet-port: plugin ports
  --explorer-host <host>   and --relay-host, --kyc-host, --wallet-host: plugin listen
                           addresses (default: 127.0.0.1)
  --relay-postgres-url <u> the relay's records in Postgres (default: the node's LevelDB)
  --relay-redis-url <u>    the relay's limits and live fan-out in Redis, for several relay
                           instances (needs --relay-postgres-url)
  --relay-keys-file <f>    the relay mediator's keys (a 0600 JSON file), so its DIDs do not
                           depend on the data directory
  --explorer-postgres-url <u>  the explorer's index in Postgres
  --service-key-secret-file <f>  the secret the KYC and wallet keys are encrypted under in
                           the store and in keys/service-*.json (a 0600 file; default:
                           $LEDGER_SERVICE_KEY_SECRET, else <data-dir>/secrets/service-keys.secret,
                           made by init or on first start)

Every option also has an environment variable; see docs/operators.md.

Examples:
  ledger start
  ledger start --data-dir /var/lib/ledger --rpc-host 0.0.0.0 --log-level debug
  LEDGER_RPC_PORT=9545 ledger start --plugins explorer,wallet
  ledger start --follow http://10.0.0.2:8545 --data-dir ./relay-b --plugins relay`;

/**
 * The service-key secret, before anything starts: a secret file others may read stops the node
 * here, with its error. A secret made in the data directory is announced once, when it is made.
 */
async function startSecret(config: NodeConfig, io: CliIo, log: Logger): Promise<ServiceKeySecret> {
  const secret = await resolveServiceKeySecret({ env: io.env, file: config.serviceKeySecretFile, dataDir: config.dataDir });
  if (secret.generated) {
    log.warn({ service_key_secret: secret.source }, GENERATED_SECRET_WARNING);
  } else {
    log.info({ service_key_secret: secret.source }, 'the plugins\' service keys are encrypted under the service-key secret');
  }
  return secret;
}

export async function runStart(argv: string[], io: CliIo): Promise<number> {
  const p = parseCommandArgs('start', argv, { ...CONFIG_FLAGS, follow: { type: 'string' } });
  const load = () => loadConfig({ flags: p.values, env: io.env, cwd: io.cwd });
  let { config, configPath } = load();
  const log = createLogger({ level: config.log.level, name: 'ledger' });

  // resolved once, when first needed: by the init of a fresh data directory, or for the plugins
  let secret: Promise<ServiceKeySecret> | undefined;
  const serviceKeySecret = () => (secret ??= startSecret(config, io, log));

  const follow = stringFlag(p, 'follow') ?? (io.env[FOLLOW_ENV] || undefined);
  if (follow !== undefined) {
    const plan = await prepareFollower(config.dataDir, follow);
    config.p2p.bootstrap = [...new Set([...config.p2p.bootstrap, ...plan.bootstrap])];
    log.info({ chain_id: plan.chainId, genesis_hash: plan.genesisHash, bootstrap: config.p2p.bootstrap, wrote: plan.wrote }, 'following a network: this node does not vote');
  } else if (!existsSync(dataPaths(config.dataDir).genesis)) {
    const summary = await initDataDir({ dataDir: config.dataDir, serviceKeySecret });
    log.info({ chain_id: summary.chain_id, validator: summary.validators[0]?.address, dev_account: summary.dev_account }, 'initialized a fresh data directory');
    // init may have written <dataDir>/config.json; read the sources again so it takes effect
    ({ config, configPath } = load());
    log.level = config.log.level;
  }
  log.info({ data_dir: config.dataDir, config_file: configPath ?? null }, 'starting');
  if (config.rpcAllowSubjectEnumeration) {
    log.warn(`${SUBJECT_ENUMERATION_ENV}=1: ledger_credentialsBySubject is enabled; anyone who can reach the RPC port can list the credentials of any subject`);
  }

  const enabled = (io.plugins ?? []).filter((entry) => config.plugins[entry.name as PluginName]?.enabled);
  const sealed = enabled.some((entry) => entry.resealSecrets) ? await serviceKeySecret() : undefined;
  const node = await startNode(config, log, { plugins: await Promise.all(enabled.map((entry) => entry.load())), serviceKeySecret: sealed });
  printJson(io, { rpc_url: node.rpcUrl, p2p: node.p2pAddrs, plugins: node.plugins });

  return new Promise<number>((resolveExit) => {
    let closing = false;
    const onSignal = (signal: NodeJS.Signals): void => {
      if (closing) {
        log.warn({ signal }, 'second signal: exiting without finishing the shutdown');
        process.exit(1);
      }
      closing = true;
      log.info({ signal }, 'shutting down');
      node.close().then(
        () => {
          log.info('stopped');
          resolveExit(0);
        },
        (err: unknown) => {
          log.error({ err }, 'shutdown failed');
          resolveExit(1);
        },
      );
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
