import type { HttpServer, RequestContext } from '../../../node/http/server.js';
import type { Logger } from '../../../node/logging.js';
import { HttpProblem } from '../../common/http/problems.js';
import { RestRouter, type Authenticator, type RestRequest } from '../../common/http/router.js';
import { marketFailure } from '../market/errors.js';

/**
 * The wallet surface's router (seed 001 B, "Errors"): Problem Details with type
 * `<errorsBase>/<status>`, except a missing or expired session, which is 401 `{error: "Unauthorized"}`
 * (with `code` and `detail` when the session was revoked).
 */

/** the largest JSON body a wallet route reads (413 above): a signed transaction is at most 16 KB */
export const MAX_JSON_BODY = 64 * 1024;

/** `none`: no credential; `session`: the `ledger_wallet_session` cookie of a registered user */
export type WalletLevel = 'none' | 'session';

export interface WalletCaller {
  userId: string;
  did: string;
  /** the user's registered signing key, hex */
  publicKey: string;
  /** its ledger account */
  address: string;
  sessionId: string;
}

/** Thrown by the authenticator: answered as the seed's bare 401, not as a Problem. */
export class SessionRequired extends Error {
  override readonly name = 'SessionRequired';
  constructor(
    readonly clearCookie?: string,
    /** why a session that was live is refused now */
    readonly revoked?: { code: string; detail: string },
  ) {
    super('Unauthorized');
  }
}

export type WalletRequest<L extends WalletLevel = WalletLevel> = RestRequest<L extends 'none' ? null : WalletCaller>;

export class WalletRouter extends RestRouter<WalletLevel, WalletCaller> {
  override problem(ctx: RequestContext, err: unknown): void {
    if (err instanceof SessionRequired) {
      ctx.json(401, { error: 'Unauthorized', ...err.revoked }, err.clearCookie ? { 'set-cookie': err.clearCookie } : {});
      return;
    }
    // an upstream's failure is a 502 or a 503 Problem, as the market part decided
    const market = marketFailure(err);
    super.problem(ctx, market ? new HttpProblem(market.slug, market.detail, { code: market.code, status: market.status }) : err);
  }
}

export function createWalletRouter(http: Pick<HttpServer, 'route'>, auth: Authenticator<WalletLevel, WalletCaller>, opts: { errorsBase: string; log: Logger }): WalletRouter {
  return new WalletRouter(http, auth, { errorsBase: opts.errorsBase, typeBy: 'status', realm: 'wallet', maxBodyBytes: MAX_JSON_BODY, log: opts.log, tenantOf: (c) => c.userId });
}
