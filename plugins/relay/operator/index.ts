import type { HttpServer } from '../../../node/http/server.js';
import { packageVersion } from '../../../node/cli/package-root.js';
import type { RelayServices } from '../core/services.js';
import { WIRE_TENANT } from '../core/settings.js';
import { Authenticator, type OperatorAuth } from './auth.js';
import { OperatorDirectory } from './operators.js';
import { DEFAULT_MAX_OPERATOR_BODY, OperatorRouter, type RouteDeps } from './router.js';
import { mountAgents } from './routes/agents.js';
import { mountApiKeys } from './routes/api-keys.js';
import { mountAuthConfig } from './routes/auth-config.js';
import { mountBilling } from './routes/billing.js';
import { mountDeliveryLog } from './routes/delivery-log.js';
import { mountHealth } from './routes/health.js';
import { mountMediations } from './routes/mediations.js';
import { mountMediator } from './routes/mediator.js';
import { mountMessages } from './routes/messages.js';
import { mountNotifications } from './routes/notifications.js';
import { mountPolicies } from './routes/policies.js';
import { mountResolutions } from './routes/resolutions.js';
import { mountSession } from './routes/session.js';
import { mountTeam } from './routes/team.js';
import { mountWebhooks } from './routes/webhooks.js';

/**
 * The relay's operator REST under /v1 (seed 000; docs/relay-operator.md), plus /health. Mount it
 * after the wire routes: its catch-all answers every unknown /v1 path with a 404 Problem.
 */

export { type OperatorAuth } from './auth.js';

export interface OperatorOptions {
  /** the wire's public URL of POST /didcomm when neither the default tenant's setting nor plugins.relay.publicUrl gives one */
  endpoint?: () => string;
  /** the wire's live-mode server, for `liveConnections` in /v1/queue/status */
  live?: { readonly connections: number };
  /** the health response's `version`; default the package version */
  version?: string;
  /** the largest JSON body a route reads; default 64 KiB (413 above) */
  maxBodyBytes?: number;
}

let cachedVersion: string | undefined;
function version(): string {
  if (cachedVersion === undefined) {
    try {
      cachedVersion = packageVersion();
    } catch {
      cachedVersion = '0.0.0';
    }
  }
  return cachedVersion;
}

export function mountOperatorApi(http: Pick<HttpServer, 'route'>, services: RelayServices, auth: OperatorAuth, opts: OperatorOptions = {}): void {
  const now = () => services.now();
  const authenticator = new Authenticator(auth, services.store.documents, now);
  const router = new OperatorRouter(http, authenticator, {
    errorsBase: services.config.errorsBase,
    realm: 'relay',
    maxBodyBytes: opts.maxBodyBytes ?? DEFAULT_MAX_OPERATOR_BODY,
    log: services.log,
    tenantOf: (caller) => caller.tenantId,
  });
  const deps: RouteDeps = {
    router,
    services,
    auth,
    authenticator,
    operators: new OperatorDirectory(services.store.documents),
    live: opts.live,
    version: opts.version ?? version(),
    now,
    async endpoint() {
      return (await services.settings.get(WIRE_TENANT)).endpoint ?? services.config.publicUrl ?? opts.endpoint?.() ?? null;
    },
  };
  mountHealth(deps);
  mountSession(deps);
  mountAuthConfig(deps);
  mountApiKeys(deps);
  mountMediations(deps);
  mountAgents(deps);
  mountMessages(deps);
  mountResolutions(deps);
  mountPolicies(deps);
  mountWebhooks(deps);
  mountMediator(deps);
  mountTeam(deps);
  mountNotifications(deps);
  mountBilling(deps);
  mountDeliveryLog(deps);
  router.fallback('/v1');
}
