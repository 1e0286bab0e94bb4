/**
 * The node's configuration: its shape and defaults. How a file, the environment and flags
 * combine lives in resolve.ts; reading files lives in load.ts.
 */

import { redactUrl } from './redact-url.js';
import { isIP } from 'node:net';
import { DEFAULT_DATA_DIR } from './datadir.js';
import { MAX_REQUEST_COST } from '../rpc/verification/cost.js';
import { BBS_BATCH_WINDOW_MS } from '../rpc/verification/bbs-batcher.js';
import { defaultVerifyThreads } from '../rpc/verification/pool.js';
import { ANSWER_WINDOW_MS, BACKLOG_BUSY, STANDBY_DELAY_MS } from '../verification/defaults.js';
import { DEFAULT_CONNECTION_LIMITS } from '../http/connections.js';

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const PLUGIN_NAMES = ['explorer', 'relay', 'kyc', 'wallet'] as const;
export type PluginName = (typeof PLUGIN_NAMES)[number];

/**
 * One plugin's section. Keys other than enabled/host/port and the connection caps are the
 * plugin's own options and are passed through untouched: the plugin validates them.
 */
export interface PluginConfig {
  enabled: boolean;
  host: string;
  /** 0 = any free port */
  port: number;
  /** connection caps of the plugin's HTTP server (http/connections.ts); the host keeps them */
  maxConnections?: number;
  maxConnectionsPerIp?: number;
  [option: string]: unknown;
}

export interface NodeConfig {
  dataDir: string;
  /** maxInFlight, maxEventLoopLagMs and retryAfterMs: when the RPC answers busy (docs/rpc.md, "Busy") */
  rpc: {
    host: string;
    port: number;
    maxBodyBytes: number;
    /** connection caps of the RPC port (http/connections.ts); 0 = no cap */
    maxConnections: number;
    maxConnectionsPerIp: number;
    maxBatch: number;
    maxInFlight: number;
    maxEventLoopLagMs: number;
    retryAfterMs: number;
    /** expensive verification (docs/rpc.md, "Expensive verification"): worker threads, queue bound and per-batch budget in work units */
    verifyThreads: number;
    verifyMaxQueuedCost: number;
    /** how long a BBS proof that finds a verification thread free waits for others to share its pairing check */
    bbsBatchWindowMs: number;
    maxBatchCost: number;
  };
  p2p: { host: string; port: number; bootstrap: string[] };
  log: { level: LogLevel };
  /** verifyThreads: worker threads that check transaction signatures (0 = on the event loop) */
  mempool: { maxTransactions: number; maxBytes: number; maxPerSender: number; verifyThreads: number };
  consensus: { idleBlockIntervalMs: number; minBlockIntervalMs: number; fullBlockTransactions: number; roundTimeoutMs: number; maxBlockTransactions: number };
  /** `auto`: this validator attests credential requests its VRF selects it for (node/attestation/) */
  attestation: { auto: boolean };
  /** this validator's side of verification requests (docs/protocol.md, "Who answers, and when"; docs/rpc.md, "Busy") */
  verification: { standbyDelayMs: number; answerWindowMs: number; backlogBusy: number };
  plugins: Record<PluginName, PluginConfig>;
  /** a file holding the secret the plugins' service keys are encrypted under (config/service-key-secret.ts); unset: LEDGER_SERVICE_KEY_SECRET, else one in the data directory */
  serviceKeySecretFile?: string;
  /** ledger_credentialsBySubject; only the env var LEDGER_RPC_ALLOW_SUBJECT_ENUMERATION=1 turns it on */
  rpcAllowSubjectEnumeration: boolean;
}

const MiB = 1024 * 1024;

export const PLUGIN_DEFAULT_PORTS: Readonly<Record<PluginName, number>> = { explorer: 8081, relay: 8082, kyc: 8083, wallet: 8084 };

/** room for the explorer feed's 1,000 WebSockets and the relay's 10,000 live ones (docs/operators.md, "Connection limits") */
export const PLUGIN_DEFAULT_MAX_CONNECTIONS: Readonly<Record<PluginName, number>> = { explorer: 2048, relay: 10_240, kyc: 1024, wallet: 1024 };

export function defaultConfig(): NodeConfig {
  const plugin = (name: PluginName): PluginConfig => ({
    enabled: false,
    host: '127.0.0.1',
    port: PLUGIN_DEFAULT_PORTS[name],
    maxConnections: PLUGIN_DEFAULT_MAX_CONNECTIONS[name],
    maxConnectionsPerIp: DEFAULT_CONNECTION_LIMITS.maxConnectionsPerIp,
  });
  return {
    dataDir: DEFAULT_DATA_DIR,
    rpc: {
      host: '127.0.0.1',
      port: 8545,
      maxBodyBytes: MiB,
      ...DEFAULT_CONNECTION_LIMITS,
      maxBatch: 100,
      maxInFlight: 256,
      maxEventLoopLagMs: 500,
      retryAfterMs: 1000,
      verifyThreads: defaultVerifyThreads(),
      verifyMaxQueuedCost: 12_000,
      bbsBatchWindowMs: BBS_BATCH_WINDOW_MS,
      maxBatchCost: 6_000,
    },
    p2p: { host: '0.0.0.0', port: 30333, bootstrap: [] },
    log: { level: 'info' },
    mempool: { maxTransactions: 50_000, maxBytes: 64 * MiB, maxPerSender: 1000, verifyThreads: 0 },
    consensus: { idleBlockIntervalMs: 1000, minBlockIntervalMs: 25, fullBlockTransactions: 1000, roundTimeoutMs: 2000, maxBlockTransactions: 5000 },
    attestation: { auto: true },
    verification: { standbyDelayMs: STANDBY_DELAY_MS, answerWindowMs: ANSWER_WINDOW_MS, backlogBusy: BACKLOG_BUSY },
    plugins: { explorer: plugin('explorer'), relay: plugin('relay'), kyc: plugin('kyc'), wallet: plugin('wallet') },
    rpcAllowSubjectEnumeration: false,
  };
}

/** How one leaf value is checked; `what` names the rule in error messages. */
export interface Rule {
  what: string;
  check(value: unknown): boolean;
  /** turns an env or flag string into the value; undefined = not convertible */
  fromString(text: string): unknown;
  /** how a refused value is quoted in the error; default JSON (a URL hides its password) */
  show?(value: unknown): string;
}

const intFromString = (text: string): unknown => (/^-?\d+$/.test(text.trim()) ? Number(text.trim()) : undefined);

export function intRule(min: number, max: number, what: string): Rule {
  return { what, check: (v) => Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max, fromString: intFromString };
}

export const PORT = intRule(0, 65535, 'an integer port 0-65535 (0 = any free port)');
const CONNECTIONS = intRule(0, 1_000_000, 'an integer number of connections from 0 (no cap) to 1000000');
export const POSITIVE = intRule(1, Number.MAX_SAFE_INTEGER, 'a positive integer');
/** a DNS name (RFC 1123 labels) such as localhost, or a literal IPv4/IPv6 address without brackets */
const HOST_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;
export const HOST: Rule = {
  what: 'a host name or an IP address (e.g. 127.0.0.1, 0.0.0.0, ::, localhost), without port, scheme or brackets',
  check: (v) => typeof v === 'string' && (isIP(v) !== 0 || HOST_NAME.test(v)),
  fromString: (s) => s.trim(),
};
export const PATH: Rule = { what: 'a non-empty path', check: (v) => typeof v === 'string' && v.length > 0, fromString: (s) => s };
export const BOOL: Rule = {
  what: 'a boolean (true or false)',
  check: (v) => typeof v === 'boolean',
  fromString: (s) => (s === 'true' || s === '1' ? true : s === 'false' || s === '0' ? false : undefined),
};
export const LEVEL: Rule = { what: `one of ${LOG_LEVELS.join(', ')}`, check: (v) => (LOG_LEVELS as readonly unknown[]).includes(v), fromString: (s) => s };
/** libp2p multiaddrs such as /ip4/10.0.0.2/tcp/30333/p2p/12D3Koo...; env and flags take a comma-separated list */
export const MULTIADDRS: Rule = {
  what: 'an array of multiaddr strings, each starting with "/"',
  check: (v) => Array.isArray(v) && v.every((a) => typeof a === 'string' && a.startsWith('/') && a.length > 1),
  fromString: (s) => s.split(',').map((a) => a.trim()).filter((a) => a.length > 0),
};

/** a URL of one of the protocols, with a host (credentials may be in it: never log it whole) */
export function urlRule(protocols: readonly string[], what: string): Rule {
  const check = (v: unknown): boolean => {
    if (typeof v !== 'string') return false;
    try {
      const u = new URL(v);
      return protocols.includes(u.protocol) && u.hostname.length > 0;
    } catch {
      return false;
    }
  };
  return { what, check, fromString: (s) => s.trim(), show: (v) => (typeof v !== 'string' ? JSON.stringify(v) : URL.canParse(v) ? JSON.stringify(redactUrl(v)) : 'a value that is not a URL') };
}
const POSTGRES_URL = urlRule(['postgres:', 'postgresql:'], 'a postgres:// URL (postgres://user:password@host:5432/database)');
const REDIS_URL = urlRule(['redis:', 'rediss:'], 'a redis:// URL (redis://host:6379, rediss:// for TLS)');

/** Every fixed leaf of the schema, by dotted path. Plugin sections also take free-form options. */
export const RULES: Readonly<Record<string, Rule>> = {
  dataDir: PATH,
  'rpc.host': HOST,
  'rpc.port': PORT,
  'rpc.maxBodyBytes': intRule(1024, 1024 * MiB, 'an integer number of bytes from 1024 to 1 GiB'),
  'rpc.maxConnections': CONNECTIONS,
  'rpc.maxConnectionsPerIp': CONNECTIONS,
  'rpc.maxBatch': intRule(1, 10_000, 'an integer from 1 to 10000'),
  'rpc.maxInFlight': intRule(1, 100_000, 'an integer from 1 to 100000'),
  'rpc.maxEventLoopLagMs': intRule(0, 60_000, 'an integer number of milliseconds from 0 (off) to 60000'),
  'rpc.retryAfterMs': intRule(100, 3_600_000, 'an integer number of milliseconds from 100 to 3600000'),
  'rpc.verifyThreads': intRule(1, 64, 'an integer number of worker threads from 1 to 64'),
  'rpc.verifyMaxQueuedCost': intRule(1, 100_000_000, 'an integer number of work units from 1 to 100000000'),
  'rpc.bbsBatchWindowMs': intRule(0, 1000, 'an integer number of milliseconds from 0 (a proof on a free thread leaves at once) to 1000'),
  // below the largest single request, a valid proof could never be verified
  'rpc.maxBatchCost': intRule(MAX_REQUEST_COST, 100_000_000, `an integer number of work units from ${MAX_REQUEST_COST} (one proof over the largest credential) to 100000000`),
  'p2p.host': HOST,
  'p2p.port': PORT,
  'p2p.bootstrap': MULTIADDRS,
  'log.level': LEVEL,
  'mempool.maxTransactions': POSITIVE,
  'mempool.maxBytes': POSITIVE,
  'mempool.maxPerSender': POSITIVE,
  'mempool.verifyThreads': intRule(0, 64, 'an integer number of worker threads from 0 (check on the event loop) to 64'),
  'consensus.idleBlockIntervalMs': intRule(10, 3_600_000, 'an integer number of milliseconds from 10 to 3600000'),
  'consensus.minBlockIntervalMs': intRule(0, 10_000, 'an integer number of milliseconds from 0 to 10000'),
  'consensus.fullBlockTransactions': intRule(1, 100_000, 'an integer from 1 to 100000'),
  'consensus.roundTimeoutMs': intRule(100, 3_600_000, 'an integer number of milliseconds from 100 to 3600000'),
  'consensus.maxBlockTransactions': intRule(1, 100_000, 'an integer from 1 to 100000'),
  'attestation.auto': BOOL,
  'verification.standbyDelayMs': intRule(0, 600_000, 'an integer number of milliseconds from 0 (every member answers at once) to 600000'),
  'verification.answerWindowMs': intRule(0, 10_000, 'an integer number of milliseconds from 0 to 10000'),
  'verification.backlogBusy': intRule(1, 100_000, 'an integer number of checks from 1 to 100000'),
  ...Object.fromEntries(
    PLUGIN_NAMES.flatMap((p) => [
      [`plugins.${p}.enabled`, BOOL],
      [`plugins.${p}.host`, HOST],
      [`plugins.${p}.port`, PORT],
      [`plugins.${p}.maxConnections`, CONNECTIONS],
      [`plugins.${p}.maxConnectionsPerIp`, CONNECTIONS],
    ]),
  ),
  // the scale-out backends (docs/operators.md); unset, the plugins keep their data in the node's LevelDB
  'plugins.relay.postgresUrl': POSTGRES_URL,
  'plugins.relay.redisUrl': REDIS_URL,
  'plugins.explorer.postgresUrl': POSTGRES_URL,
  // the relay mediator's keys (docs/relay.md, "The mediator's identity"), for a container's mounted secret
  'plugins.relay.keysFile': PATH,
  serviceKeySecretFile: PATH,
};

/**
 * Settings the environment and flags can change; each is also a file key. Plugin switches
 * (LEDGER_PLUGINS / --plugins) and rpcAllowSubjectEnumeration (env only, exact match by the
 * seed's rule) are handled apart.
 */
export interface Setting {
  path: string;
  env: string;
  flag: string;
}

export const SETTINGS: readonly Setting[] = [
  { path: 'dataDir', env: 'LEDGER_DATA_DIR', flag: 'data-dir' },
  { path: 'rpc.host', env: 'LEDGER_RPC_HOST', flag: 'rpc-host' },
  { path: 'rpc.port', env: 'LEDGER_RPC_PORT', flag: 'rpc-port' },
  { path: 'p2p.host', env: 'LEDGER_P2P_HOST', flag: 'p2p-host' },
  { path: 'p2p.port', env: 'LEDGER_P2P_PORT', flag: 'p2p-port' },
  { path: 'p2p.bootstrap', env: 'LEDGER_P2P_BOOTSTRAP', flag: 'bootstrap' },
  { path: 'log.level', env: 'LEDGER_LOG_LEVEL', flag: 'log-level' },
  { path: 'attestation.auto', env: 'LEDGER_ATTESTATION_AUTO', flag: 'attestation-auto' },
  ...PLUGIN_NAMES.flatMap((p) => [
    { path: `plugins.${p}.host`, env: `LEDGER_${p.toUpperCase()}_HOST`, flag: `${p}-host` },
    { path: `plugins.${p}.port`, env: `LEDGER_${p.toUpperCase()}_PORT`, flag: `${p}-port` },
  ]),
  { path: 'plugins.relay.postgresUrl', env: 'LEDGER_RELAY_POSTGRES_URL', flag: 'relay-postgres-url' },
  { path: 'plugins.relay.redisUrl', env: 'LEDGER_RELAY_REDIS_URL', flag: 'relay-redis-url' },
  { path: 'plugins.relay.keysFile', env: 'LEDGER_RELAY_KEYS_FILE', flag: 'relay-keys-file' },
  { path: 'plugins.explorer.postgresUrl', env: 'LEDGER_EXPLORER_POSTGRES_URL', flag: 'explorer-postgres-url' },
  { path: 'serviceKeySecretFile', env: 'LEDGER_SERVICE_KEY_SECRET_FILE', flag: 'service-key-secret-file' },
];

/** `all`, `none`, or a comma-separated list of plugin names: exactly those are enabled */
export const PLUGINS_ENV = 'LEDGER_PLUGINS';
export const PLUGINS_FLAG = 'plugins';

export const SUBJECT_ENUMERATION_ENV = 'LEDGER_RPC_ALLOW_SUBJECT_ENUMERATION';
/** `ledger start --follow <rpc url>` from the environment */
export const FOLLOW_ENV = 'LEDGER_FOLLOW';
/** names a config file explicitly, like --config */
export const CONFIG_ENV = 'LEDGER_CONFIG';
