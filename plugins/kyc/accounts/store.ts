import { randomBytes } from 'node:crypto';
import { key, prefix, timeKey, type PluginDb, type Table } from '../../common/store/tables.js';
import type { ApiKeyRecord, Organization, User } from '../types.js';

/**
 * The accounts part's tables (all prefixed `acct-`):
 *
 *   acct-users        userId -> UserRow (the public User plus password hash and TOTP state)
 *   acct-orgs         organizationId -> Organization
 *   acct-email        lowercased email -> userId (unique: one account per email)
 *   acct-identities   issuer SEP sub -> userId (provider logins; never matched by email)
 *   acct-keys         organizationId SEP keyId -> ApiKeyRecord
 *   acct-key-hash     SHA-256 of an API key (hex) -> {organizationId, keyId}
 *   acct-reset        SHA-256 of a reset token (hex) -> ResetRow
 *   acct-totp-used    userId -> the last TOTP time step accepted (replay guard)
 *   acct-oidc-state   state -> OidcStateRow; a state starts with its creation time, so stale rows are a key range
 */

export interface UserRow extends User {
  /** Argon2id PHC string; null for an account made by a provider login (until a password reset) */
  passwordHash: string | null;
  /** ms; JWTs issued before it are refused (a reset ends every session) */
  passwordChangedAt: number | null;
  /** the enabled TOTP secret (base32) */
  totpSecret: string | null;
  /** the secret of the last setup, waiting for a code to enable it */
  totpPending: string | null;
}

export interface ResetRow {
  userId: string;
  createdAt: number;
  expiresAt: number;
}

export interface OidcStateRow {
  provider: string;
  codeVerifier: string;
  nonce: string;
  redirectUrl: string | null;
  expiresAt: number;
}

export interface KeyIndexRow {
  organizationId: string;
  keyId: string;
}

export const newId = (kind: 'usr' | 'org' | 'key'): string => `${kind}_${randomBytes(12).toString('hex')}`;

export const normalEmail = (email: string): string => email.trim().toLowerCase();

export class AccountStore {
  readonly users: Table<UserRow>;
  readonly orgs: Table<Organization>;
  readonly email: Table<string>;
  readonly identities: Table<string>;
  readonly keys: Table<ApiKeyRecord>;
  readonly keyHash: Table<KeyIndexRow>;
  readonly reset: Table<ResetRow>;
  readonly totpUsed: Table<number>;
  readonly oidcState: Table<OidcStateRow>;

  constructor(readonly db: PluginDb) {
    this.users = db.json('acct-users');
    this.orgs = db.json('acct-orgs');
    this.email = db.json('acct-email');
    this.identities = db.json('acct-identities');
    this.keys = db.json('acct-keys');
    this.keyHash = db.json('acct-key-hash');
    this.reset = db.json('acct-reset');
    this.totpUsed = db.json('acct-totp-used');
    this.oidcState = db.json('acct-oidc-state');
  }

  async userByEmail(email: string): Promise<UserRow | undefined> {
    const id = await this.email.get(normalEmail(email));
    return id === undefined ? undefined : this.users.get(id);
  }

  /** A new user and its organization, with the email index (when `claimEmail`) and identity link, in one batch. */
  async createAccount(user: UserRow, org: Organization, opts: { claimEmail: boolean; identity?: { issuer: string; sub: string } }): Promise<void> {
    const b = this.db.batch().put(this.users, user.id, user).put(this.orgs, org.id, org);
    if (opts.claimEmail) b.put(this.email, normalEmail(user.email), user.id);
    if (opts.identity) b.put(this.identities, key(opts.identity.issuer, opts.identity.sub), user.id);
    await b.write();
  }

  identity(issuer: string, sub: string): Promise<string | undefined> {
    return this.identities.get(key(issuer, sub));
  }

  async keysOf(organizationId: string): Promise<ApiKeyRecord[]> {
    const out: ApiKeyRecord[] = [];
    for await (const [, v] of this.keys.entries(prefix(organizationId))) out.push(v);
    return out;
  }

  apiKey(organizationId: string, keyId: string): Promise<ApiKeyRecord | undefined> {
    return this.keys.get(key(organizationId, keyId));
  }

  async putApiKey(record: ApiKeyRecord): Promise<void> {
    await this.db.batch().put(this.keys, key(record.organizationId, record.id), record).put(this.keyHash, record.hash, { organizationId: record.organizationId, keyId: record.id }).write();
  }

  async deleteApiKey(record: ApiKeyRecord): Promise<void> {
    await this.db.batch().del(this.keys, key(record.organizationId, record.id)).del(this.keyHash, record.hash).write();
  }

  /** A login state whose key sorts by creation time: `<13-digit ms>.<random>` (opaque to the provider). */
  newState(nowMs: number): string {
    return `${timeKey(nowMs)}.${randomBytes(24).toString('base64url')}`;
  }

  /** Deletes login states made before `beforeMs` (abandoned logins). */
  async pruneStates(beforeMs: number): Promise<void> {
    const b = this.db.batch();
    for await (const k of this.oidcState.keys({ lt: timeKey(beforeMs) })) b.del(this.oidcState, k);
    await b.write();
  }
}
