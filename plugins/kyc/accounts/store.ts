import { randomBytes } from 'node:crypto';
import { key, prefix, timeKey, type PluginDb, type Table } from '../../common/store/tables.js';
import type { ApiKeyRecord, Organization, Role, User } from '../types.js';

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
 *   acct-members      organizationId SEP userId -> userId (the team of an organization)
 *   acct-invites      organizationId SEP invitationId -> InvitationRow
 *   acct-invite-hash  SHA-256 of an invitation token (hex) -> {organizationId, invitationId}
 *   acct-meta         name -> a marker of a one-time step done on this store (`members-indexed`)
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

export interface InvitationRow {
  id: string; // ivt_…
  organizationId: string;
  email: string;
  role: Role;
  /** the id of the member who invited */
  invitedBy: string;
  createdAt: string;
  expiresAt: string;
  /** internal: SHA-256 of the token; the token goes only into the mail */
  hash: string;
}

export interface InvitationIndexRow {
  organizationId: string;
  invitationId: string;
}

export interface KeyIndexRow {
  organizationId: string;
  keyId: string;
}

export const newId = (kind: 'usr' | 'org' | 'key' | 'ivt'): string => `${kind}_${randomBytes(12).toString('hex')}`;

export const normalEmail = (email: string): string => email.trim().toLowerCase();

/** the values of a table keyed organizationId SEP id, in key order */
async function valuesOf<V>(table: Table<V>, organizationId: string): Promise<V[]> {
  const out: V[] = [];
  for await (const [, v] of table.entries(prefix(organizationId))) out.push(v);
  return out;
}

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
  readonly members: Table<string>;
  readonly invites: Table<InvitationRow>;
  readonly inviteHash: Table<InvitationIndexRow>;
  readonly meta: Table<boolean>;

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
    this.members = db.json('acct-members');
    this.invites = db.json('acct-invites');
    this.inviteHash = db.json('acct-invite-hash');
    this.meta = db.json('acct-meta');
  }

  async userByEmail(email: string): Promise<UserRow | undefined> {
    const id = await this.email.get(normalEmail(email));
    return id === undefined ? undefined : this.users.get(id);
  }

  /** A new user and its organization, with the email index (when `claimEmail`) and identity link, in one batch. */
  async createAccount(user: UserRow, org: Organization, opts: { claimEmail: boolean; identity?: { issuer: string; sub: string } }): Promise<void> {
    const b = this.db.batch().put(this.users, user.id, user).put(this.orgs, org.id, org).put(this.members, key(org.id, user.id), user.id);
    if (opts.claimEmail) b.put(this.email, normalEmail(user.email), user.id);
    if (opts.identity) b.put(this.identities, key(opts.identity.issuer, opts.identity.sub), user.id);
    await b.write();
  }

  /** A user who joins an existing organization by an invitation, which is spent in the same batch. */
  async joinOrganization(user: UserRow, invitation: InvitationRow): Promise<void> {
    await this.db
      .batch()
      .put(this.users, user.id, user)
      .put(this.members, key(user.organizationId, user.id), user.id)
      .put(this.email, normalEmail(user.email), user.id)
      .del(this.invites, key(invitation.organizationId, invitation.id))
      .del(this.inviteHash, invitation.hash)
      .write();
  }

  async membersOf(organizationId: string): Promise<UserRow[]> {
    return (await this.users.getMany(await valuesOf(this.members, organizationId))).filter((u): u is UserRow => u !== undefined);
  }

  /** Deletes a user with its indexes (email, identities, team, TOTP replay guard); its JWTs then find no account. */
  async deleteUser(user: UserRow): Promise<void> {
    const b = this.db.batch().del(this.users, user.id).del(this.members, key(user.organizationId, user.id)).del(this.totpUsed, user.id);
    if (user.email !== '' && (await this.email.get(normalEmail(user.email))) === user.id) b.del(this.email, normalEmail(user.email));
    // no reverse index: identities are one per provider login, and removals are rare
    for await (const [k, id] of this.identities.entries()) if (id === user.id) b.del(this.identities, k);
    await b.write();
  }

  /** Indexes the team of accounts made before teams existed (each the only member of its organization); once per store. */
  async indexMembers(): Promise<void> {
    if ((await this.meta.get('members-indexed')) === true) return;
    const b = this.db.batch();
    for await (const [id, u] of this.users.entries()) b.put(this.members, key(u.organizationId, id), id);
    await b.put(this.meta, 'members-indexed', true).write();
  }

  invitationsOf(organizationId: string): Promise<InvitationRow[]> {
    return valuesOf(this.invites, organizationId);
  }

  invitation(organizationId: string, id: string): Promise<InvitationRow | undefined> {
    return this.invites.get(key(organizationId, id));
  }

  async putInvitation(row: InvitationRow): Promise<void> {
    await this.db.batch().put(this.invites, key(row.organizationId, row.id), row).put(this.inviteHash, row.hash, { organizationId: row.organizationId, invitationId: row.id }).write();
  }

  async deleteInvitations(rows: InvitationRow[]): Promise<void> {
    const b = this.db.batch();
    for (const r of rows) b.del(this.invites, key(r.organizationId, r.id)).del(this.inviteHash, r.hash);
    await b.write();
  }

  identity(issuer: string, sub: string): Promise<string | undefined> {
    return this.identities.get(key(issuer, sub));
  }

  keysOf(organizationId: string): Promise<ApiKeyRecord[]> {
    return valuesOf(this.keys, organizationId);
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
