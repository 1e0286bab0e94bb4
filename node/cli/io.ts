import type { PluginConfig } from '../config/schema.js';
import type { ResealedSecrets, ServiceKeySecret } from '../config/service-key-secret.js';
import type { Plugin } from '../plugins/types.js';
import type { BinarySublevel } from '../state/db.js';
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** Where a command writes and what it reads from its environment; tests pass their own. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** the service plugins of this build, from the entry point (node/ never imports plugins/) */
  plugins?: readonly PluginEntry[];
}

/** A service plugin by name; only `start` imports its module (load), and only if it is enabled. */
export interface PluginEntry {
  readonly name: string;
  load(): Promise<Plugin>;
  /**
   * For a plugin that keeps secrets sealed under the service-key secret: the writes that
   * re-encrypt them in its namespace `store` (`ledger service-keys rotate`), and in a database
   * of its own that `options` (its config section, as the plugin gets it) names. It writes
   * nothing, so that the command commits every plugin's in one batch, or none when a secret does
   * not open. `ledger start` resolves the secret first when an enabled plugin has this.
   */
  resealSecrets?(store: BinarySublevel, from: ServiceKeySecret, to: ServiceKeySecret, options: PluginConfig): Promise<ResealedSecrets>;
}

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** A mistake in how the command was called: printed with a pointer to --help, exit 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  constructor(
    message: string,
    readonly command?: string,
  ) {
    super(message);
  }
}

export type Options = NonNullable<ParseArgsConfig['options']>;

export interface Parsed {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

/** node:util parseArgs, strict, with its errors turned into UsageError for `command`. */
export function parseCommandArgs(command: string, argv: string[], options: Options, allowPositionals = false): Parsed {
  try {
    const { values, positionals } = parseArgs({ args: argv, options, strict: true, allowPositionals });
    return { values: values as Parsed['values'], positionals };
  } catch (err) {
    throw new UsageError((err as Error).message, command);
  }
}

export function stringFlag(p: Parsed, name: string): string | undefined {
  const v = p.values[name];
  return typeof v === 'string' ? v : undefined;
}

export function requireFlag(p: Parsed, name: string, command: string): string {
  const v = stringFlag(p, name);
  if (v === undefined || v === '') throw new UsageError(`--${name} is required`, command);
  return v;
}

export const DEFAULT_RPC_URL = 'http://127.0.0.1:8545';

/** The node a command talks to: --rpc, else $LEDGER_RPC_URL, else the local default. */
export function rpcUrlFlag(p: Parsed, io: CliIo): string {
  return stringFlag(p, 'rpc') ?? (io.env.LEDGER_RPC_URL || DEFAULT_RPC_URL);
}

export function intFlag(p: Parsed, name: string, command: string, min: number, max: number): number | undefined {
  const v = stringFlag(p, name);
  if (v === undefined) return undefined;
  const n = /^\d+$/.test(v) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(v)}`, command);
  return n;
}

/** Indented JSON that writes bigint as a bare integer, so amounts print exactly. */
export function prettyJson(value: unknown, indent = ''): string {
  const next = indent + '  ';
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Uint8Array) return prettyJson(Array.from(value), indent);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((v) => next + prettyJson(v === undefined ? null : v, next)).join(',\n')}\n${indent}]`;
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return '{}';
    return `{\n${entries.map(([k, v]) => `${next}${JSON.stringify(k)}: ${prettyJson(v, next)}`).join(',\n')}\n${indent}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function printJson(io: CliIo, value: unknown): void {
  io.stdout(prettyJson(value) + '\n');
}
