import { HttpProblem } from '../../common/http/problems.js';
import type { KeyedSerial } from '../../common/http/router.js';
import type { Mailer } from '../../common/mail/index.js';
import type { Logger } from '../../../node/logging.js';
import type { Role } from '../types.js';
import { ACCOUNT_ERRORS, accountProblem, accountUnauthorized } from './errors.js';
import { INVITATION_TTL_MS, publicInvitation, type Invitations, type PublicInvitation } from './invitations.js';
import { normalEmail, type AccountStore, type UserRow } from './store.js';

/**
 * The team of an organization: its members and their roles, and the invitations that bring new
 * ones. Who may call what is the routes' business (http/roles.ts `CAN.administer`); the rules
 * about owners are kept here, where the owners are counted: only an owner makes, changes or
 * removes an owner, and the last owner is neither demoted nor removed.
 */

export interface Member {
  id: string;
  email: string;
  name: string;
  role: Role;
  totpEnabled: boolean;
  createdAt: string;
}

/** the member acting: its id and role */
export interface Actor {
  organizationId: string;
  userId: string;
  role: Role;
}

export interface TeamOptions {
  store: AccountStore;
  invitations: Invitations;
  mailer: Mailer;
  log: Logger;
  /** the accounts part's serial: a role written here and a TOTP step written there do not overwrite each other */
  serial: KeyedSerial;
  publicUrl: () => string;
}

const roleOfRow = (u: UserRow): Role => u.role ?? 'owner';
export const publicMember = (u: UserRow): Member => ({ id: u.id, email: u.email, name: u.name, role: roleOfRow(u), totpEnabled: u.totpSecret !== null, createdAt: u.createdAt });

const forbidden = (detail: string) => accountProblem('forbidden', ACCOUNT_ERRORS.ROLE_FORBIDDEN, detail);

export class TeamService {
  constructor(private readonly o: TeamOptions) {}

  async list(organizationId: string): Promise<{ members: Member[]; invitations: PublicInvitation[] }> {
    const members = (await this.o.store.membersOf(organizationId)).map(publicMember).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    return { members, invitations: (await this.o.invitations.pending(organizationId)).map(publicInvitation) };
  }

  /** Records the invitation and mails its link; when the mail cannot be sent, the invitation is withdrawn. */
  async invite(actor: Actor, emailInput: string, role: Role): Promise<PublicInvitation> {
    if (role === 'owner' && actor.role !== 'owner') throw forbidden('only an owner can invite an owner');
    const email = normalEmail(emailInput);
    const holder = await this.o.store.userByEmail(email);
    if (holder) {
      const detail = holder.organizationId === actor.organizationId ? 'this address is already a member of the organization' : 'an account with this address already exists; an account belongs to one organization';
      throw accountProblem('conflict', ACCOUNT_ERRORS.EMAIL_TAKEN, detail, { field: 'email' });
    }
    const { token, invitation } = await this.o.invitations.create(actor.organizationId, email, role, actor.userId);
    try {
      await this.mail(invitation.email, role, actor, token);
    } catch (err) {
      await this.o.invitations.revoke(actor.organizationId, invitation.id);
      this.o.log.error({ err, organizationId: actor.organizationId }, 'invitation mail failed');
      throw new HttpProblem('bad-gateway', 'the invitation mail could not be sent, so no invitation was made; try again later', { code: ACCOUNT_ERRORS.INVITATION_MAIL_FAILED });
    }
    this.o.log.info({ organizationId: actor.organizationId, invitation: invitation.id, role, by: actor.userId }, 'member invited');
    return publicInvitation(invitation);
  }

  async revokeInvitation(organizationId: string, id: string): Promise<void> {
    if (!(await this.o.invitations.revoke(organizationId, id))) {
      throw accountProblem('not-found', ACCOUNT_ERRORS.INVITATION_NOT_FOUND, `no invitation ${id.slice(0, 60)} in this organization`);
    }
  }

  async changeRole(actor: Actor, userId: string, role: Role): Promise<Member> {
    return this.o.serial.run(`team:${actor.organizationId}`, async () => {
      const { target, owners, actorRole } = await this.target(actor, userId, 'change the role of');
      if (role === 'owner' && actorRole !== 'owner') throw forbidden('only an owner can make another member an owner');
      if (roleOfRow(target) === 'owner' && role !== 'owner' && owners === 1) throw lastOwner('demoted');
      const updated = await this.o.serial.run(`user:${userId}`, async () => {
        const fresh = await this.o.store.users.get(userId);
        if (!fresh) throw notMember(userId);
        const next = { ...fresh, role };
        await this.o.store.users.put(userId, next);
        return next;
      });
      this.o.log.info({ organizationId: actor.organizationId, user: userId, role, by: actor.userId }, 'member role changed');
      return publicMember(updated);
    });
  }

  async remove(actor: Actor, userId: string): Promise<void> {
    await this.o.serial.run(`team:${actor.organizationId}`, async () => {
      const { target, owners } = await this.target(actor, userId, 'remove');
      if (roleOfRow(target) === 'owner' && owners === 1) throw lastOwner('removed');
      await this.o.serial.run(`user:${userId}`, () => this.o.store.deleteUser(target));
      this.o.log.info({ organizationId: actor.organizationId, user: userId, by: actor.userId }, 'member removed');
    });
  }

  /**
   * The member `userId` of the actor's organization, how many owners it has, and the actor's role
   * as it is now (a change that ran just before this one may have changed it).
   */
  private async target(actor: Actor, userId: string, action: string): Promise<{ target: UserRow; owners: number; actorRole: Role }> {
    const members = await this.o.store.membersOf(actor.organizationId);
    const me = members.find((m) => m.id === actor.userId);
    if (!me) throw accountUnauthorized(ACCOUNT_ERRORS.ACCOUNT_GONE, 'the account of this token no longer exists');
    const actorRole = roleOfRow(me);
    if (actorRole !== 'owner' && actorRole !== 'admin') throw forbidden(`your role (${actorRole}) cannot ${action} a member`);
    const target = members.find((m) => m.id === userId);
    if (!target) throw notMember(userId);
    if (roleOfRow(target) === 'owner' && actorRole !== 'owner') throw forbidden(`only an owner can ${action} an owner`);
    return { target, owners: members.filter((m) => roleOfRow(m) === 'owner').length, actorRole };
  }

  private async mail(to: string, role: Role, actor: Actor, token: string): Promise<void> {
    const [org, inviter] = await Promise.all([this.o.store.orgs.get(actor.organizationId), this.o.store.users.get(actor.userId)]);
    const orgName = org?.name ?? 'an organization';
    const link = `${this.o.publicUrl()}/dashboard/#/accept?token=${encodeURIComponent(token)}`;
    const days = INVITATION_TTL_MS / 86_400_000;
    await this.o.mailer.send({
      to,
      subject: `You are invited to ${orgName}`.slice(0, 200),
      text: `${inviter?.name ?? 'A member'} invited you (${to}) to join ${orgName} on the KYC dashboard, as ${role}.\n\nTo accept, open this link within ${days} days and choose your name and password:\n${link}\n\nThe link works once. If you did not expect this, ignore this mail.\n`,
    });
  }
}

const notMember = (userId: string) => accountProblem('not-found', ACCOUNT_ERRORS.MEMBER_NOT_FOUND, `no member ${userId.slice(0, 60)} in this organization`);
const lastOwner = (what: string) => accountProblem('conflict', ACCOUNT_ERRORS.LAST_OWNER, `the last owner of the organization cannot be ${what}; make another member an owner first`);
