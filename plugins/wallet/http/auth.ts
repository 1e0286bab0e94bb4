import type { RequestContext } from '../../../node/http/server.js';
import type { Authenticator } from '../../common/http/router.js';
import type { WalletSessions } from '../users/sessions.js';
import type { UserStore } from '../users/store.js';
import { SessionRequired, type WalletCaller, type WalletLevel } from './router.js';

/**
 * The `session` level: the cookie's session must be live and belong to a registered user (an
 * onboarding session, from the OIDC handoff before registration, reaches only register). A
 * renewed JWT is set on the response here, before the handler answers.
 */
export class WalletAuthenticator implements Authenticator<WalletLevel, WalletCaller> {
  constructor(private readonly d: { sessions: WalletSessions; users: Pick<UserStore, 'get'> }) {}

  async require(ctx: RequestContext): Promise<WalletCaller> {
    const found = await this.d.sessions.resolve(ctx);
    if (!found || found.session.userId === null) throw new SessionRequired();
    const user = await this.d.users.get(found.session.userId);
    if (!user) throw new SessionRequired();
    if (found.renewed) ctx.res.setHeader('set-cookie', found.renewed);
    return { userId: user.id, did: user.did, publicKey: user.publicKey, address: user.address, sessionId: found.session.id };
  }
}
