import { Throttle, type ThrottleRule } from '../../common/http/throttle.js';

export { Throttle, type ThrottleRule };

/**
 * Sliding-window failure counters, in memory. Login brute force is limited per account email
 * and per remote address:
 *
 *   - 5 failed logins for one email in 15 minutes lock that email's logins (password or TOTP
 *     code) until the oldest failure leaves the window: a guessing attack gets 20 tries an hour.
 *     Someone can lock a victim out this way, for 15 minutes at most; that is the usual price.
 *   - 20 failures from one address in 15 minutes lock that address, so one client cannot spray
 *     many emails. Higher than per email, as offices share an address behind NAT.
 *
 * A success clears the email's counter, not the address's. The remote address is the socket's
 * (a proxy in front must be trusted explicitly; none is). The counters do not survive a restart,
 * which costs an attacker a node restart per 5 guesses.
 */

export const LOGIN_PER_EMAIL: ThrottleRule = { max: 5, windowMs: 15 * 60_000 };
export const LOGIN_PER_ADDRESS: ThrottleRule = { max: 20, windowMs: 15 * 60_000 };
/** reset mails per email: more are dropped silently (the answer stays the same), so nobody can mail-bomb an inbox */
export const RESET_MAILS_PER_EMAIL: ThrottleRule = { max: 3, windowMs: 60 * 60_000 };

/** The login rules together: `check` before verifying, `fail` on a wrong password or code, `succeed` after. */
export class LoginThrottle {
  private readonly byEmail: Throttle;
  private readonly byAddress: Throttle;

  constructor(now: () => number = Date.now, rules: { email?: ThrottleRule; address?: ThrottleRule } = {}) {
    this.byEmail = new Throttle(rules.email ?? LOGIN_PER_EMAIL, now);
    this.byAddress = new Throttle(rules.address ?? LOGIN_PER_ADDRESS, now);
  }

  /** Seconds to wait and why, or undefined when the attempt may go ahead. */
  check(email: string, address: string): { retryAfter: number; by: 'email' | 'address' } | undefined {
    const a = this.byAddress.retryAfter(address);
    if (a > 0) return { retryAfter: a, by: 'address' };
    const e = this.byEmail.retryAfter(email);
    if (e > 0) return { retryAfter: e, by: 'email' };
    return undefined;
  }

  fail(email: string, address: string): void {
    this.byEmail.hit(email);
    this.byAddress.hit(address);
  }

  succeed(email: string): void {
    this.byEmail.clear(email);
  }
}
