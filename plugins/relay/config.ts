import { availableParallelism } from 'node:os';
import { invalid } from '../../node/errors.js';
import type { PluginConfig } from '../../node/config/schema.js';
import { configValues } from '../common/config.js';
import { defaultSettings, type TenantSettings } from './core/settings.js';
import { parseMediatorKeys, readMediatorKeysFile, type MediatorKeys } from './wire/dids/mediator-keys.js';

/**
 * `plugins.relay.*` (docs/relay.md, "Configuration"): validated once at start, with the defaults
 * a one-machine relay wants. Unknown keys are refused, so a misspelt option is not ignored.
 */

export interface RelayConfig {
  /** the public URL of POST /didcomm; unset: derived from the bound host and port */
  publicUrl: string | undefined;
  /** the largest envelope POST /didcomm or a WebSocket frame accepts (413 above) */
  maxEnvelopeBytes: number;
  /** worker threads for DIDComm crypto and BBS proofs */
  cryptoThreads: number;
  /** envelopes waiting for a crypto thread before the wire answers 503 */
  cryptoQueue: number;
  /** open live-mode WebSockets, all agents together, and per remote address */
  maxLiveConnections: number;
  maxLiveConnectionsPerIp: number;
  /** how long a resolution stays cached */
  resolverTtlMs: number;
  /** operator login: the OpenID provider and the audience its id tokens must name */
  oidc: { issuer: string; audience: string } | undefined;
  /** the base of Problem Details `type` URIs on /v1 */
  errorsBase: string;
  /** the defaults of every tenant's settings */
  defaults: TenantSettings;
  /** how often the retention sweeper runs */
  sweepIntervalMs: number;
  /** records in this Postgres instead of the node's LevelDB (docs/relay.md, "Backends") */
  postgresUrl: string | undefined;
  /** rate limits, replay window and live fan-out shared through this Redis; needs postgresUrl */
  redisUrl: string | undefined;
  /** the mediator's keys (`keys` or `keysFile`); unset: the ones kept in the store */
  keys: MediatorKeys | undefined;
  /** the email notification channel's mail: SMTP, or unset: the mail outbox (GET /v1/notifications/email/outbox) and a warning */
  email: { smtpUrl: string | undefined; from: string };
}

const KNOWN = new Set(['enabled', 'host', 'port', 'publicUrl', 'maxEnvelopeBytes', 'cryptoThreads', 'cryptoQueue', 'maxLiveConnections', 'maxLiveConnectionsPerIp', 'resolverTtlMs', 'oidc', 'errorsBase', 'rateLimitPerDidPerMin', 'retentionSeconds', 'purgeOnAck', 'manualApproval', 'sweepIntervalMs', 'postgresUrl', 'redisUrl', 'keys', 'keysFile', 'email']);

const { int, bool, str, url, object, onlyKnown } = configValues('plugins.relay');

export function parseRelayConfig(section: PluginConfig): RelayConfig {
  onlyKnown(section, KNOWN);
  let oidc: RelayConfig['oidc'];
  if (section.oidc !== undefined) {
    const o = section.oidc as Record<string, unknown>;
    if (o === null || typeof o !== 'object' || typeof o.audience !== 'string' || o.audience.length === 0) {
      throw invalid('CONFIG_INVALID', 'plugins.relay.oidc must be {issuer, audience}');
    }
    oidc = { issuer: url(o.issuer, 'oidc.issuer'), audience: o.audience };
  }
  const cores = availableParallelism();
  const postgresUrl = section.postgresUrl === undefined ? undefined : url(section.postgresUrl, 'postgresUrl', ['postgres:', 'postgresql:']);
  const redisUrl = section.redisUrl === undefined ? undefined : url(section.redisUrl, 'redisUrl', ['redis:', 'rediss:']);
  // instances that share a Redis must share their records too: each LevelDB is one process's own
  if (redisUrl && !postgresUrl) throw invalid('CONFIG_INVALID', 'plugins.relay.redisUrl needs plugins.relay.postgresUrl: several relay instances share their records in Postgres, not in a node\'s LevelDB');
  return {
    publicUrl: section.publicUrl === undefined ? undefined : url(section.publicUrl, 'publicUrl'),
    maxEnvelopeBytes: int(section.maxEnvelopeBytes, 'maxEnvelopeBytes', 256 * 1024, 1024, 16 * 1024 * 1024),
    cryptoThreads: int(section.cryptoThreads, 'cryptoThreads', Math.max(1, Math.min(2, cores - 1)), 0, 16),
    cryptoQueue: int(section.cryptoQueue, 'cryptoQueue', 256, 1, 100_000),
    maxLiveConnections: int(section.maxLiveConnections, 'maxLiveConnections', 10_000, 1, 1_000_000),
    maxLiveConnectionsPerIp: int(section.maxLiveConnectionsPerIp, 'maxLiveConnectionsPerIp', 100, 1, 1_000_000),
    resolverTtlMs: int(section.resolverTtlMs, 'resolverTtlMs', 60_000, 0, 86_400_000),
    oidc,
    errorsBase: typeof section.errorsBase === 'string' ? section.errorsBase.replace(/\/+$/, '') : 'https://ledger.dev/problems/relay',
    defaults: defaultSettings({
      rateLimitPerDidPerMin: int(section.rateLimitPerDidPerMin, 'rateLimitPerDidPerMin', 1200, 1, 1_000_000),
      retentionSeconds: int(section.retentionSeconds, 'retentionSeconds', 7 * 86_400, 60, 90 * 86_400),
      purgeOnAck: bool(section.purgeOnAck, 'purgeOnAck', true),
      manualApproval: bool(section.manualApproval, 'manualApproval', false),
    }),
    sweepIntervalMs: int(section.sweepIntervalMs, 'sweepIntervalMs', 30_000, 100, 3_600_000),
    postgresUrl,
    redisUrl,
    keys: relayKeys(section),
    email: relayEmail(section),
  };
}

/** the same section as plugins.kyc.email */
function relayEmail(section: PluginConfig): RelayConfig['email'] {
  const email = object(section.email, 'email', ['smtpUrl', 'from']);
  return {
    smtpUrl: email.smtpUrl === undefined ? undefined : url(email.smtpUrl, 'email.smtpUrl', ['smtp:', 'smtps:']),
    from: str(email.from, 'email.from', { fallback: 'Ledger relay <no-reply@localhost>' }),
  };
}

/** `keys` inline or `keysFile`, not both: two sources of one identity could disagree */
function relayKeys(section: PluginConfig): MediatorKeys | undefined {
  if (section.keys !== undefined && section.keysFile !== undefined) throw invalid('CONFIG_INVALID', 'plugins.relay.keys and plugins.relay.keysFile are exclusive: give the mediator\'s keys one way', { field: 'plugins.relay.keysFile' });
  if (section.keys !== undefined) return parseMediatorKeys(section.keys, 'plugins.relay.keys');
  if (section.keysFile === undefined) return undefined;
  if (typeof section.keysFile !== 'string' || section.keysFile.length === 0) throw invalid('CONFIG_INVALID', 'plugins.relay.keysFile must be the path of a keys file', { field: 'plugins.relay.keysFile' });
  return readMediatorKeysFile(section.keysFile, 'plugins.relay.keysFile');
}
