import { loadOrCreateSecret, SessionTokens } from '../../common/auth/session-token.js';
import { KeyedSerial } from '../../common/http/router.js';
import type { Mailer } from '../../common/mail/index.js';
import type { KycBase } from '../services.js';
import { ApiKeyService } from './api-keys.js';
import { Invitations } from './invitations.js';
import { ProviderLogins } from './provider-login.js';
import { ResetTokens } from './reset.js';
import { AccountService } from './service.js';
import { AccountStore } from './store.js';
import { TeamService } from './team.js';

/** The accounts part: users, organizations and their teams, TOTP, password resets, provider logins, API keys. */

export const JWT_ISSUER = 'ledger-kyc';
export const JWT_AUDIENCE = 'kyc';
/** the key of the JWT secret in the plugin's namespace (outside the tables) */
export const JWT_SECRET_KEY = 'acct-session-secret';

export interface Accounts {
  accounts: AccountService;
  apiKeys: ApiKeyService;
  team: TeamService;
  providers: ProviderLogins;
  tokens: SessionTokens;
  store: AccountStore;
}

export async function createAccounts(base: Pick<KycBase, 'config' | 'db' | 'log' | 'now' | 'publicUrl'>, mailer: Mailer): Promise<Accounts> {
  const secret = await loadOrCreateSecret(base.db.root, JWT_SECRET_KEY);
  const tokens = new SessionTokens({ secret, issuer: JWT_ISSUER, audience: JWT_AUDIENCE, ttl: base.config.jwtTtl });
  const store = new AccountStore(base.db);
  await store.indexMembers();
  const now = () => base.now();
  const publicUrl = () => base.publicUrl();
  const serial = new KeyedSerial();
  const invitations = new Invitations(store, now);
  const accounts = new AccountService({ store, tokens, resets: new ResetTokens(store, now), invitations, mailer, log: base.log, now, publicUrl, totpIssuer: base.config.issuer.name, serial });
  const team = new TeamService({ store, invitations, mailer, log: base.log, serial, publicUrl });
  const apiKeys = new ApiKeyService(store, base.log, now);
  const providers = new ProviderLogins({ providers: base.config.providers, store, publicUrl, loginRedirectUrl: base.config.loginRedirectUrl, log: base.log, now });
  return { accounts, apiKeys, team, providers, tokens, store };
}

export { ACCOUNT_ERRORS, type AccountErrorCode } from './errors.js';
export { ApiKeyService, KEY_PREFIX, LAST_USED_GRANULARITY_MS, MAX_KEYS, publicApiKey, type ApiKeyCaller, type PublicApiKey } from './api-keys.js';
export { AccountService, DEFAULT_PLAN, FORGOT_MESSAGE, publicUser, type Session } from './service.js';
export { LOGIN_STATE_TTL_MS, ProviderLogins, type ProviderIdentity } from './provider-login.js';
export { RESET_TTL_MS } from './reset.js';
export { INVITATION_TTL_MS, MAX_PENDING_INVITATIONS, publicInvitation, type PublicInvitation } from './invitations.js';
export { publicMember, TeamService, type Actor, type Member } from './team.js';
export { AccountStore } from './store.js';
export { LOGIN_PER_ADDRESS, LOGIN_PER_EMAIL, LoginThrottle } from './throttle.js';
