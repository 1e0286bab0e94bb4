import type { RequestContext } from '../../../node/http/server.js';
import type { Authenticator } from '../../common/http/router.js';
import { KEY_REPLACED, type KeyRevocations } from '../users/key-revocations.js';
import type { WalletSessions } from '../users/sessions.js';
import type { UserStore } from '../users/store.js';
import { SessionRequired, type WalletCaller, type WalletLevel } from './router.js';

/**
 * The `session` level: the cookie's session must be live and belong to a registered user (an
 * onboarding session, from the OIDC handoff before registration, reaches only register), and
 * its key must still be the user's and not one a recovery replaced, nor given back since the
 * session began: such a session is 401 `KEY_REPLACED_BY_RECOVERY`, its cookie cleared and not
 * renewed. A renewed JWT is set on the response here, before the handler answers.
 */
export class WalletAuthenticator implements Authenticator<WalletLevel, WalletCaller> {
  constructor(private readonly d: { sessions: WalletSessions; users: Pick<UserStore, 'get'>; revocations: Pick<KeyRevocations, 'refusing'> }) {}

  async require(ctx: RequestContext): Promise<WalletCaller> {
    const found = await this.d.sessions.find(ctx);
    if (!found || found.session.userId === null) throw new SessionRequired();
    const user = await this.d.users.get(found.session.userId);
    if (!user) throw new SessionRequired();
    const key = found.session.publicKey ?? user.publicKey;
    if (key !== user.publicKey || (await this.d.revocations.refusing(user.did, key, found.session.createdAt))) {
      throw new SessionRequired(this.d.sessions.clearing(ctx), { code: KEY_REPLACED, detail: `a recovery replaced the key this session signed in with; ${user.did} signs in afresh with its key on chain` });
    }
    const { session, renewed } = await this.d.sessions.renew(ctx, found);
    if (renewed) ctx.res.setHeader('set-cookie', renewed);
    return { userId: user.id, did: user.did, publicKey: user.publicKey, address: user.address, sessionId: session.id };
  }
}
