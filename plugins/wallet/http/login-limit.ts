import type { RequestContext } from '../../../node/http/server.js';
import { HttpProblem } from '../../common/http/problems.js';
import { Throttle, type ThrottleRule } from '../../common/http/throttle.js';

/**
 * The login-like routes' rate limit, per remote address (in memory; a restart forgets it):
 * register and challenge count every request, `POST /v1/auth/session` only its wrong or missing
 * secrets (its caller is one server, the OIDC front end, which must not be throttled for its
 * users' sign-ins). Past the limit: a 429 Problem with Retry-After. The remote address is the
 * socket's, or, with `session.trustProxy`, the last X-Forwarded-For hop (the address the
 * trusted proxy saw).
 */

export const LOGIN_LIKE_PER_ADDRESS: ThrottleRule = { max: 30, windowMs: 60_000 };

export class LoginLimit {
  private readonly throttle: Throttle;

  constructor(
    private readonly o: { rule?: ThrottleRule; trustProxy: boolean; now?: () => number },
  ) {
    this.throttle = new Throttle(o.rule ?? LOGIN_LIKE_PER_ADDRESS, o.now);
  }

  /** 429 when `ctx`'s address is over the limit. */
  check(ctx: RequestContext): void {
    const wait = this.throttle.retryAfter(this.remote(ctx));
    if (wait > 0) throw new HttpProblem('rate-limited', `too many attempts from this address; try again in ${wait} s`, { headers: { 'retry-after': String(wait) }, code: 'RATE_LIMITED' });
  }

  hit(ctx: RequestContext): void {
    this.throttle.hit(this.remote(ctx));
  }

  /** check, then count this request */
  take(ctx: RequestContext): void {
    this.check(ctx);
    this.hit(ctx);
  }

  remote(ctx: RequestContext): string {
    return remoteAddress(ctx, this.o.trustProxy);
  }
}

/** The socket's address, or with `trustProxy` the last X-Forwarded-For hop (the address the trusted proxy saw). */
export function remoteAddress(ctx: RequestContext, trustProxy: boolean): string {
  if (trustProxy) {
    const header = ctx.req.headers['x-forwarded-for'];
    const hops = (Array.isArray(header) ? header.join(',') : header ?? '').split(',').map((h) => h.trim()).filter(Boolean);
    if (hops.length > 0) return hops[hops.length - 1]!.slice(0, 64);
  }
  return ctx.req.socket.remoteAddress ?? 'unknown';
}
