import { invalid } from '../../node/errors.js';
import type { PluginConfig } from '../../node/config/schema.js';
import { configValues } from '../common/config.js';

/**
 * `plugins.kyc.*` (docs/kyc.md, "Configuration"): validated once at start. Unknown keys are
 * refused, so a misspelt option is not silently ignored.
 */

export interface OidcProviderConfig {
  /** the provider's issuer; its discovery document is read from `<issuer>/.well-known/openid-configuration` */
  issuer: string;
  clientId: string;
  clientSecret: string | undefined;
  /** space-separated scopes; default `openid email profile` */
  scope: string;
}

export interface KycConfig {
  /** the public base URL of this service (sessionUrl, offers, issuer metadata); unset: from the bound host and port */
  publicUrl: string | undefined;
  /** the base of Problem Details `type` URIs */
  errorsBase: string;
  /** how long a new verification session may stay pending */
  sessionTtlSeconds: number;
  /** how long a session in `processing` may wait for a decision before it expires */
  reviewTtlSeconds: number;
  /** account JWT lifetime (`12h`) */
  jwtTtl: string;
  /** how often the sweeper looks for sessions past expiresAt */
  sweepIntervalMs: number;
  /** worker threads for image decoding */
  imageThreads: number;
  /** SMTP; unset: mail goes to the operator-readable outbox and a warning is logged */
  email: { smtpUrl: string | undefined; from: string };
  /** OpenID Connect login providers, one path segment each: GET /v1/auth/<name> */
  providers: Record<string, OidcProviderConfig>;
  /** where a provider login lands with its JWT (`#token=`) when the login did not name one */
  loginRedirectUrl: string | undefined;
  webhooks: { retryOffsetsSeconds: number[]; timeoutMs: number; allowHttpHosts: string[] };
  /** the decision maker of live sessions: the operator review queue, unless a provider is configured */
  verificationProvider: { url: string; secret: string } | undefined;
  /** the operator token for the review queue routes (`Authorization: Bearer <token>`); unset: those routes answer 503 */
  operatorToken: string | undefined;
  issuer: { name: string; credentialValidityDays: number; jurisdiction: string };
  /** OpenID4VCI pre-authorized codes: lifetime, and whether a tx_code (PIN) is required */
  oid4vci: { offerTtlSeconds: number; txCode: boolean };
  /** the block explorer's public URL, for the dashboard's links to a credential's page; unset: no links */
  explorerUrl: string | undefined;
  /** days after a session's final state its images are deleted (verification/retention.ts); null: kept until deleted by hand */
  evidenceRetentionDays: number | null;
}

const KNOWN = new Set([
  'enabled', 'host', 'port', 'publicUrl', 'errorsBase', 'sessionTtlSeconds', 'reviewTtlSeconds', 'jwtTtl', 'sweepIntervalMs', 'imageThreads',
  'email', 'providers', 'loginRedirectUrl', 'webhooks', 'verificationProvider', 'operatorToken', 'issuer', 'oid4vci',
  'explorerUrl', 'evidenceRetentionDays',
]);

const { where, int, bool, str, url, object, onlyKnown } = configValues('plugins.kyc');

const PROVIDER_NAME = /^[a-z][a-z0-9-]{0,31}$/;

function providers(value: unknown): Record<string, OidcProviderConfig> {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalid('CONFIG_INVALID', `${where('providers')} must be an object of providers by name`);
  const out: Record<string, OidcProviderConfig> = {};
  for (const [name, raw] of Object.entries(value)) {
    // the name is a path segment of GET /v1/auth/<name>; these are the account routes' own
    if (!PROVIDER_NAME.test(name) || ['register', 'login', 'me', 'totp', 'forgot-password', 'reset-password', 'callback'].includes(name)) {
      throw invalid('CONFIG_INVALID', `${where('providers')}.${name}: a provider name is a lowercase letter and up to 31 of a-z, 0-9 and -, and not an account route`);
    }
    const p = object(raw, `providers.${name}`, ['issuer', 'clientId', 'clientSecret', 'scope']);
    out[name] = {
      issuer: url(p.issuer, `providers.${name}.issuer`),
      clientId: str(p.clientId, `providers.${name}.clientId`),
      clientSecret: p.clientSecret === undefined ? undefined : str(p.clientSecret, `providers.${name}.clientSecret`),
      scope: str(p.scope, `providers.${name}.scope`, { fallback: 'openid email profile' }),
    };
  }
  return out;
}

/** Default 30 days; null keeps the images; 0 is refused, as it would delete evidence the moment a session is decided. */
function retentionDays(value: unknown): number | null {
  if (value === null) return null;
  if (value === undefined) return 30;
  // as int() does: a string of digits is a number given through the environment
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 36_500) {
    throw invalid('CONFIG_INVALID', `${where('evidenceRetentionDays')} must be a whole number of days from 1 to 36500, or null to keep the images (got ${JSON.stringify(value)})`);
  }
  return n;
}

function offsets(value: unknown): number[] {
  if (value === undefined) return [0, 10, 20, 40, 80, 160];
  const bad = () => invalid('CONFIG_INVALID', `${where('webhooks.retryOffsetsSeconds')} must be 1 to 50 non-decreasing numbers of seconds starting at 0`);
  if (!Array.isArray(value) || value.length === 0 || value.length > 50 || value[0] !== 0) throw bad();
  value.forEach((x, i) => {
    if (typeof x !== 'number' || !Number.isFinite(x) || x < 0 || x > 86_400 || (i > 0 && x < (value[i - 1] as number))) throw bad();
  });
  return [...(value as number[])];
}

export function parseKycConfig(section: PluginConfig): KycConfig {
  onlyKnown(section, KNOWN);
  const email = object(section.email, 'email', ['smtpUrl', 'from']);
  const webhooks = object(section.webhooks, 'webhooks', ['retryOffsetsSeconds', 'timeoutMs', 'allowHttpHosts']);
  const issuer = object(section.issuer, 'issuer', ['name', 'credentialValidityDays', 'jurisdiction']);
  const oid4vci = object(section.oid4vci, 'oid4vci', ['offerTtlSeconds', 'txCode']);
  const provider = section.verificationProvider === undefined ? undefined : object(section.verificationProvider, 'verificationProvider', ['url', 'secret']);
  const allowHttpHosts = webhooks.allowHttpHosts ?? [];
  if (!Array.isArray(allowHttpHosts) || allowHttpHosts.some((h) => typeof h !== 'string' || h === '')) throw invalid('CONFIG_INVALID', `${where('webhooks.allowHttpHosts')} must be a list of host names`);
  const operatorToken = section.operatorToken === undefined ? undefined : str(section.operatorToken, 'operatorToken');
  if (operatorToken !== undefined && operatorToken.length < 24) throw invalid('CONFIG_INVALID', `${where('operatorToken')} must be at least 24 characters`);
  return {
    publicUrl: section.publicUrl === undefined ? undefined : url(section.publicUrl, 'publicUrl'),
    errorsBase: section.errorsBase === undefined ? 'https://ledger.dev/problems/kyc' : url(section.errorsBase, 'errorsBase'),
    sessionTtlSeconds: int(section.sessionTtlSeconds, 'sessionTtlSeconds', 24 * 3600, 5, 30 * 86_400),
    reviewTtlSeconds: int(section.reviewTtlSeconds, 'reviewTtlSeconds', 7 * 86_400, 5, 90 * 86_400),
    jwtTtl: str(section.jwtTtl, 'jwtTtl', { fallback: '12h', max: 10 }),
    sweepIntervalMs: int(section.sweepIntervalMs, 'sweepIntervalMs', 30_000, 100, 3_600_000),
    imageThreads: int(section.imageThreads, 'imageThreads', 1, 1, 16),
    email: {
      smtpUrl: email.smtpUrl === undefined ? undefined : url(email.smtpUrl, 'email.smtpUrl', ['smtp:', 'smtps:']),
      from: str(email.from, 'email.from', { fallback: 'Ledger KYC <no-reply@localhost>' }),
    },
    providers: providers(section.providers),
    loginRedirectUrl: section.loginRedirectUrl === undefined ? undefined : url(section.loginRedirectUrl, 'loginRedirectUrl'),
    webhooks: {
      retryOffsetsSeconds: offsets(webhooks.retryOffsetsSeconds),
      timeoutMs: int(webhooks.timeoutMs, 'webhooks.timeoutMs', 10_000, 100, 60_000),
      allowHttpHosts: allowHttpHosts as string[],
    },
    verificationProvider: provider === undefined ? undefined : { url: url(provider.url, 'verificationProvider.url'), secret: str(provider.secret, 'verificationProvider.secret') },
    operatorToken,
    issuer: {
      name: str(issuer.name, 'issuer.name', { fallback: 'Ledger KYC', max: 200 }),
      credentialValidityDays: int(issuer.credentialValidityDays, 'issuer.credentialValidityDays', 365, 1, 3650),
      jurisdiction: str(issuer.jurisdiction, 'issuer.jurisdiction', { fallback: 'XX', max: 8 }),
    },
    oid4vci: {
      offerTtlSeconds: int(oid4vci.offerTtlSeconds, 'oid4vci.offerTtlSeconds', 30 * 86_400, 60, 365 * 86_400),
      txCode: bool(oid4vci.txCode, 'oid4vci.txCode', false),
    },
    explorerUrl: section.explorerUrl === undefined ? undefined : url(section.explorerUrl, 'explorerUrl'),
    evidenceRetentionDays: retentionDays(section.evidenceRetentionDays),
  };
}
