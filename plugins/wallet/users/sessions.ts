import { randomBytes } from 'node:crypto';
import type { RequestContext } from '../../../node/http/server.js';
import { clearCookie, overHttps, readCookie, setCookie } from '../../common/http/cookies.js';
import { loadOrCreateSecret, SessionTokens } from '../../common/auth/session-token.js';
import type { PluginDb, Table } from '../../common/store/tables.js';
import type { BinarySublevel } from '../../../node/state/db.js';
import type { WalletConfig } from '../config.js';
import type { SessionRecord } from '../types.js';

/**
 * Browser sessions: the `ledger_wallet_session` cookie holds a short-lived HS256 JWT (jose) whose
 * `tid` claim names a stored session. The JWT's lifetime is `session.ttl`; once half of it has
 * passed, the next authenticated request gets a fresh cookie, so an active user stays signed in
 * and an idle one is signed out. A session ends for good `session.maxAgeHours` after sign-in, and
 * at logout, which deletes the stored record: a copied JWT then no longer works either. A session
 * belongs to the user's key at sign-in (`publicKey`, signed in with at `createdAt`; a record
 * without a key has the user's): the session check (http/auth.ts) refuses it once a recovery has
 * replaced that key, and for good if the key came back after the session began
 * (key-revocations.ts).
 */

export const SESSION_COOKIE = 'ledger_wallet_session';
const ONBOARDING_SUB = 'onboarding';

export interface ResolvedSession {
  session: SessionRecord;
  /** a Set-Cookie value carrying a renewed JWT, when the old one is past half its life */
  renewed?: string;
}

export class WalletSessions {
  private readonly table: Table<SessionRecord>;

  private constructor(
    private readonly db: PluginDb,
    private readonly tokens: SessionTokens,
    private readonly config: WalletConfig,
    private readonly now: () => number,
  ) {
    this.table = db.json<SessionRecord>('sessions');
  }

  static async create(o: { db: PluginDb; store: BinarySublevel; config: WalletConfig; now: () => number }): Promise<WalletSessions> {
    const tokens = new SessionTokens({ secret: await loadOrCreateSecret(o.store, 'wallet-session-secret'), issuer: 'ledger-wallet', audience: 'ledger-wallet', ttl: o.config.session.ttl });
    return new WalletSessions(o.db, tokens, o.config, o.now);
  }

  get ttlSeconds(): number {
    return this.tokens.ttlSeconds;
  }

  /** Starts a session (for a user and its key, or an onboarding OIDC subject) and answers its Set-Cookie value. */
  async start(ctx: RequestContext, who: { userId: string; publicKey: string } | { oidc: { sub: string; email: string | null } }): Promise<{ session: SessionRecord; cookie: string }> {
    const now = this.now();
    const session: SessionRecord = {
      id: randomBytes(16).toString('base64url'),
      userId: 'userId' in who ? who.userId : null,
      oidc: 'oidc' in who ? who.oidc : null,
      ...('userId' in who ? { publicKey: who.publicKey } : {}),
      createdAt: now,
      expiresAt: this.expiry(now, now),
    };
    await this.table.put(session.id, session);
    return { session, cookie: await this.cookie(ctx, session) };
  }

  /** The request's live session, renewed when due, or undefined (no cookie, a bad or expired JWT, a logged-out session). */
  async resolve(ctx: RequestContext): Promise<ResolvedSession | undefined> {
    const found = await this.find(ctx);
    return found && this.renew(ctx, found);
  }

  /** The request's live session as stored, and whether its JWT is past half its life; nothing is written. */
  async find(ctx: RequestContext): Promise<{ session: SessionRecord; due: boolean } | undefined> {
    const token = readCookie(ctx.req, SESSION_COOKIE);
    if (!token) return undefined;
    let claims;
    try {
      claims = await this.tokens.verify(token);
    } catch {
      return undefined;
    }
    const session = await this.table.get(claims.tenantId);
    const now = this.now();
    if (!session || session.expiresAt <= now) return undefined;
    if (claims.sub !== (session.userId ?? ONBOARDING_SUB)) return undefined;
    return { session, due: (now / 1000) - claims.iat >= this.tokens.ttlSeconds / 2 };
  }

  /** A found session, with a new JWT when its old one is past half its life. */
  async renew(ctx: RequestContext, found: { session: SessionRecord; due: boolean }): Promise<ResolvedSession> {
    if (!found.due) return { session: found.session };
    const renewedSession = { ...found.session, expiresAt: this.expiry(found.session.createdAt, this.now()) };
    await this.table.put(renewedSession.id, renewedSession);
    return { session: renewedSession, renewed: await this.cookie(ctx, renewedSession) };
  }

  /** Links an onboarding session to the wallet just registered (and its key); its new Set-Cookie value. */
  async attach(ctx: RequestContext, session: SessionRecord, userId: string, publicKey: string): Promise<string> {
    // the user signs in now: the key's sign-in time, which the revocation check compares
    const linked = { ...session, userId, oidc: null, publicKey, createdAt: this.now() };
    await this.table.put(session.id, linked);
    return this.cookie(ctx, linked);
  }

  /** Ends the request's session, if any, and answers the Set-Cookie value that clears the cookie. */
  async end(ctx: RequestContext): Promise<string> {
    const found = await this.find(ctx);
    if (found) await this.table.del(found.session.id);
    return this.clearing(ctx);
  }

  /** the Set-Cookie value that clears the session cookie */
  clearing(ctx: RequestContext): string {
    return clearCookie(SESSION_COOKIE, { secure: this.secure(ctx) });
  }

  /** Ends every session of `userId` (its key changed: a lost device must not stay signed in). */
  async endAllOf(userId: string): Promise<number> {
    const batch = this.db.batch();
    for await (const [id, s] of this.table.entries()) if (s.userId === userId) batch.del(this.table, id);
    const n = batch.size;
    await batch.write();
    return n;
  }

  /** Deletes the sessions past their end (a signed-out browser leaves its record behind). */
  async sweep(): Promise<number> {
    const now = this.now();
    const batch = this.db.batch();
    for await (const [id, s] of this.table.entries()) if (s.expiresAt <= now) batch.del(this.table, id);
    const n = batch.size;
    await batch.write();
    return n;
  }

  private async cookie(ctx: RequestContext, session: SessionRecord): Promise<string> {
    const { token } = await this.tokens.issue({ sub: session.userId ?? ONBOARDING_SUB, tenantId: session.id });
    const maxAge = Math.min(this.tokens.ttlSeconds, Math.ceil((session.expiresAt - this.now()) / 1000));
    return setCookie(SESSION_COOKIE, token, { maxAgeSeconds: maxAge, secure: this.secure(ctx) });
  }

  private expiry(createdAt: number, now: number): number {
    return Math.min(now + this.tokens.ttlSeconds * 1000, createdAt + this.config.session.maxAgeHours * 3_600_000);
  }

  /** Secure behind https: a public URL with https, a TLS socket, or a trusted proxy's word. */
  private secure(ctx: RequestContext): boolean {
    return this.config.publicUrl?.startsWith('https:') === true || overHttps(ctx.req, this.config.session.trustProxy);
  }
}
