import { join } from 'node:path';

/**
 * The data directory layout, in one place so the CLI and the node agree:
 *   config.json       optional node config (see docs/operators.md)
 *   genesis.json      this chain's genesis
 *   keys/             0700; key files 0600
 *     validator.json  the key this node validates with (validator 0)
 *     validator-<i>.json  the other genesis validators' keys (local multi-validator setups)
 *     dev.json        a funded developer account
 *     service-<plugin>.json  an account funded at genesis for a plugin that sends transactions
 *                     (kyc: its credential issuer; wallet: its sponsor), handed to it as ctx.serviceKey;
 *                     its seed sealed under the service-key secret (service-key-file.ts)
 *   secrets/          0700; made by init or the first start when no service-key secret is configured
 *     service-keys.secret  0600: what the plugins' service keys are encrypted under
 *   chain/            the node's LevelDB database
 */
/** where a node keeps its data unless a flag, the config or the environment says otherwise */
export const DEFAULT_DATA_DIR = './data';

export interface DataPaths {
  root: string;
  config: string;
  genesis: string;
  keysDir: string;
  validatorKey: string;
  devKey: string;
  chainDb: string;
}

export function dataPaths(dataDir: string): DataPaths {
  const keysDir = join(dataDir, 'keys');
  return {
    root: dataDir,
    config: join(dataDir, 'config.json'),
    genesis: join(dataDir, 'genesis.json'),
    keysDir,
    validatorKey: join(keysDir, 'validator.json'),
    devKey: join(keysDir, 'dev.json'),
    chainDb: join(dataDir, 'chain'),
  };
}

/** validator 0 is validator.json (the one this node runs as); the others are validator-<i>.json */
export function validatorKeyPath(dataDir: string, index: number): string {
  return index === 0 ? dataPaths(dataDir).validatorKey : join(dataPaths(dataDir).keysDir, `validator-${index}.json`);
}

/** The plugins `ledger init` makes and funds a service account for. */
export const SERVICE_KEY_PLUGINS = ['kyc', 'wallet'] as const;

/** The key file of the account `ledger init` made for a plugin. */
export function serviceKeyPath(dataDir: string, plugin: string): string {
  return join(dataPaths(dataDir).keysDir, `service-${plugin}.json`);
}

/** The service-key secret made on first start when none is configured (service-key-secret.ts). */
export function serviceKeySecretPath(dataDir: string): string {
  return join(dataDir, 'secrets', 'service-keys.secret');
}
