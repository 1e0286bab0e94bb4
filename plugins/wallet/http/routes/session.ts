import { createHash, timingSafeEqual } from 'node:crypto';
import { HttpProblem, validation } from '../../../common/http/problems.js';
import { Reply } from '../../../common/http/router.js';
import { onlyFields, onlyQuery, optionalString, requiredString } from '../../../common/http/validate.js';
import { keyReplaced, type KeyRevocations } from '../../users/key-revocations.js';
import type { WalletSessions } from '../../users/sessions.js';
import type { UserStore } from '../../users/store.js';
import type { LoginLimit } from '../login-limit.js';
import type { WalletRouter } from '../router.js';
import { refuseSecretParams, refuseSecrets } from '../secrets.js';

/**
 * The OIDC handoff and logout (seed 001 B).
 *
 * `POST /v1/auth/session` is server to server: the front end that signed the user in with OIDC
 * hands over `{sub, email}` with `X-Internal-Secret`. The secret is compared in constant time
 * (SHA-256 of both sides, then timingSafeEqual, so not even the length leaks). No secret
 * configured: 503; no header: 401 Problem; a wrong one: 403 Problem (the seed's bare 401 is only
 * for sessions). It answers exactly the seed's bodies: `{needsOnboarding: true}` with an
 * onboarding session cookie when no wallet is linked to `sub` (register with that cookie links the
 * new wallet), else `{id, did, needsOnboarding: false}` with the user's session cookie. A wallet
 * whose key a recovery replaced is 403 `KEY_REPLACED_BY_RECOVERY`: it signs in again by proving
 * the DID's new key, not through the handoff.
 *
 * `POST /v1/auth/logout` needs no session: it ends the cookie's session if there is one, clears
 * the cookie, and answers 204 either way.
 */

export interface SessionDeps {
  users: UserStore;
  sessions: WalletSessions;
  revocations: Pick<KeyRevocations, 'find'>;
  /** `plugins.wallet.internalSecret`; undefined: the handoff answers 503 */
  internalSecret: string | undefined;
  /** counts wrong or missing secrets only */
  limit: LoginLimit;
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,253}$/;

export function mountSession(router: WalletRouter, deps: SessionDeps): void {
  const { users, sessions, revocations, limit } = deps;
  const expected = deps.internalSecret === undefined ? undefined : digest(deps.internalSecret);

  router.add('POST', '/v1/auth/session', 'none', async (req) => {
    limit.check(req.ctx);
    if (expected === undefined) throw new HttpProblem('not-configured', 'the OIDC handoff is not configured: set plugins.wallet.internalSecret', { code: 'NOT_CONFIGURED' });
    const header = req.ctx.req.headers['x-internal-secret'];
    if (typeof header !== 'string' || header === '') {
      limit.hit(req.ctx);
      throw new HttpProblem('unauthorized', 'this route needs the X-Internal-Secret header', { code: 'SECRET_MISSING' });
    }
    if (!timingSafeEqual(digest(header), expected)) {
      limit.hit(req.ctx);
      throw new HttpProblem('forbidden', 'the X-Internal-Secret is wrong', { code: 'SECRET_WRONG' });
    }
    refuseSecretParams(req.query);
    onlyQuery(req.query, []);
    const body = await req.body();
    refuseSecrets(body);
    onlyFields(body, ['sub', 'email']);
    const sub = requiredString(body, 'sub', { max: 255 });
    const given = optionalString(body, 'email', { max: 320 });
    if (given !== undefined && !EMAIL.test(given)) throw validation('email must be an email address', 'email');
    const email = given?.toLowerCase() ?? null;
    const linked = await users.bySub(sub);
    if (!linked) {
      const { cookie } = await sessions.start(req.ctx, { oidc: { sub, email } });
      return new Reply(200, { needsOnboarding: true }, { 'set-cookie': cookie });
    }
    const revoked = await revocations.find(linked.did, linked.publicKey);
    if (revoked) throw keyReplaced(revoked);
    // the identity provider's email is the current one
    const user = email !== null && email !== linked.email ? await users.update(linked.id, (u) => ({ ...u, email })) : linked;
    const { cookie } = await sessions.start(req.ctx, { userId: user.id, publicKey: user.publicKey });
    return new Reply(200, { id: user.id, did: user.did, needsOnboarding: false }, { 'set-cookie': cookie });
  });

  router.add('POST', '/v1/auth/logout', 'none', async (req) => {
    const cookie = await sessions.end(req.ctx);
    return new Reply(204, null, { 'set-cookie': cookie });
  });
}

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();
