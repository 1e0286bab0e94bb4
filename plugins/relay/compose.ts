import { randomBytes } from 'node:crypto';
import type { Registry } from 'prom-client';
import type { Logger } from '../../node/logging.js';
import type { ChainView } from '../../node/plugins/chain-view.js';
import { parseDid } from '../../node/protocol/did.js';
import type { BinarySublevel } from '../../node/state/db.js';
import type { RelayConfig } from './config.js';
import { DeliveryService } from './core/delivery.js';
import type { WebhookOutbox } from '../common/webhooks/outbox.js';
import { RelayEvents } from './core/events.js';
import { Mailer } from '../common/mail/mailer.js';
import { GateService, type BbsVerifier } from './core/gates.js';
import { MediationService } from './core/mediations.js';
import { ResolutionService } from './core/resolutions.js';
import type { RelayServices } from './core/services.js';
import { SettingsService } from './core/settings.js';
import { createMemoryCoordination } from './coordination/memory.js';
import { createRedisCoordination } from './coordination/redis.js';
import { REPLAY_WINDOW_MS, type Coordination } from './coordination/types.js';
import { openPostgres } from '../common/sql/postgres.js';
import { createLevelRelayStore } from './store/level.js';
import { RELAY_POSTGRES_UNAVAILABLE, createPostgresRelayStore } from './store/pg/index.js';
import { MEDIATOR_SEED, type RelaySecretSource } from './store/secrets.js';
import type { RelayStore } from './store/types.js';
import { DidResolver } from './wire/dids/resolver.js';
import { didKeyFromSeed } from './wire/dids/did-key.js';
import { mediatorIdentity } from './wire/identity.js';

/**
 * Builds the relay's services in dependency order: store, coordination, settings, events,
 * resolver, gates, mediations, delivery. The plugin's start() and the tests use the same
 * function. The backends follow the config (docs/relay.md, "Backends"): the node's LevelDB and
 * this process's memory by default, Postgres and Redis when their URLs are set.
 */

export interface ComposeInput {
  config: RelayConfig;
  network: string;
  chain: ChainView;
  db: BinarySublevel;
  outbox: WebhookOutbox;
  verifyBbs: BbsVerifier;
  log: Logger;
  /** the service-key secret the relay's own secrets are stored under (a PluginContext's serviceKeySecret) */
  serviceKeySecret: RelaySecretSource['serviceKeySecret'];
  now?: () => number;
  /** the node's Prometheus registry, for the mailer's ledger_mail_total and ledger_mail_pending */
  metrics?: Registry;
}

export async function createRelayServices(input: ComposeInput): Promise<RelayServices & { resolver: DidResolver }> {
  const now = input.now ?? Date.now;
  const store = await openStore(input, now);
  let coordination: Coordination | undefined;
  let seed: Uint8Array;
  try {
    coordination = await openCoordination(input, now);
    seed = await mediatorSeed(store, input);
  } catch (err) {
    // a start that fails here leaves no pool or connection open behind it
    await coordination?.close();
    await store.close().catch(() => undefined);
    throw err;
  }
  const identity = mediatorIdentity(seed);
  const settings = new SettingsService(store.documents, input.config.defaults);
  const mailer = new Mailer({ store: input.db, smtpUrl: input.config.email.smtpUrl, from: input.config.email.from, log: input.log.child({ part: 'mail' }), outboxRoute: 'GET /v1/notifications/email/outbox', now, metrics: input.metrics && { registry: input.metrics, plugin: 'relay' } });
  mailer.start();
  const events = new RelayEvents({ docs: store.documents, outbox: input.outbox, mailer, log: store.log, logger: input.log, now });
  const resolver = new DidResolver({
    network: input.network,
    ttlMs: input.config.resolverTtlMs,
    negativeTtlMs: Math.min(5000, input.config.resolverTtlMs),
    ledger: async (did) => input.chain.resolveDid(parseDid(did).identifier),
    now,
  });
  const resolutions = new ResolutionService({ resolver, events, now });
  const gates = new GateService({ docs: store.documents, chain: input.chain, network: input.network, verifyBbs: input.verifyBbs });
  const delivery = new DeliveryService({ store, arrivals: coordination.arrivals, settings, events, log: input.log, now });
  const checkKey = async (key: string): Promise<string | null> => {
    const r = await resolutions.resolve(key, { fresh: false });
    return r.active ? null : (r.error ?? 'the DID is not active');
  };
  const mediations = new MediationService({
    store,
    settings,
    gates,
    events,
    log: input.log,
    now,
    checkKey,
    onRevoked: (m, keys) => delivery.failKeys(m.tenantId, keys, 'the mediation was revoked'),
  });
  return {
    config: input.config,
    network: input.network,
    chain: input.chain,
    store,
    settings,
    events,
    outbox: input.outbox,
    gates,
    mediations,
    delivery,
    resolutions,
    coordination,
    identity,
    log: input.log,
    now,
    resolver,
  };
}

/**
 * The configured keys win over the ones in the store (a relay moved to a new host keeps its DID);
 * when they differ, the log says so, with both DIDs and never a key. The store's seed is kept:
 * removing the keys from the configuration brings its DID back.
 */
async function mediatorSeed(store: RelayStore, input: ComposeInput): Promise<Uint8Array> {
  const configured = input.config.keys;
  const stored = await store.secret(MEDIATOR_SEED, () => configured?.ed25519Seed ?? randomBytes(32));
  if (!configured) return stored;
  if (Buffer.compare(Buffer.from(stored), Buffer.from(configured.ed25519Seed)) !== 0) {
    input.log.warn(
      { did: didKeyFromSeed(configured.ed25519Seed).did, replaced_did: didKeyFromSeed(stored).did, keys: configured.source },
      "the configured mediator keys differ from the data directory's: the relay uses the configured ones; agents mediated under the replaced DID must mediate again",
    );
  } else input.log.info({ keys: configured.source }, 'the mediator keys come from the configuration');
  return configured.ed25519Seed;
}

/** a Postgres that cannot be reached here rejects with RELAY_POSTGRES_UNAVAILABLE */
function openStore(input: ComposeInput, now: () => number): Promise<RelayStore> {
  const { postgresUrl } = input.config;
  const secrets = { serviceKeySecret: input.serviceKeySecret, log: input.log };
  if (!postgresUrl) return Promise.resolve(createLevelRelayStore(input.db, { now, secrets }));
  const report = quietly(input.log, now);
  const db = openPostgres(postgresUrl, { unavailableCode: RELAY_POSTGRES_UNAVAILABLE, onError: (err) => report(err, "the relay's Postgres connection") });
  return createPostgresRelayStore(db, { now, secrets, onError: (err) => report(err, 'the relay counters flush') });
}

function openCoordination(input: ComposeInput, now: () => number): Promise<Coordination> {
  const { redisUrl } = input.config;
  if (!redisUrl) return Promise.resolve(createMemoryCoordination({ now, replayWindowMs: REPLAY_WINDOW_MS }));
  return createRedisCoordination({
    url: redisUrl,
    prefix: `ledger:relay:${input.network}:`,
    replayWindowMs: REPLAY_WINDOW_MS,
    onError: quietly(input.log, now),
  });
}

/** a Redis that is down reports on every reconnect attempt: one warning per cause every 30 s */
function quietly(log: Logger, now: () => number): (err: unknown, what: string) => void {
  const last = new Map<string, number>();
  return (err, what) => {
    const at = now();
    if (at - (last.get(what) ?? -Infinity) < 30_000) return;
    last.set(what, at);
    log.warn({ err }, `${what} failed (repeats within 30 s are not logged)`);
  };
}
