import { invalid } from '../../node/errors.js';
import type { PluginConfig } from '../../node/config/schema.js';
import { configValues } from '../common/config.js';

/**
 * `plugins.wallet.*` (docs/wallet.md, "Configuration"): validated once at start. Unknown keys
 * are refused, so a misspelt option is not silently ignored.
 */

export interface WalletConfig {
  /** the public base URL of this service; `https:` makes the session cookie Secure */
  publicUrl: string | undefined;
  /** the base of Problem Details `type` URIs: `<errorsBase>/<status>` */
  errorsBase: string;
  /** the shared secret of POST /v1/auth/session (X-Internal-Secret); unset: that route answers 503 */
  internalSecret: string | undefined;
  session: {
    /** the session JWT's lifetime, renewed while the user is active (`15m`) */
    ttl: string;
    /** a session ends this long after sign-in, however active */
    maxAgeHours: number;
    /** trust X-Forwarded-Proto from a TLS-terminating proxy for the cookie's Secure flag */
    trustProxy: boolean;
  };
  /** the verification service that issues KYC credentials (OpenID4VCI), default the local KYC plugin */
  kycUrl: string;
  /** other chains' balance adapters, by URL: an Ethereum JSON-RPC node and a Bitcoin Esplora API */
  chains: { eth: string | undefined; btc: string | undefined };
  /** a CoinGecko-style price API; unset: prices and USD values answer that no feed is configured */
  prices: { url: string | undefined; cacheSeconds: number; coinIds: Record<string, string> };
  /** SMTP for guardian invites; unset: mail goes to the outbox */
  email: { smtpUrl: string | undefined; from: string };
  /** the sponsor: what it sends a fresh wallet's account, and how many fundings an hour at most */
  sponsor: { fundAmount: bigint; perHour: number };
  /** how long a guardian invite and a recovery request stay open */
  inviteTtlSeconds: number;
  recoveryTtlSeconds: number;
  /** who may start a recovery, how often, at what cost (docs/wallet.md, "Starting a recovery") */
  recovery: RecoveryLimitsConfig;
}

export interface RecoveryLimitsConfig {
  /** leading zero bits the initiation's proof of work needs: 2^bits hashes on average */
  powBits: number;
  /** open requests for distinct new keys that a DID may have before a start must prove more, or be a guardian's */
  maxPendingKeys: number;
  /** initiations a remote address, and a proposed new key, may make in a rolling hour */
  perAddressPerHour: number;
  perKeyPerHour: number;
}

const KNOWN = new Set([
  'enabled', 'host', 'port', 'publicUrl', 'errorsBase', 'internalSecret', 'session', 'kycUrl', 'chains', 'prices', 'email', 'sponsor',
  'inviteTtlSeconds', 'recoveryTtlSeconds', 'recovery',
]);

const { where, int, bool, str, url, object, onlyKnown } = configValues('plugins.wallet');

/** 0.01 LGR: a DidCreate (0.001) and about a hundred transfers' fees */
export const DEFAULT_FUND_AMOUNT = 1_000_000n;

function units(value: unknown, key: string, fallback: bigint): bigint {
  if (value === undefined) return fallback;
  const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
  if (typeof text !== 'string' || !/^\d{1,38}$/.test(text)) throw invalid('CONFIG_INVALID', `${where(key)} must be a whole number of smallest units`);
  return BigInt(text);
}

function coinIds(value: unknown): Record<string, string> {
  const out: Record<string, string> = { lgr: 'ledger-lgr', eth: 'ethereum', btc: 'bitcoin' };
  const given = object(value, 'prices.coinIds', ['lgr', 'eth', 'btc']);
  for (const [asset, id] of Object.entries(given)) out[asset] = str(id, `prices.coinIds.${asset}`, { max: 100 });
  return out;
}

export function parseWalletConfig(section: PluginConfig): WalletConfig {
  onlyKnown(section, KNOWN);
  const session = object(section.session, 'session', ['ttl', 'maxAgeHours', 'trustProxy']);
  const chains = object(section.chains, 'chains', ['eth', 'btc']);
  const prices = object(section.prices, 'prices', ['url', 'cacheSeconds', 'coinIds']);
  const email = object(section.email, 'email', ['smtpUrl', 'from']);
  const sponsor = object(section.sponsor, 'sponsor', ['fundAmount', 'perHour']);
  const recovery = object(section.recovery, 'recovery', ['powBits', 'maxPendingKeys', 'perAddressPerHour', 'perKeyPerHour']);
  const internalSecret = section.internalSecret === undefined ? undefined : str(section.internalSecret, 'internalSecret');
  if (internalSecret !== undefined && internalSecret.length < 24) throw invalid('CONFIG_INVALID', `${where('internalSecret')} must be at least 24 characters`);
  return {
    publicUrl: section.publicUrl === undefined ? undefined : url(section.publicUrl, 'publicUrl'),
    errorsBase: section.errorsBase === undefined ? 'https://ledger.dev/problems/wallet' : url(section.errorsBase, 'errorsBase'),
    internalSecret,
    session: {
      ttl: str(session.ttl, 'session.ttl', { fallback: '15m', max: 10 }),
      maxAgeHours: int(session.maxAgeHours, 'session.maxAgeHours', 30 * 24, 1, 366 * 24),
      trustProxy: bool(session.trustProxy, 'session.trustProxy', false),
    },
    kycUrl: section.kycUrl === undefined ? 'http://127.0.0.1:8083' : url(section.kycUrl, 'kycUrl'),
    chains: {
      eth: chains.eth === undefined ? undefined : url(chains.eth, 'chains.eth'),
      btc: chains.btc === undefined ? undefined : url(chains.btc, 'chains.btc'),
    },
    prices: {
      url: prices.url === undefined ? undefined : url(prices.url, 'prices.url'),
      cacheSeconds: int(prices.cacheSeconds, 'prices.cacheSeconds', 60, 1, 86_400),
      coinIds: coinIds(prices.coinIds),
    },
    email: {
      smtpUrl: email.smtpUrl === undefined ? undefined : url(email.smtpUrl, 'email.smtpUrl', ['smtp:', 'smtps:']),
      from: str(email.from, 'email.from', { fallback: 'Ledger Wallet <no-reply@localhost>' }),
    },
    sponsor: {
      fundAmount: units(sponsor.fundAmount, 'sponsor.fundAmount', DEFAULT_FUND_AMOUNT),
      perHour: int(sponsor.perHour, 'sponsor.perHour', 60, 0, 100_000),
    },
    inviteTtlSeconds: int(section.inviteTtlSeconds, 'inviteTtlSeconds', 7 * 86_400, 60, 90 * 86_400),
    recoveryTtlSeconds: int(section.recoveryTtlSeconds, 'recoveryTtlSeconds', 7 * 86_400, 60, 90 * 86_400),
    recovery: {
      powBits: int(recovery.powBits, 'recovery.powBits', 18, 0, 32),
      maxPendingKeys: int(recovery.maxPendingKeys, 'recovery.maxPendingKeys', 3, 1, 20),
      perAddressPerHour: int(recovery.perAddressPerHour, 'recovery.perAddressPerHour', 10, 1, 10_000),
      perKeyPerHour: int(recovery.perKeyPerHour, 'recovery.perKeyPerHour', 5, 1, 10_000),
    },
  };
}
