import { readFileSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { LedgerError } from '../errors.js';
import { dataPaths } from './datadir.js';
import { resolveConfig, type FlagValues } from './resolve.js';
import { CONFIG_ENV, defaultConfig, type NodeConfig } from './schema.js';

export interface LoadedConfig {
  config: NodeConfig;
  /** the file that was read, if any */
  configPath?: string;
}

function readConfigFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new LedgerError('BAD_CONFIG', `cannot read config file ${path}: ${(err as Error).message}`, 'invalid', { source: path });
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new LedgerError('BAD_CONFIG', `config file ${path} is not valid JSON: ${(err as Error).message}`, 'invalid', { source: path });
  }
}

/**
 * Finds and reads the config file, then resolves. The file is `--config <path>` (or
 * LEDGER_CONFIG) when given, and must then exist; otherwise `<dataDir>/config.json` if present,
 * where dataDir comes from the flags, the environment or the default. The returned dataDir and
 * serviceKeySecretFile are absolute (relative paths are taken from `cwd`).
 */
export function loadConfig(args: { flags: FlagValues; env: Readonly<Record<string, string | undefined>>; cwd: string }): LoadedConfig {
  const { flags, env, cwd } = args;
  const explicit = typeof flags.config === 'string' ? flags.config : env[CONFIG_ENV] || undefined;
  let configPath: string | undefined;
  if (explicit !== undefined) {
    configPath = resolve(cwd, explicit);
  } else {
    const dir = typeof flags['data-dir'] === 'string' ? flags['data-dir'] : env.LEDGER_DATA_DIR || defaultConfig().dataDir;
    const candidate = dataPaths(resolve(cwd, dir)).config;
    if (fileExists(candidate)) configPath = candidate;
  }
  const file = configPath === undefined ? undefined : { path: configPath, value: readConfigFile(configPath) };
  const config = resolveConfig({ file, env, flags });
  if (!isAbsolute(config.dataDir)) config.dataDir = resolve(cwd, config.dataDir);
  if (config.serviceKeySecretFile !== undefined) config.serviceKeySecretFile = resolve(cwd, config.serviceKeySecretFile);
  return configPath === undefined ? { config } : { config, configPath };
}

function fileExists(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isFile() ?? false;
}
