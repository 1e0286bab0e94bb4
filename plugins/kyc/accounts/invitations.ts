import { createHash, randomBytes } from 'node:crypto';
import { KeyedSerial } from '../../common/http/router.js';
import type { Role } from '../types.js';
import { ACCOUNT_ERRORS, accountProblem } from './errors.js';
import { newId, normalEmail, type AccountStore, type InvitationRow } from './store.js';

/**
 * Invitations to join an organization: the token (`inv_` and 32 random bytes) goes only into the
 * mail, and only its SHA-256 is stored, as for password resets. A token works once, within
 * INVITATION_TTL_MS; an organization has at most MAX_PENDING_INVITATIONS waiting. Inviting an
 * address again replaces its pending invitation (the older link stops working).
 */

export const INVITATION_TTL_MS = 7 * 24 * 60 * 60_000;
export const MAX_PENDING_INVITATIONS = 50;
const TOKEN = /^inv_[A-Za-z0-9_-]{43}$/;

const digest = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

export type PublicInvitation = Omit<InvitationRow, 'hash' | 'organizationId'>;
export const publicInvitation = ({ hash: _h, organizationId: _o, ...rest }: InvitationRow): PublicInvitation => rest;

export class Invitations {
  private readonly serial = new KeyedSerial();

  constructor(
    private readonly store: AccountStore,
    private readonly now: () => number,
  ) {}

  /** The organization's invitations that can still be accepted, oldest first. */
  async pending(organizationId: string): Promise<InvitationRow[]> {
    const at = this.now();
    return (await this.store.invitationsOf(organizationId)).filter((r) => Date.parse(r.expiresAt) > at).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  async create(organizationId: string, emailInput: string, role: Role, invitedBy: string): Promise<{ token: string; invitation: InvitationRow }> {
    const email = normalEmail(emailInput);
    return this.serial.run(`org:${organizationId}`, async () => {
      const at = this.now();
      const all = await this.store.invitationsOf(organizationId);
      const stale = all.filter((r) => Date.parse(r.expiresAt) <= at || r.email === email);
      if (all.length - stale.length >= MAX_PENDING_INVITATIONS) {
        throw accountProblem('conflict', ACCOUNT_ERRORS.INVITATION_LIMIT, `an organization has at most ${MAX_PENDING_INVITATIONS} pending invitations; delete one first`);
      }
      await this.store.deleteInvitations(stale);
      const token = `inv_${randomBytes(32).toString('base64url')}`;
      const invitation: InvitationRow = {
        id: newId('ivt'),
        organizationId,
        email,
        role,
        invitedBy,
        createdAt: new Date(at).toISOString(),
        expiresAt: new Date(at + INVITATION_TTL_MS).toISOString(),
        hash: digest(token),
      };
      await this.store.putInvitation(invitation);
      return { token, invitation };
    });
  }

  /** false when there is no such invitation in the organization */
  async revoke(organizationId: string, id: string): Promise<boolean> {
    return this.serial.run(`org:${organizationId}`, async () => {
      const row = await this.store.invitation(organizationId, id);
      if (row) await this.store.deleteInvitations([row]);
      return row !== undefined;
    });
  }

  /**
   * Runs `accept` with the invitation of `token`, one at a time per token, so two requests cannot
   * both use it; `accept` spends it (store.joinOrganization). An expired one is deleted and refused.
   */
  redeem<T>(token: string, accept: (invitation: InvitationRow) => Promise<T>): Promise<T> {
    const invalid = () => accountProblem('validation', ACCOUNT_ERRORS.INVITATION_INVALID, 'the invitation is unknown, was already used or was withdrawn; ask for a new one', { field: 'token' });
    if (!TOKEN.test(token)) return Promise.reject(invalid());
    const h = digest(token);
    return this.serial.run(h, async () => {
      const index = await this.store.inviteHash.get(h);
      const row = index && (await this.store.invitation(index.organizationId, index.invitationId));
      if (!row) throw invalid();
      if (Date.parse(row.expiresAt) <= this.now()) {
        await this.store.deleteInvitations([row]);
        throw accountProblem('validation', ACCOUNT_ERRORS.INVITATION_EXPIRED, `the invitation expired at ${row.expiresAt}; ask for a new one`, { field: 'token' });
      }
      return accept(row);
    });
  }
}
