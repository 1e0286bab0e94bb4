export {
  defaultConfig,
  LOG_LEVELS,
  PLUGIN_DEFAULT_PORTS,
  PLUGIN_NAMES,
  SETTINGS,
  SUBJECT_ENUMERATION_ENV,
  CONFIG_ENV,
  PLUGINS_ENV,
  type LogLevel,
  type NodeConfig,
  type PluginConfig,
  type PluginName,
} from './schema.js';
export { resolveConfig, type ConfigSources, type FlagValues } from './resolve.js';
export { loadConfig, type LoadedConfig } from './load.js';
export { dataPaths, validatorKeyPath, type DataPaths } from './datadir.js';
