import { LedgerError } from '../errors.js';
import {
  defaultConfig,
  PLUGIN_NAMES,
  PLUGINS_ENV,
  PLUGINS_FLAG,
  RULES,
  SETTINGS,
  SUBJECT_ENUMERATION_ENV,
  type NodeConfig,
  type PluginName,
} from './schema.js';

/** Flag values as node:util parseArgs yields them. */
export type FlagValues = Readonly<Record<string, string | boolean | string[] | undefined>>;

export interface ConfigSources {
  /** the parsed config file, and where it came from (for messages) */
  file?: { path: string; value: unknown };
  env: Readonly<Record<string, string | undefined>>;
  flags: FlagValues;
}

export function configError(source: string, key: string, message: string): LedgerError {
  return new LedgerError('BAD_CONFIG', `${source}: ${key} ${message}`, 'invalid', { source, key });
}

type Tree = Record<string, unknown>;

function isObject(v: unknown): v is Tree {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function setPath(target: Tree, path: string, value: unknown): void {
  const parts = path.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) node = node[part] as Tree;
  node[parts[parts.length - 1]!] = value;
}

/**
 * Walks the file against the defaults' shape: every key must be known, every leaf must pass its
 * rule. Plugin sections keep their extra keys as the plugin's own options.
 */
function mergeFile(config: Tree, value: unknown, source: string): void {
  if (!isObject(value)) throw new LedgerError('BAD_CONFIG', `${source}: the config file must hold a JSON object`, 'invalid', { source });
  const walk = (into: Tree, from: Tree, prefix: string, freeForm: boolean): void => {
    for (const [key, v] of Object.entries(from)) {
      const path = prefix ? `${prefix}.${key}` : key;
      if (path === 'rpcAllowSubjectEnumeration') {
        throw configError(source, path, `cannot be set in a file: set the environment variable ${SUBJECT_ENUMERATION_ENV}=1 instead`);
      }
      const rule = RULES[path];
      if (rule) {
        if (!rule.check(v)) throw configError(source, path, `must be ${rule.what}, got ${rule.show ? rule.show(v) : JSON.stringify(v)}`);
        into[key] = Array.isArray(v) ? [...v] : v;
      } else if (isObject(into[key])) {
        if (!isObject(v)) throw configError(source, path, 'must be an object');
        walk(into[key] as Tree, v, path, prefix === 'plugins');
      } else if (freeForm) {
        into[key] = structuredClone(v);
      } else {
        throw configError(source, path, 'is not a known config key');
      }
    }
  };
  walk(config, value, '', false);
}

function fromString(source: string, name: string, path: string, text: string): unknown {
  const rule = RULES[path]!;
  const v = rule.fromString(text);
  if (v === undefined || !rule.check(v)) throw configError(source, name, `must be ${rule.what}, got ${rule.show ? rule.show(text) : JSON.stringify(text)}`);
  return v;
}

/** "all", "none" or a comma-separated list of plugin names; `unknown` names the first bad one. */
export function parsePluginList(text: string): { plugins: PluginName[]; unknown?: string } {
  const list = text.trim();
  const wanted = list === 'all' ? [...PLUGIN_NAMES] : list === 'none' || list === '' ? [] : list.split(',').map((p) => p.trim()).filter((p) => p.length > 0);
  const unknown = wanted.find((p) => !(PLUGIN_NAMES as readonly string[]).includes(p));
  return { plugins: wanted.filter((p): p is PluginName => (PLUGIN_NAMES as readonly string[]).includes(p)), unknown };
}

function applyPlugins(config: NodeConfig, text: string, source: string, name: string): void {
  const { plugins, unknown } = parsePluginList(text);
  if (unknown !== undefined) {
    throw configError(source, name, `names an unknown plugin ${JSON.stringify(unknown)} (plugins: ${PLUGIN_NAMES.join(', ')}; or all, none)`);
  }
  for (const p of PLUGIN_NAMES) config.plugins[p].enabled = plugins.includes(p);
}

/**
 * Pure: defaults < config file < environment < flags. Throws LedgerError BAD_CONFIG naming the
 * source and the key. `dataDir` is returned as given; the loader makes it absolute.
 */
export function resolveConfig(sources: ConfigSources): NodeConfig {
  const config = defaultConfig();
  if (sources.file) mergeFile(config as unknown as Tree, sources.file.value, `config file ${sources.file.path}`);

  for (const s of SETTINGS) {
    const text = sources.env[s.env];
    if (text !== undefined && text !== '') setPath(config as unknown as Tree, s.path, fromString('environment', s.env, s.path, text));
  }
  const pluginsEnv = sources.env[PLUGINS_ENV];
  if (pluginsEnv !== undefined && pluginsEnv !== '') applyPlugins(config, pluginsEnv, 'environment', PLUGINS_ENV);

  for (const s of SETTINGS) {
    const v = sources.flags[s.flag];
    if (v === undefined) continue;
    if (typeof v === 'boolean') throw configError('flags', `--${s.flag}`, 'needs a value');
    const text = Array.isArray(v) ? v.join(',') : v;
    setPath(config as unknown as Tree, s.path, fromString('flags', `--${s.flag}`, s.path, text));
  }
  const pluginsFlag = sources.flags[PLUGINS_FLAG];
  if (typeof pluginsFlag === 'string') applyPlugins(config, pluginsFlag, 'flags', `--${PLUGINS_FLAG}`);

  // The seed: exactly "1" enables it; any other value, including empty, leaves it disabled.
  config.rpcAllowSubjectEnumeration = sources.env[SUBJECT_ENUMERATION_ENV] === '1';
  return config;
}
