import { loadOrCreateSecret, SessionTokens } from '../../common/auth/session-token.js';
import type { Mailer } from '../../common/mail/index.js';
import type { KycBase } from '../services.js';
import { ApiKeyService } from './api-keys.js';
import { ProviderLogins } from './provider-login.js';
import { ResetTokens } from './reset.js';
import { AccountService } from './service.js';
import { AccountStore } from './store.js';

/** The accounts part: users and organizations, TOTP, password resets, provider logins, API keys. */

export const JWT_ISSUER = 'ledger-kyc';
export const JWT_AUDIENCE = 'kyc';
/** the key of the JWT secret in the plugin's namespace (outside the tables) */
export const JWT_SECRET_KEY = 'acct-session-secret';

export interface Accounts {
  accounts: AccountService;
  apiKeys: ApiKeyService;
  providers: ProviderLogins;
  tokens: SessionTokens;
  store: AccountStore;
}

export async function createAccounts(base: Pick<KycBase, 'config' | 'db' | 'log' | 'now' | 'publicUrl'>, mailer: Mailer): Promise<Accounts> {
  const secret = await loadOrCreateSecret(base.db.root, JWT_SECRET_KEY);
  const tokens = new SessionTokens({ secret, issuer: JWT_ISSUER, audience: JWT_AUDIENCE, ttl: base.config.jwtTtl });
  const store = new AccountStore(base.db);
  const now = () => base.now();
  const publicUrl = () => base.publicUrl();
  const accounts = new AccountService({ store, tokens, resets: new ResetTokens(store, now), mailer, log: base.log, now, publicUrl, totpIssuer: base.config.issuer.name });
  const apiKeys = new ApiKeyService(store, base.log, now);
  const providers = new ProviderLogins({ providers: base.config.providers, store, publicUrl, loginRedirectUrl: base.config.loginRedirectUrl, log: base.log, now });
  return { accounts, apiKeys, providers, tokens, store };
}

export { ACCOUNT_ERRORS, type AccountErrorCode } from './errors.js';
export { ApiKeyService, KEY_PREFIX, LAST_USED_GRANULARITY_MS, MAX_KEYS, publicApiKey, type ApiKeyCaller, type PublicApiKey } from './api-keys.js';
export { AccountService, DEFAULT_PLAN, FORGOT_MESSAGE, publicUser, type Session } from './service.js';
export { LOGIN_STATE_TTL_MS, ProviderLogins, type ProviderIdentity } from './provider-login.js';
export { RESET_TTL_MS } from './reset.js';
export { AccountStore } from './store.js';
export { LOGIN_PER_ADDRESS, LOGIN_PER_EMAIL, LoginThrottle } from './throttle.js';
