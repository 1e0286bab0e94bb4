import type { Plugin, PluginContext } from '../../node/plugins/types.js';
import { boundOrigin } from '../common/bound-origin.js';
import { Mailer } from '../common/mail/index.js';
import { PluginDb } from '../common/store/tables.js';
import { AddressBookStore } from './addressbook/store.js';
import { NetworkStatsService } from './chain/network-stats.js';
import { TransactionPreparer } from './chain/prepare.js';
import { Relay } from './chain/relay.js';
import { TxIndex } from './chain/tx-index.js';
import { parseWalletConfig } from './config.js';
import { CredentialRedeemer } from './credentials/redeem.js';
import { CredentialStatusChecker } from './credentials/status.js';
import { CredentialStore } from './credentials/store.js';
import { StoredThrottle } from './guardians/limits.js';
import { WalletAuthenticator } from './http/auth.js';
import { LoginLimit } from './http/login-limit.js';
import { createWalletRouter } from './http/router.js';
import { mountAddressBook } from './http/routes/address-book.js';
import { mountAddresses } from './http/routes/addresses.js';
import { mountCredentials } from './http/routes/credentials.js';
import { mountDirectory } from './http/routes/directory.js';
import { mountGuardians } from './http/routes/guardians.js';
import { mountHealth, walletChecks } from './http/routes/health.js';
import { mountHistory } from './http/routes/history.js';
import { mountPortfolio } from './http/routes/portfolio.js';
import { mountSession } from './http/routes/session.js';
import { mountTransactions } from './http/routes/transactions.js';
import { mountUsers } from './http/routes/users.js';
import { mountVerificationRequests } from './http/routes/verification-requests.js';
import { ChainAdapters } from './market/adapters.js';
import { PriceFeed } from './market/prices.js';
import { WalletMetrics } from './metrics.js';
import type { WalletBase } from './services.js';
import { ChallengeStore } from './users/challenges.js';
import { KeyRevocations } from './users/key-revocations.js';
import { Onboarding } from './users/onboarding.js';
import { RecoveryWatch } from './users/recovery-watch.js';
import { Registration } from './users/register.js';
import { WalletSessions } from './users/sessions.js';
import { Sponsor } from './users/sponsor.js';
import { UserStore } from './users/store.js';
import { VerificationRequests } from './verification/requests.js';

/**
 * The wallet backend (seed 001 part B) on its own port (default 8084). Composition root: config →
 * store → sessions and users → the sponsor and onboarding → the history index (block stream, with
 * the recovery watch that revokes replaced keys) → routes (/v1, /health) → background work
 * (onboarding, the index, sweeps of sessions, challenges and recovery limits) → the metrics'
 * gauges. Stopped in reverse order. The backend never holds a user's key: it prepares unsigned
 * transactions and relays signed ones. Docs: docs/wallet.md.
 */

/** how often expired sessions, challenges and recovery limits are deleted */
const SWEEP_MS = 10 * 60_000;

export function createWallet(): Plugin {
  const stops: Array<() => Promise<void> | void> = [];
  return {
    name: 'wallet',
    async start(ctx: PluginContext) {
      const config = parseWalletConfig(ctx.config);
      const log = ctx.log;
      const publicUrl = (): string => {
        if (config.publicUrl) return config.publicUrl;
        return boundOrigin(ctx.http.server.address(), ctx.config.port);
      };
      const base: WalletBase = { config, db: new PluginDb(ctx.store), log, chain: ctx.chain, network: ctx.network, chainId: ctx.chainId, submit: (json) => ctx.submit(json), publicUrl, now: Date.now };
      const metrics = new WalletMetrics(ctx.metrics);

      const mailer = new Mailer({ store: ctx.store, smtpUrl: config.email.smtpUrl, from: config.email.from, log: log.child({ part: 'mail' }), metrics: { registry: ctx.metrics, plugin: 'wallet' } });
      mailer.start();
      stops.push(() => mailer.stop());
      const users = new UserStore(base.db);
      const sessions = await WalletSessions.create({ db: base.db, store: ctx.store, config, now: base.now });
      const challenges = new ChallengeStore(base.db, base.now);
      const sponsor = await Sponsor.create(base, ctx);
      const onboarding = new Onboarding(base, sponsor);
      const revocations = new KeyRevocations(base.db);
      const registration = metrics.countRegistrations(new Registration({ base, users, challenges, onboarding, revocations }));
      const index = new TxIndex(base.db, { log, watchers: [new RecoveryWatch({ db: base.db, chain: ctx.chain, users, revocations, now: base.now })] });
      const prices = new PriceFeed({ url: config.prices.url, cacheSeconds: config.prices.cacheSeconds, coinIds: config.prices.coinIds });
      const credentials = new CredentialStore(base.db);
      const credentialStatus = new CredentialStatusChecker({ chain: ctx.chain, kycUrl: () => config.kycUrl, now: base.now, log });

      const router = createWalletRouter(ctx.http, new WalletAuthenticator({ sessions, users, revocations }), { errorsBase: config.errorsBase, log });
      mountHealth(router, {
        now: base.now,
        checks: walletChecks({
          sponsor: { perHour: config.sponsor.perHour, fundAmount: config.sponsor.fundAmount, status: () => sponsor.status() },
          indexLag: () => index.lag(ctx.chain.head()?.seq ?? 0),
          internalSecret: config.internalSecret !== undefined,
          prices,
          chains: config.chains,
          mail: mailer.via,
          now: base.now,
        }),
      });
      const loginLimit = () => new LoginLimit({ trustProxy: config.session.trustProxy });
      mountUsers(router, { registration, users, sessions, limit: loginLimit() });
      mountSession(router, { users, sessions, revocations, internalSecret: config.internalSecret, limit: loginLimit() });
      mountDirectory(router, { users });
      mountAddresses(router, { users });
      mountPortfolio(router, { chain: ctx.chain, users, adapters: new ChainAdapters(config.chains), prices });
      mountTransactions(router, { preparer: new TransactionPreparer(base), relay: metrics.countRelays(new Relay(base)), stats: new NetworkStatsService(base) });
      mountHistory(router, { index, users, now: base.now });
      const guardians = mountGuardians(router, { base, users, mailer, relay: new Relay(base), wrapRecovery: (r) => metrics.countRecovery(r) });
      mountCredentials(router, { store: credentials, status: credentialStatus, redeemer: new CredentialRedeemer({ base, store: credentials, status: credentialStatus }) });
      mountAddressBook(router, { book: new AddressBookStore(base.db, base.now) });
      mountVerificationRequests(router, { requests: new VerificationRequests({ chain: ctx.chain }) });
      router.fallback('/v1');

      await onboarding.start();
      stops.push(() => onboarding.stop());
      const indexing = new AbortController();
      const indexRun = index.run((from, signal) => ctx.blocks(from, signal), indexing.signal);
      stops.push(async () => {
        indexing.abort();
        await indexRun;
      });
      const sweep = setInterval(() => {
        void Promise.all([sessions.sweep(), challenges.sweep(), StoredThrottle.sweep(base.db, base.now())]).catch((err: unknown) => log.warn({ err }, 'the wallet could not sweep expired sessions'));
      }, SWEEP_MS);
      sweep.unref();
      stops.push(() => clearInterval(sweep));
      stops.push(metrics.collect({ indexLag: () => index.lag(ctx.chain.head()?.seq ?? 0), sponsorBalance: async () => BigInt((await sponsor.status()).balance) }));
      log.info({ sponsor: sponsor.address, mail: mailer.via, prices: prices.source, guardians: Boolean(guardians) }, 'wallet ready');
    },
    async stop() {
      for (const stop of stops.splice(0).reverse()) await stop();
    },
  };
}
