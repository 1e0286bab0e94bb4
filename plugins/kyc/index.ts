import { packageVersion } from '../../node/cli/package-root.js';
import { isLedgerError } from '../../node/errors.js';
import type { Plugin, PluginContext } from '../../node/plugins/types.js';
import { boundOrigin } from '../common/bound-origin.js';
import { Mailer } from '../common/mail/index.js';
import { createAccounts } from './accounts/index.js';
import { parseKycConfig } from './config.js';
import { mountDashboard } from './dashboard/serve.js';
import { mountHostedPage } from './hosted/serve.js';
import { KycAuthenticator } from './http/auth.js';
import { createKycRouter } from './http/router.js';
import { mountApiKeys } from './http/routes/api-keys.js';
import { mountAuth } from './http/routes/auth.js';
import { mountCredentialRoutes } from './http/routes/credentials.js';
import { mountTimeline } from './http/routes/timeline.js';
import { listCredentials } from './issuance/list.js';
import { recordingEvents, SessionHistory } from './verification/history.js';
import { mountHealth } from './http/routes/health.js';
import { mountHostedApi } from './http/routes/hosted-api.js';
import { mountOid4vci } from './http/routes/oid4vci.js';
import { mountOperatorMail } from './http/routes/operator-mail.js';
import { mountOrganization } from './http/routes/organization.js';
import { mountEvidence } from './http/routes/evidence.js';
import { mountReview } from './http/routes/review.js';
import { mountRevocationLists } from './http/routes/revocation-lists.js';
import { mountTeam } from './http/routes/team.js';
import { mountVerifications } from './http/routes/verifications.js';
import { mountWebhooks } from './http/routes/webhooks.js';
import { IssuanceService } from './issuance/issuer.js';
import { loadBbsKey } from './issuance/bbs.js';
import { IssuerDid } from './issuance/issuer-did.js';
import { loadServiceKey } from '../common/chain/service-key.js';
import { Revoker } from './issuance/revocation.js';
import { ISSUER_BBS_ROW, ISSUER_SEED_ROW, ISSUER_SIGNER, ISSUER_TX_TABLE } from './issuance/tables.js';
import { TxSender } from '../common/chain/tx-sender.js';
import { KycMetrics } from './metrics.js';
import { OfferStore } from './oid4vci/offers.js';
import { Oid4vciServer } from './oid4vci/server.js';
import type { KycBase } from './services.js';
import { PluginDb } from '../common/store/tables.js';
import { createImageChecker } from './verification/checks/image.js';
import { HttpVerificationProvider } from './verification/provider.js';
import { ReviewQueue } from './verification/review.js';
import { SessionService } from './verification/sessions.js';
import { Sweeper } from './verification/sweeper.js';
import { EvidenceRetention } from './verification/retention.js';
import { KycWebhooks } from './webhooks/events.js';

/**
 * The KYC service (seed 001 part A) on its own port (default 8083). Composition root: config →
 * store → mail, accounts, webhooks → the issuer (key, transactions, offers, credentials) →
 * sessions (image pool, decisions) → routes (/v1, the hosted page /v/s/<token>, OpenID4VCI) →
 * background work (webhook retries, issuance jobs, the issuer DID, the expiry sweeper) → the
 * metrics' gauges (metrics.ts wraps what the parts are handed: events, issuance, the session and
 * login routes). Stopped in reverse order. Docs: docs/kyc.md.
 */

function version(): string {
  try {
    return packageVersion();
  } catch {
    return '0.0.0';
  }
}

/** A session lookup's answer, or undefined when there is no such session (other errors pass). */
function sessionOrNone<T>(lookup: Promise<T>): Promise<T | undefined> {
  return lookup.catch((err: unknown) => {
    if (isLedgerError(err) && err.code === 'SESSION_NOT_FOUND') return undefined;
    throw err;
  });
}

export function createKyc(): Plugin {
  const stops: Array<() => Promise<void> | void> = [];
  return {
    name: 'kyc',
    async start(ctx: PluginContext) {
      const config = parseKycConfig(ctx.config);
      const log = ctx.log;
      let bound: string | undefined;
      const publicUrl = (): string => {
        if (config.publicUrl) return config.publicUrl;
        if (bound) return bound;
        const address = ctx.http.server.address();
        const url = boundOrigin(address, ctx.config.port);
        if (address) bound = url;
        return url;
      };
      const base: KycBase = {
        config,
        db: new PluginDb(ctx.store),
        log,
        chain: ctx.chain,
        network: ctx.network,
        chainId: ctx.chainId,
        submit: (json) => ctx.submit(json),
        publicUrl,
        now: Date.now,
      };

      const mailer = new Mailer({ store: ctx.store, smtpUrl: config.email.smtpUrl, from: config.email.from, log: log.child({ part: 'mail' }), metrics: { registry: ctx.metrics, plugin: 'kyc' } });
      mailer.start();
      stops.push(() => mailer.stop());
      const accounts = await createAccounts(base, mailer);
      stops.push(() => accounts.accounts.drain());
      const metrics = new KycMetrics(ctx.metrics);
      const webhooks = new KycWebhooks(base);
      const events = metrics.countEvents(webhooks);

      const key = await loadServiceKey(base.db, ISSUER_SEED_ROW, ctx.network, ctx);
      const bbsKey = await loadBbsKey(base.db, ISSUER_BBS_ROW, ctx, base.now);
      const tx = new TxSender({ ...base, table: ISSUER_TX_TABLE, signer: ISSUER_SIGNER }, key);
      const offers = new OfferStore(base);
      const issuance = new IssuanceService(base, key, bbsKey, tx, offers);
      const images = createImageChecker({ threads: config.imageThreads });
      stops.push(() => images.close());
      const provider = config.verificationProvider ? new HttpVerificationProvider(config.verificationProvider) : undefined;
      const timer = metrics.issuanceTimer(base.now);
      const sessions = new SessionService({ base, events, issuance: timer.issuance(issuance), orgs: accounts.accounts, images, ...(provider ? { provider } : {}) });
      stops.push(() => sessions.idle());
      issuance.setOutcomes(timer.outcomes(sessions));
      const issuerDid = new IssuerDid(base, key, tx, () => issuance.pendingJobs());
      const history = new SessionHistory(sessions, webhooks);
      const revoker = new Revoker(base, key, tx, issuance.store, recordingEvents(events, sessions, async (id) => (await issuance.store.credentials.get(id))?.sessionId));

      const router = createKycRouter(ctx.http, new KycAuthenticator({ tokens: accounts.tokens, accounts: accounts.accounts, apiKeys: accounts.apiKeys, operatorToken: config.operatorToken }), {
        errorsBase: config.errorsBase,
        log,
      });
      mountHealth({ router, issuer: issuerDid, mailer, reviewQueue: Boolean(config.operatorToken), provider: config.verificationProvider && new URL(config.verificationProvider.url).host, version: version(), now: base.now });
      mountAuth(router, { accounts: metrics.countLoginFailures(accounts.accounts), providers: accounts.providers, publicUrl });
      mountApiKeys(router, { apiKeys: accounts.apiKeys });
      mountOrganization(router, { accounts: accounts.accounts });
      mountTeam(router, { team: accounts.team });
      mountOperatorMail(router, { mailer });
      mountHostedApi(router, { sessions });
      mountVerifications(router, { sessions: metrics.countCreated(sessions) });
      mountCredentialRoutes({ router, revoker, findSession: (organizationId, id) => sessionOrNone(sessions.resolve({ organizationId, id })),
        list: (organizationId, filter) => listCredentials(issuance.store.credentials, organizationId, (id) => sessions.store.get(id), filter),
        revoked: (...args) => history.revoked(...args),
      });
      const review = new ReviewQueue(sessions);
      mountReview(router, { review, emailOf: (userId) => accounts.accounts.me(userId).then((m) => m.user.email, () => undefined) });
      mountEvidence(router, { evidence: review.evidence });
      mountTimeline(router, { history });
      mountWebhooks(router, { webhooks, log });
      mountRevocationLists({ router, chain: ctx.chain, key, publicUrl });
      mountOid4vci({ http: ctx.http, router, server: new Oid4vciServer(base, offers, issuance.store), offers, publicUrl, now: base.now, log });
      mountHostedPage(ctx.http, {
        errorsBase: config.errorsBase,
        log,
        offer: async (token) => {
          const session = await sessionOrNone(sessions.resolve({ token }));
          const found = session?.status === 'completed' ? await offers.ofSession(session.id) : undefined;
          return found ? { uri: found.deepLink, ...(found.offer.txCode ? { txCode: found.offer.txCode } : {}) } : null;
        },
        sessionUrl: async (token) => ((await sessionOrNone(sessions.resolve({ token }))) ? `${publicUrl()}/v/s/${token}` : null),
      });
      mountDashboard(ctx.http, { errorsBase: config.errorsBase, log, providers: Object.keys(config.providers), explorerUrl: config.explorerUrl });
      router.fallback('/v1');

      await webhooks.start();
      stops.push(() => webhooks.stop());
      await issuance.start();
      stops.push(() => issuance.stop());
      issuerDid.start();
      stops.push(() => issuerDid.stop());
      await sessions.resumeEvents();
      await sessions.resumeIssuance();
      const retention = new EvidenceRetention(sessions.store, { retentionDays: config.evidenceRetentionDays });
      const sweeper = new Sweeper(sessions, { intervalMs: config.sweepIntervalMs, now: base.now, log }, retention);
      sweeper.start();
      stops.push(() => sweeper.stop());
      stops.push(metrics.collect({ pendingJobs: () => issuance.pendingJobs(), issuerStatus: () => issuerDid.status() }));
      log.info({ issuer: key.did, origin: key.origin, mail: mailer.via, decisions: provider ? 'provider' : config.operatorToken ? 'review-queue' : 'none' }, 'kyc ready');
    },
    async stop() {
      for (const stop of stops.splice(0).reverse()) await stop();
    },
  };
}
