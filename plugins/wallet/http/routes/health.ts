import { readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../../../../node/cli/package-root.js';
import { CachedProbe, failing, notConfigured, ok, summarize, type HealthChecks } from '../../../common/health.js';
import { hostOf, quote } from '../../../common/http/upstream.js';
import { PRICE_ASSETS, type PriceFeed } from '../../market/prices.js';
import type { WalletRouter } from '../router.js';

/**
 * `GET /health` and `GET /v1/health` (no auth): `{status, service: "wallet", build: {commit,
 * builtAt}, timestamp, checks, warnings}`. `status` is `degraded` only when a part that is set up
 * fails (a sponsor without funds, a history index far behind, a configured price feed that does
 * not answer); optional parts left unset (price feed, other chains, internal secret, SMTP) are
 * `not_configured` checks and warnings, and leave it `ok`. `build` is what `npm run build`
 * recorded in dist/build-info.json (scripts/write-build-info.mjs); code run from its sources
 * (tsx) has no build, and says so: `{commit: "unknown", builtAt: null}`.
 */

/** how far behind the chain the history index may be before it counts as failing */
export const MAX_INDEX_LAG = 100;
/** how long the price feed's answer stands for health, so polling it does not load the feed */
export const PRICE_PROBE_MS = 30_000;

export interface WalletParts {
  sponsor: { perHour: number; fundAmount: bigint; status(): Promise<{ address: string; balance: string }> };
  indexLag(): Promise<number>;
  internalSecret: boolean;
  prices: Pick<PriceFeed, 'configured' | 'source' | 'quotes'>;
  /** the other chains' adapter URLs, when configured */
  chains: { eth: string | undefined; btc: string | undefined };
  mail: 'smtp' | 'outbox';
  now(): number;
}

/** The wallet's checks, read afresh on each call but for the price feed's (PRICE_PROBE_MS). */
export function walletChecks(p: WalletParts): () => Promise<HealthChecks> {
  const priceProbe = new CachedProbe(async () => {
    const quotes = await p.prices.quotes(PRICE_ASSETS);
    const missing = PRICE_ASSETS.filter((a) => !quotes[a]?.available).map((a) => {
      const q = quotes[a];
      return `${a}: ${q && !q.available ? q.reason : 'no answer'}`;
    });
    if (missing.length === PRICE_ASSETS.length) return failing(`the price feed at ${p.prices.source} does not answer (${missing.join('; ')})`);
    return ok(`the price feed at ${p.prices.source} answers${missing.length > 0 ? `, but not for every asset (${missing.join('; ')})` : ''}`);
  }, PRICE_PROBE_MS, p.now);
  const chain = (name: 'eth' | 'btc') => {
    const url = p.chains[name];
    return url === undefined ? notConfigured(`no ${name} adapter (plugins.wallet.chains.${name}): ${name} balances are unavailable`) : ok(`${name} balances come from ${hostOf(url)}`);
  };
  return async () => {
    const [sponsor, lag, prices] = await Promise.all([p.sponsor.status(), p.indexLag(), p.prices.configured ? priceProbe.check() : undefined]);
    return {
      sponsor:
        p.sponsor.perHour === 0
          ? notConfigured('the sponsor is off (plugins.wallet.sponsor.perHour is 0): new wallets are not funded')
          : BigInt(sponsor.balance) < p.sponsor.fundAmount
            ? failing(`the sponsor ${sponsor.address} cannot fund new wallets: send it tokens`)
            : ok(`the sponsor ${sponsor.address} funds new wallets`),
      history: lag > MAX_INDEX_LAG ? failing(`the transaction history is ${lag} blocks behind the chain`) : ok(`the transaction history is ${lag} blocks behind the chain`),
      prices: prices ?? notConfigured('no price feed (plugins.wallet.prices.url): prices and USD values are unavailable'),
      eth: chain('eth'),
      btc: chain('btc'),
      internalSecret: p.internalSecret ? ok('POST /v1/auth/session is on') : notConfigured('POST /v1/auth/session is off: set plugins.wallet.internalSecret'),
      mail: p.mail === 'smtp' ? ok('guardian invite mails go out over SMTP') : notConfigured('no SMTP (plugins.wallet.email.smtpUrl): guardian invite mails are not delivered; owners hand over the invite token'),
    };
  };
}

export interface BuildInfo {
  commit: string;
  builtAt: string | null;
}

export const UNKNOWN_BUILD: BuildInfo = Object.freeze({ commit: 'unknown', builtAt: null });

export interface HealthDeps {
  checks(): Promise<HealthChecks>;
  /** default: readBuildInfo(buildInfoFile()), read once */
  build?: BuildInfo;
  now(): number;
}

/** dist/build-info.json when this module runs from the build (dist/), else null: sources have no build. */
export function buildInfoFile(): string | null {
  try {
    const dist = join(packageRoot(), 'dist') + sep;
    return fileURLToPath(import.meta.url).startsWith(dist) ? join(dist, 'build-info.json') : null;
  } catch {
    return null;
  }
}

/** The recorded build, or UNKNOWN_BUILD when there is no file or it is not one of ours. */
export function readBuildInfo(file: string | null): BuildInfo {
  if (file === null) return UNKNOWN_BUILD;
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { commit?: unknown; builtAt?: unknown };
    const commit = typeof parsed.commit === 'string' && /^[\w.-]{1,100}$/.test(parsed.commit) ? parsed.commit : 'unknown';
    const builtAt = typeof parsed.builtAt === 'string' && Number.isFinite(Date.parse(parsed.builtAt)) ? new Date(parsed.builtAt).toISOString() : null;
    return { commit, builtAt };
  } catch {
    return UNKNOWN_BUILD;
  }
}

export function mountHealth(router: WalletRouter, deps: HealthDeps): void {
  const build = { ...(deps.build ?? readBuildInfo(buildInfoFile())) };
  const answer = async () => {
    let checks: HealthChecks;
    try {
      checks = await deps.checks();
    } catch (err) {
      checks = { health: failing(`the health checks themselves failed: ${quote(err instanceof Error ? err.message : String(err), 300)}`) };
    }
    const { status, warnings } = summarize(checks);
    return { status, service: 'wallet', build, timestamp: new Date(deps.now()).toISOString(), checks, warnings };
  };
  router.add('GET', '/health', 'none', answer);
  router.add('GET', '/v1/health', 'none', answer);
}
