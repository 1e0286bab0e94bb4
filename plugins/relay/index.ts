import { randomBytes } from 'node:crypto';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Plugin, PluginContext } from '../../node/plugins/types.js';
import { OidcVerifier } from '../common/auth/oidc.js';
import { SessionTokens } from '../common/auth/session-token.js';
import { boundOrigin } from '../common/bound-origin.js';
import { WebhookOutbox } from '../common/webhooks/outbox.js';
import { createRelayServices } from './compose.js';
import { mountConsole } from './console/serve.js';
import { mountOperatorApi } from './operator/index.js';
import { parseRelayConfig } from './config.js';
import { SESSION_SECRET } from './store/secrets.js';
import { createCodec, type Codec } from './wire/codec.js';
import { InboundPipeline } from './wire/inbound.js';
import { LiveServer } from './wire/live.js';
import { DIDCOMM_PATH, mountWire } from './wire/routes.js';

/**
 * The relay (seed 000): a DIDComm v2 mediator on its own port (default 8082) with the operator
 * REST under /v1. Composition root: config → crypto pool → webhook outbox → services → wire,
 * live mode and the operator REST (/v1, /health) → the retention sweeper. Docs: docs/relay.md.
 */

function metric<T>(registry: Registry, name: string, make: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? make();
}

export function createRelay(): Plugin {
  let codec: Codec | undefined;
  let outbox: WebhookOutbox | undefined;
  let live: LiveServer | undefined;
  let sweeper: NodeJS.Timeout | undefined;
  let stopServices: (() => Promise<void>) | undefined;
  return {
    name: 'relay',
    async start(ctx: PluginContext) {
      const config = parseRelayConfig(ctx.config);
      const db = ctx.store;
      // the outbox keeps its records in its own child namespace (`webhooks`) of the relay's
      outbox = new WebhookOutbox({ store: db, log: ctx.log.child({ part: 'webhooks' }), userAgent: 'ledger-relay/0' });
      // The pool needs the mediator's secrets, which the services read from the store first.
      let verify: Codec['verifyBbs'] = async () => {
        throw new Error('BBS verification before the crypto pool exists');
      };
      const services = await createRelayServices({ config, network: ctx.network, chain: ctx.chain, db, outbox, verifyBbs: (i) => verify(i), log: ctx.log, serviceKeySecret: ctx.serviceKeySecret, metrics: ctx.metrics });
      const crypto = metric(ctx.metrics, 'ledger_relay_crypto_total', () => new Counter({ name: 'ledger_relay_crypto_total', help: "DIDComm envelopes packed and unpacked, by which implementation did it: node (Node's crypto) or library (didcomm-node)", labelNames: ['op', 'via'] as const, registers: [ctx.metrics] }));
      codec = createCodec({ secrets: services.identity.secrets, threads: config.cryptoThreads, maxQueue: config.cryptoQueue, onCrypto: (op, via) => crypto.inc({ op, via }) });
      verify = codec.verifyBbs;
      let bound: string | undefined;
      const endpoint = () => {
        if (bound) return bound;
        const address = ctx.http.server.address();
        const url = config.publicUrl ?? `${boundOrigin(address, ctx.config.port)}${DIDCOMM_PATH}`;
        // known for good once the server listens; asking the server each envelope cost ~1%
        if (address) bound = url;
        return url;
      };
      const pipeline = new InboundPipeline(services, codec, services.resolver, endpoint, ctx.log);
      const envelopes = metric(ctx.metrics, 'ledger_relay_envelopes_total', () => new Counter({ name: 'ledger_relay_envelopes_total', help: 'DIDComm envelopes received, by protocol family and HTTP status', labelNames: ['family', 'status'] as const, registers: [ctx.metrics] }));
      mountWire(ctx.http, { services, pipeline, endpoint, errorsBase: config.errorsBase, envelopes });
      mountConsole(ctx.http, { errorsBase: config.errorsBase, log: ctx.log, ...(config.oidc ? { oidcIssuer: config.oidc.issuer } : {}) });
      const liveServer = new LiveServer(ctx.http.server, DIDCOMM_PATH, pipeline, services, ctx.log);
      live = liveServer;
      ctx.metrics.removeSingleMetric('ledger_relay_live_connections');
      new Gauge({
        name: 'ledger_relay_live_connections',
        help: 'open live-mode WebSockets',
        registers: [ctx.metrics],
        collect() {
          this.set(liveServer.connections);
        },
      });
      const sessionSecret = await services.store.secret(SESSION_SECRET, () => randomBytes(32));
      mountOperatorApi(
        ctx.http,
        services,
        { sessions: new SessionTokens({ secret: sessionSecret, issuer: 'ledger-relay', audience: 'relay-operator', ttl: '12h' }), oidc: config.oidc ? new OidcVerifier(config.oidc) : null },
        { endpoint, live: liveServer },
      );
      await outbox.start();
      const sweep = async () => {
        try {
          while ((await services.delivery.sweep()) > 0);
          await services.store.log.prune(services.now() - 30 * 86_400_000);
        } catch (err) {
          ctx.log.warn({ err }, 'the retention sweep failed');
        }
      };
      sweeper = setInterval(() => void sweep(), config.sweepIntervalMs).unref();
      void sweep();
      stopServices = async () => {
        await services.delivery.flushLog();
        await services.events.notifier.close();
        await services.coordination.close();
        await services.store.close();
      };
      ctx.log.info({ did: services.identity.did, peer_did: services.identity.peerDid(endpoint()), endpoint: endpoint(), crypto_threads: config.cryptoThreads }, 'relay ready');
    },
    async stop() {
      clearInterval(sweeper);
      await live?.close();
      await outbox?.stop();
      await stopServices?.();
      await codec?.close();
    },
  };
}
