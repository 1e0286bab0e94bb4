import { LedgerError } from '../../../node/errors.js';
import { KeyedSerial } from '../../common/http/router.js';
import { HttpProblem, validation } from '../../common/http/problems.js';
import { Throttle, type ThrottleRule } from '../../common/http/throttle.js';
import { DID_PATTERN, onlyFields, optionalString, requiredString } from '../../common/http/validate.js';
import type { Mailer } from '../../common/mail/index.js';
import type { WalletCaller } from '../http/router.js';
import type { WalletBase } from '../services.js';
import type { User } from '../types.js';
import type { UserStore } from '../users/store.js';
import { activeDid, forbidden } from './policy.js';
import { GUARDIAN_ID_PATTERN, newGuardianId, newInviteToken, tokenHash, type GuardianRecord, type GuardianStore } from './store.js';

/**
 * Guardian invites: an owner names a guardian by DID or by email and gets a one-time token; the
 * guardian, signed in, confirms with it and becomes active with its own DID. Only the token's
 * hash is stored. The store's guardians are the candidates for the on-chain policy: naming or
 * removing one here changes nothing on chain until the owner sends a SetRecoveryPolicy.
 */

/** live (invited or active) guardians and invites one owner may have; the chain takes 10 guardians */
export const MAX_LIVE_GUARDIANS = 20;
/** invite mails one owner may send an hour, so invites cannot be used to flood inboxes */
export const INVITE_MAILS_PER_OWNER: ThrottleRule = { max: 20, windowMs: 60 * 60_000 };

const EMAIL = /^[^\s@<>(),;:"\\]{1,64}@[^\s@<>(),;:"\\]{1,189}$/;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export interface InviteInput {
  guardianDid: string | null;
  guardianEmail: string | null;
  guardianName: string | null;
}

/** A guardian as its owner sees it; `expired` is an invite past its time, never confirmed. */
export interface GuardianView {
  id: string;
  guardianDid: string | null;
  guardianEmail: string | null;
  guardianName: string | null;
  status: 'invited' | 'active' | 'expired';
  invitedAt: string;
  acceptedAt: string | null;
  expiresAt: string;
}

/** An invite as the invitee sees it (no token: the owner hands that over). */
export interface PendingInviteView {
  id: string;
  ownerDid: string;
  ownerName: string | null;
  guardianName: string | null;
  /** how the invite names the caller */
  invitedBy: 'did' | 'email';
  invitedAt: string;
  expiresAt: string;
}

export interface InviteAnswer extends GuardianView {
  /** the one-time token the guardian confirms with; shown only here */
  token: string;
  /** for an email invite: whether the mail went out (smtp) or into the outbox, or why not */
  mail: { sent: true; via: 'smtp' | 'outbox' } | { sent: false; error: string } | null;
}

export interface InviteDeps {
  base: Pick<WalletBase, 'config' | 'chain' | 'network' | 'chainId' | 'now' | 'publicUrl' | 'log'>;
  store: GuardianStore;
  users: Pick<UserStore, 'get'>;
  mailer: Pick<Mailer, 'send'>;
}

export function parseInvite(body: Record<string, unknown>): InviteInput {
  onlyFields(body, ['guardianDid', 'guardianEmail', 'guardianName']);
  const guardianDid = optionalString(body, 'guardianDid', { max: 128, pattern: DID_PATTERN, patternText: 'a DID (did:ledger:<network>:<id>)' }) ?? null;
  const email = optionalString(body, 'guardianEmail', { max: 254, pattern: EMAIL, patternText: 'an email address' });
  const guardianName = optionalString(body, 'guardianName', { max: 100 }) ?? null;
  if (guardianDid === null && email === undefined) throw validation('an invite needs guardianDid or guardianEmail (or both)', 'guardianDid');
  return { guardianDid, guardianEmail: email === undefined ? null : email.toLowerCase(), guardianName: guardianName?.trim() ?? null };
}

export function parseToken(body: Record<string, unknown>): string {
  onlyFields(body, ['token']);
  return requiredString(body, 'token', { max: 43, pattern: TOKEN, patternText: 'the invite token (43 base64url characters)' });
}

export function parseGuardianId(id: string): string {
  if (!GUARDIAN_ID_PATTERN.test(id)) throw validation(`a guardian id is gdn_ followed by 24 hex characters, got ${JSON.stringify(id.slice(0, 40))}`, 'guardianId');
  return id;
}

export class GuardianInvites {
  private readonly serial = new KeyedSerial();
  private readonly mails: Throttle;

  constructor(private readonly d: InviteDeps) {
    this.mails = new Throttle(INVITE_MAILS_PER_OWNER, d.base.now);
  }

  async invite(caller: WalletCaller, input: InviteInput): Promise<InviteAnswer> {
    const owner = await this.owner(caller);
    if (input.guardianDid === caller.did) throw validation('you cannot be your own guardian', 'guardianDid');
    if (input.guardianEmail !== null && input.guardianEmail === owner.email?.toLowerCase()) throw validation('you cannot be your own guardian', 'guardianEmail');
    // a guardian in a policy must be an active DID of this chain: say so now, not at SetRecoveryPolicy
    if (input.guardianDid !== null) await activeDid(this.d.base, input.guardianDid, 'guardianDid');
    if (input.guardianEmail !== null) {
      const wait = this.mails.retryAfter(caller.userId);
      if (wait > 0) throw new HttpProblem('rate-limited', `at most ${INVITE_MAILS_PER_OWNER.max} invite mails an hour; try again in ${wait} s`, { headers: { 'retry-after': String(wait) } });
    }
    const { record, token } = await this.serial.run(caller.userId, async () => {
      const now = this.d.base.now();
      const live = (await this.d.store.ofOwner(caller.userId)).filter((g) => this.live(g, now));
      if (live.length >= MAX_LIVE_GUARDIANS) throw conflict('TOO_MANY_GUARDIANS', `you have ${live.length} guardians and open invites; remove one first (at most ${MAX_LIVE_GUARDIANS})`);
      if (input.guardianDid !== null && live.some((g) => g.guardianDid === input.guardianDid)) throw conflict('GUARDIAN_EXISTS', `${input.guardianDid} is already your guardian or has an open invite`);
      if (input.guardianEmail !== null && live.some((g) => g.guardianEmail === input.guardianEmail)) throw conflict('GUARDIAN_EXISTS', `${input.guardianEmail} already has an open invite or is your guardian`);
      const token = newInviteToken();
      const record: GuardianRecord = {
        id: newGuardianId(),
        ownerUserId: caller.userId,
        ownerDid: caller.did,
        guardianDid: input.guardianDid,
        guardianEmail: input.guardianEmail,
        guardianName: input.guardianName,
        status: 'invited',
        tokenHash: tokenHash(token),
        invitedAt: iso(now),
        acceptedAt: null,
        expiresAt: iso(now + this.d.base.config.inviteTtlSeconds * 1000),
      };
      return { record: await this.d.store.create(record), token };
    });
    const mail = record.guardianEmail === null ? null : await this.mail(owner, record, token);
    return { ...this.view(record), token, mail };
  }

  /** The signed-in caller accepts the invite of `token` and becomes that owner's guardian, with its DID. */
  async confirm(caller: WalletCaller, token: string): Promise<GuardianView & { ownerDid: string }> {
    const found = await this.d.store.byTokenHash(tokenHash(token));
    if (!found) throw validation('this invite token is unknown or was already used', 'token');
    return this.serial.run(found.ownerUserId, async () => {
      const g = await this.d.store.get(found.id);
      const now = this.d.base.now();
      if (!g || g.status !== 'invited' || g.tokenHash !== tokenHash(token)) throw validation('this invite token is unknown or was already used', 'token');
      if (Date.parse(g.expiresAt) <= now) throw validation(`this invite expired at ${g.expiresAt}; ask for a new one`, 'token');
      if (g.ownerUserId === caller.userId || g.ownerDid === caller.did) throw validation('you cannot be your own guardian', 'token');
      if (g.guardianDid !== null && g.guardianDid !== caller.did) throw forbidden(`this invite is for ${g.guardianDid}; sign in with that DID to accept it`, 'NOT_THE_INVITEE');
      await activeDid(this.d.base, caller.did, 'did').catch((err: unknown) => {
        if (err instanceof LedgerError) throw conflict('GUARDIAN_DID_NOT_ACTIVE', `a guardian must be an active DID on chain: ${err.message}`);
        throw err;
      });
      const others = (await this.d.store.ofOwner(g.ownerUserId)).filter((o) => o.id !== g.id && o.status === 'active' && o.guardianDid === caller.did);
      if (others.length > 0) throw conflict('GUARDIAN_EXISTS', 'you are already a guardian of this wallet');
      const done = await this.d.store.update(g.id, (r) => ({ ...r, status: 'active', guardianDid: caller.did, acceptedAt: iso(now) }));
      return { ...this.view(done), ownerDid: done.ownerDid };
    });
  }

  /** Removes one of the caller's guardians or invites; another's (or an unknown id) is 404. */
  async remove(caller: WalletCaller, id: string): Promise<{ id: string; status: 'removed' }> {
    return this.serial.run(caller.userId, async () => {
      const g = await this.d.store.get(id);
      if (!g || g.ownerUserId !== caller.userId || g.status === 'removed') throw new LedgerError('GUARDIAN_NOT_FOUND', `you have no guardian ${id}`, 'not_found');
      await this.d.store.update(id, (r) => ({ ...r, status: 'removed' }));
      return { id, status: 'removed' };
    });
  }

  async myGuardians(caller: WalletCaller): Promise<GuardianView[]> {
    return (await this.d.store.ofOwner(caller.userId)).map((g) => this.view(g));
  }

  /** Open invites naming the caller: by its DID, or by its email when the wallet has one. */
  async pendingInvites(caller: WalletCaller): Promise<PendingInviteView[]> {
    const me = await this.owner(caller);
    const now = this.d.base.now();
    const byDid = await this.d.store.forDid(caller.did);
    const byEmail = me.email ? await this.d.store.forEmail(me.email) : [];
    const seen = new Set<string>();
    const out: PendingInviteView[] = [];
    for (const [g, invitedBy] of [...byDid.map((g) => [g, 'did'] as const), ...byEmail.map((g) => [g, 'email'] as const)]) {
      if (seen.has(g.id) || g.status !== 'invited' || Date.parse(g.expiresAt) <= now || g.ownerUserId === caller.userId) continue;
      // an email invite that names another DID is not the caller's to take
      if (invitedBy === 'email' && g.guardianDid !== null && g.guardianDid !== caller.did) continue;
      seen.add(g.id);
      const owner = await this.d.users.get(g.ownerUserId);
      out.push({ id: g.id, ownerDid: g.ownerDid, ownerName: owner?.displayName ?? owner?.handle ?? null, guardianName: g.guardianName, invitedBy, invitedAt: g.invitedAt, expiresAt: g.expiresAt });
    }
    return out;
  }

  private view(g: GuardianRecord): GuardianView {
    const expired = g.status === 'invited' && Date.parse(g.expiresAt) <= this.d.base.now();
    return {
      id: g.id,
      guardianDid: g.guardianDid,
      guardianEmail: g.guardianEmail,
      guardianName: g.guardianName,
      status: expired ? 'expired' : (g.status as 'invited' | 'active'),
      invitedAt: g.invitedAt,
      acceptedAt: g.acceptedAt,
      expiresAt: g.expiresAt,
    };
  }

  private live(g: GuardianRecord, now: number): boolean {
    return g.status === 'active' || (g.status === 'invited' && Date.parse(g.expiresAt) > now);
  }

  private async owner(caller: WalletCaller): Promise<User> {
    const user = await this.d.users.get(caller.userId);
    if (!user) throw new LedgerError('USER_NOT_FOUND', 'your wallet user no longer exists', 'not_found');
    return user;
  }

  /** A mail failure does not undo the invite: the owner has the token and can pass it on. */
  private async mail(owner: User, g: GuardianRecord, token: string): Promise<InviteAnswer['mail']> {
    this.mails.hit(owner.id);
    const who = owner.displayName ?? owner.handle ?? owner.did;
    const confirm = `${this.d.base.publicUrl()}/v1/guardian/confirm`;
    try {
      const sent = await this.d.mailer.send({
        to: g.guardianEmail!,
        subject: `${who.slice(0, 100)} asks you to be a wallet guardian`,
        text:
          `${who} (${owner.did}) asks you to be a guardian of their Ledger wallet.\n\n` +
          'A guardian helps the owner back into the wallet after a lost device: you would approve the recovery with your own wallet\'s key. You never hold their funds or keys.\n\n' +
          `To accept, sign in to your wallet app and enter this invite code:\n\n${token}\n\n` +
          `(Wallet apps confirm it with POST ${confirm} and the body {"token": "${token}"}, with your wallet session.)\n\n` +
          `The code works once, until ${g.expiresAt}. If you do not know the sender, ignore this mail.\n`,
      });
      return { sent: true, via: sent.via };
    } catch (err) {
      this.d.base.log.warn({ err, guardian: g.id }, 'guardian invite mail failed');
      return { sent: false, error: err instanceof LedgerError ? err.message : 'the mail could not be sent' };
    }
  }
}

function conflict(code: string, message: string): LedgerError {
  return new LedgerError(code, message, 'conflict');
}

const iso = (ms: number): string => new Date(ms).toISOString();
