import type { SessionClaims, SessionTokens } from '../../common/auth/session-token.js';
import { validation } from '../../common/http/problems.js';
import { KeyedSerial } from '../../common/http/router.js';
import type { Mailer } from '../../common/mail/index.js';
import type { Logger } from '../../../node/logging.js';
import type { OrganizationDirectory } from '../services.js';
import type { Organization, Role, User } from '../types.js';
import { ACCOUNT_ERRORS, accountProblem, accountUnauthorized } from './errors.js';
import { burnVerification, hashPassword, verifyPassword } from './passwords.js';
import { applyBranding, type BrandingPatch } from './branding.js';
import type { Invitations } from './invitations.js';
import type { ProviderIdentity } from './provider-login.js';
import type { ResetTokens } from './reset.js';
import { newId, normalEmail, type AccountStore, type UserRow } from './store.js';
import { LoginThrottle, RESET_MAILS_PER_EMAIL, Throttle } from './throttle.js';
import { checkTotp, isTotpSecret, newTotp } from './totp.js';

/**
 * Accounts (seed "User", "Organization", the /auth routes): registration makes a user and its
 * organization; login answers a JWT, or `{totpRequired: true}` while a TOTP code is missing;
 * password resets go by mail. Every account owns one organization.
 *
 * A new organization's `plan` is `free`: the seed leaves plans open and nothing here bills; the
 * field exists so a billing part can raise it later.
 */

export const DEFAULT_PLAN = 'free';
export const FORGOT_MESSAGE = 'If an account exists for that email, a password reset link has been sent to it.';

export interface AccountServiceOptions {
  store: AccountStore;
  tokens: SessionTokens;
  resets: ResetTokens;
  invitations: Invitations;
  mailer: Mailer;
  log: Logger;
  now: () => number;
  /** the service's public base URL, for the reset link */
  publicUrl: () => string;
  /** the TOTP issuer shown in authenticator apps */
  totpIssuer: string;
  throttle?: LoginThrottle;
  /** shared with the team service, which writes roles */
  serial?: KeyedSerial;
}

export interface Session {
  token: string;
  user: User;
}

/** `role` always shown: a row made before roles existed is its organization's owner */
export const publicUser = (u: UserRow): User & { role: Role } => ({ id: u.id, email: u.email, name: u.name, organizationId: u.organizationId, role: u.role ?? 'owner', createdAt: u.createdAt });

export class AccountService implements OrganizationDirectory {
  readonly throttle: LoginThrottle;
  private readonly resetMails: Throttle;
  /** email claims and per-user read-modify-writes (TOTP steps, password, role) run one at a time */
  private readonly serial: KeyedSerial;
  /** reset mails on their way: the route answers before SMTP does, so its timing says nothing */
  private readonly sending = new Set<Promise<void>>();

  constructor(private readonly o: AccountServiceOptions) {
    this.throttle = o.throttle ?? new LoginThrottle(o.now);
    this.serial = o.serial ?? new KeyedSerial();
    this.resetMails = new Throttle(RESET_MAILS_PER_EMAIL, o.now);
  }

  /** The organization as stored, `branding` included (the hosted page colours itself with it). */
  organization(id: string): Promise<Organization | undefined> {
    return this.o.store.orgs.get(id);
  }

  async updateOrganization(id: string, patch: { name?: string; branding?: BrandingPatch }): Promise<Organization> {
    return this.serial.run(`org:${id}`, async () => {
      const org = await this.o.store.orgs.get(id);
      if (!org) throw accountUnauthorized(ACCOUNT_ERRORS.ACCOUNT_GONE, 'the organization of this account no longer exists');
      const { branding: _old, ...rest } = org;
      const branding = patch.branding === undefined ? org.branding : applyBranding(org.branding, patch.branding);
      const next: Organization = { ...rest, ...(patch.name === undefined ? {} : { name: patch.name }), ...(branding === undefined ? {} : { branding }) };
      await this.o.store.orgs.put(id, next);
      this.o.log.info({ organizationId: id, fields: Object.keys(patch) }, 'organization updated');
      return next;
    });
  }

  async register(input: { email: string; password: string; name: string; organizationName?: string }): Promise<Session> {
    const email = normalEmail(input.email);
    const passwordHash = await hashPassword(input.password);
    return this.serial.run(`email:${email}`, async () => {
      if ((await this.o.store.email.get(email)) !== undefined) {
        throw accountProblem('conflict', ACCOUNT_ERRORS.EMAIL_TAKEN, 'an account with this email already exists; log in, or reset the password', { field: 'email' });
      }
      const { user, org } = this.newAccount(email, input.name, input.organizationName, passwordHash);
      await this.o.store.createAccount(user, org, { claimEmail: true });
      this.o.log.info({ user: user.id, organizationId: org.id }, 'account registered');
      return this.session(user);
    });
  }

  /** The account of an invitation, in the inviting organization with the invited role and address. */
  async acceptInvitation(token: string, input: { name: string; password: string }): Promise<Session> {
    return this.o.invitations.redeem(token, async (invitation) => {
      // hashed once the token is known good: a wrong token costs no Argon2 run
      const passwordHash = await hashPassword(input.password);
      return this.serial.run(`email:${invitation.email}`, async () => {
        if ((await this.o.store.email.get(invitation.email)) !== undefined) {
          throw accountProblem('conflict', ACCOUNT_ERRORS.EMAIL_TAKEN, 'an account with the invited address already exists; log in with it, or ask for an invitation to another address');
        }
        if (!(await this.o.store.orgs.get(invitation.organizationId))) {
          throw accountProblem('validation', ACCOUNT_ERRORS.INVITATION_INVALID, 'the organization of this invitation no longer exists', { field: 'token' });
        }
        const user: UserRow = {
          ...this.newAccount(invitation.email, input.name, undefined, passwordHash).user,
          organizationId: invitation.organizationId,
          role: invitation.role,
        };
        await this.o.store.joinOrganization(user, invitation);
        this.o.log.info({ user: user.id, organizationId: user.organizationId, role: user.role, invitation: invitation.id }, 'invitation accepted');
        return this.session(user);
      });
    });
  }

  /** `{totpRequired: true}` when the password is right and TOTP is on but no code was sent. */
  async login(input: { email: string; password: string; totpCode?: string }, address: string): Promise<Session | { totpRequired: true }> {
    const email = normalEmail(input.email);
    const locked = this.throttle.check(email, address);
    if (locked) {
      throw accountProblem('rate-limited', ACCOUNT_ERRORS.LOGIN_THROTTLED, `too many failed logins ${locked.by === 'email' ? 'for this account' : 'from this address'}; try again in ${locked.retryAfter} s`, {
        headers: { 'retry-after': String(locked.retryAfter) },
      });
    }
    const user = await this.o.store.userByEmail(email);
    const ok = user?.passwordHash ? await verifyPassword(user.passwordHash, input.password) : (await burnVerification(input.password), false);
    if (!user || !ok) {
      this.throttle.fail(email, address);
      throw accountUnauthorized(ACCOUNT_ERRORS.INVALID_CREDENTIALS, 'wrong email or password');
    }
    if (user.totpSecret !== null) {
      if (input.totpCode === undefined) return { totpRequired: true };
      const accepted = await this.useTotp(user.id, user.totpSecret, input.totpCode);
      if (!accepted.ok) {
        this.throttle.fail(email, address);
        throw accepted.why === 'replayed'
          ? accountUnauthorized(ACCOUNT_ERRORS.TOTP_REPLAYED, 'this TOTP code was already used; wait for the next one')
          : accountUnauthorized(ACCOUNT_ERRORS.TOTP_INVALID, 'the TOTP code is wrong or expired');
      }
    }
    this.throttle.succeed(email);
    return this.session(user);
  }

  async me(userId: string): Promise<{ user: User; organization: Organization }> {
    const user = await this.user(userId);
    const organization = await this.o.store.orgs.get(user.organizationId);
    if (!organization) throw accountUnauthorized(ACCOUNT_ERRORS.ACCOUNT_GONE, 'the organization of this account no longer exists');
    return { user: publicUser(user), organization };
  }

  /** A fresh secret and its QR code; it takes effect only once enabled with a code of it. */
  async totpSetup(userId: string): Promise<{ secret: string; qrCode: string }> {
    return this.serial.run(`user:${userId}`, async () => {
      const user = await this.user(userId);
      // replacing an enabled secret would let a stolen JWT take over the second factor
      if (user.totpSecret !== null) throw accountProblem('conflict', ACCOUNT_ERRORS.TOTP_ALREADY_ENABLED, 'TOTP is already enabled on this account');
      const setup = await newTotp(this.o.totpIssuer, user.email || user.id);
      await this.o.store.users.put(user.id, { ...user, totpPending: setup.secret });
      return { secret: setup.secret, qrCode: setup.qrCode };
    });
  }

  async totpEnable(userId: string, secret: string, code: string): Promise<void> {
    if (!isTotpSecret(secret)) throw validation('secret must be the base32 secret returned by POST /v1/auth/totp/setup', 'secret');
    const user = await this.user(userId);
    if (user.totpSecret !== null) throw accountProblem('conflict', ACCOUNT_ERRORS.TOTP_ALREADY_ENABLED, 'TOTP is already enabled on this account');
    if (user.totpPending === null) throw accountProblem('conflict', ACCOUNT_ERRORS.TOTP_NOT_SET_UP, 'call POST /v1/auth/totp/setup first');
    if (user.totpPending !== secret) throw accountProblem('validation', ACCOUNT_ERRORS.TOTP_SECRET_MISMATCH, 'secret is not the one of the last setup of this account', { field: 'secret' });
    // the code that enables TOTP is spent too: it cannot be replayed to log in
    const accepted = await this.useTotp(userId, secret, code);
    if (!accepted.ok) throw accountProblem('validation', ACCOUNT_ERRORS.TOTP_INVALID, accepted.why === 'replayed' ? 'this TOTP code was already used; wait for the next one' : 'the TOTP code is wrong or expired', { field: 'totpCode' });
    await this.serial.run(`user:${userId}`, async () => {
      const fresh = await this.user(userId);
      // the organization row is also written by updateOrganization
      await this.serial.run(`org:${fresh.organizationId}`, async () => {
        const org = await this.o.store.orgs.get(fresh.organizationId);
        const b = this.o.store.db.batch().put(this.o.store.users, fresh.id, { ...fresh, totpSecret: secret, totpPending: null });
        if (org) b.put(this.o.store.orgs, org.id, { ...org, totpEnabled: true });
        await b.write();
      });
    });
    this.o.log.info({ user: userId }, 'TOTP enabled');
  }

  /** Always the same answer; the mail (if any) goes out in the background. */
  async forgotPassword(emailInput: string): Promise<{ message: string }> {
    const email = normalEmail(emailInput);
    const user = await this.o.store.userByEmail(email);
    if (user && this.resetMails.retryAfter(email) === 0) {
      this.resetMails.hit(email);
      const job = this.mailReset(user).catch((err: unknown) => this.o.log.error({ err, user: user.id }, 'password reset mail failed'));
      this.sending.add(job);
      void job.finally(() => this.sending.delete(job));
    }
    return { message: FORGOT_MESSAGE };
  }

  async resetPassword(token: string, password: string): Promise<{ message: string }> {
    const userId = await this.o.resets.consume(token);
    const passwordHash = await hashPassword(password);
    await this.serial.run(`user:${userId}`, async () => {
      const user = await this.o.store.users.get(userId);
      if (!user) throw accountProblem('validation', ACCOUNT_ERRORS.RESET_TOKEN_INVALID, 'the account of this reset token no longer exists', { field: 'token' });
      await this.o.store.users.put(userId, { ...user, passwordHash, passwordChangedAt: this.o.now() });
      this.throttle.succeed(normalEmail(user.email));
    });
    this.o.log.info({ user: userId }, 'password reset');
    return { message: 'The password has been reset; log in with the new password.' };
  }

  /** The account of a provider identity (by issuer and sub), made with a new organization on first login. */
  async providerLogin(id: ProviderIdentity): Promise<Session> {
    return this.serial.run(`identity:${id.issuer}`, async () => {
      const existing = await this.o.store.identity(id.issuer, id.sub);
      if (existing !== undefined) return this.session(await this.user(existing));
      const email = id.email === undefined ? '' : normalEmail(id.email);
      // the email index only for a verified address nobody holds: no account is ever taken over by email
      const claimEmail = email !== '' && id.emailVerified === true && (await this.o.store.email.get(email)) === undefined;
      const name = id.name?.trim() || email.split('@')[0] || 'User';
      const { user, org } = this.newAccount(email, name.slice(0, 100), undefined, null);
      await this.o.store.createAccount(user, org, { claimEmail, identity: { issuer: id.issuer, sub: id.sub } });
      this.o.log.info({ user: user.id, organizationId: org.id, provider: id.provider }, 'account made by a provider login');
      return this.session(user);
    });
  }

  /** Checks a verified JWT against the account: gone, or issued before the last password change, is refused. */
  async checkSession(claims: SessionClaims): Promise<UserRow> {
    const user = await this.o.store.users.get(claims.sub);
    if (!user || user.organizationId !== claims.tenantId) throw accountUnauthorized(ACCOUNT_ERRORS.ACCOUNT_GONE, 'the account of this token no longer exists');
    if (user.passwordChangedAt !== null && claims.iat < Math.floor(user.passwordChangedAt / 1000)) {
      throw accountUnauthorized(ACCOUNT_ERRORS.SESSION_REVOKED, 'the password was changed after this token was issued; log in again');
    }
    return user;
  }

  /** Waits for the reset mails on their way (stop, tests). */
  async drain(): Promise<void> {
    while (this.sending.size > 0) await Promise.allSettled([...this.sending]);
  }

  private async mailReset(user: UserRow): Promise<void> {
    const { token } = await this.o.resets.create(user.id);
    const link = `${this.o.publicUrl()}/v1/auth/reset-password?token=${encodeURIComponent(token)}`;
    await this.o.mailer.send({
      to: user.email,
      subject: 'Reset your password',
      text: `Someone asked to reset the password of your account (${user.email}).\n\nTo choose a new password, open this link within one hour:\n${link}\n\nThe link works once. If you did not ask for this, ignore this mail: your password stays as it is.\n`,
    });
  }

  private async useTotp(userId: string, secret: string, code: string) {
    return this.serial.run(`totp:${userId}`, async () => {
      const result = checkTotp(secret, code, this.o.now(), await this.o.store.totpUsed.get(userId));
      if (result.ok) await this.o.store.totpUsed.put(userId, result.step);
      return result;
    });
  }

  private newAccount(email: string, name: string, organizationName: string | undefined, passwordHash: string | null): { user: UserRow; org: Organization } {
    const createdAt = new Date(this.o.now()).toISOString();
    const org: Organization = { id: newId('org'), name: organizationName ?? `${name}'s organization`, email, plan: DEFAULT_PLAN, totpEnabled: false, createdAt };
    const user: UserRow = { id: newId('usr'), email, name, organizationId: org.id, role: 'owner', createdAt, passwordHash, passwordChangedAt: null, totpSecret: null, totpPending: null };
    return { user, org };
  }

  private async user(id: string): Promise<UserRow> {
    const user = await this.o.store.users.get(id);
    if (!user) throw accountUnauthorized(ACCOUNT_ERRORS.ACCOUNT_GONE, 'the account of this token no longer exists');
    return user;
  }

  private async session(user: UserRow): Promise<Session> {
    const claims = user.email === '' ? { sub: user.id, tenantId: user.organizationId } : { sub: user.id, tenantId: user.organizationId, email: user.email };
    const { token } = await this.o.tokens.issue(claims);
    return { token, user: publicUser(user) };
  }
}
