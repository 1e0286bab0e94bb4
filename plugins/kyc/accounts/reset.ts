import { createHash, randomBytes } from 'node:crypto';
import { KeyedSerial } from '../../common/http/router.js';
import { ACCOUNT_ERRORS, accountProblem } from './errors.js';
import type { AccountStore } from './store.js';

/**
 * Password reset tokens: `rst_` and 32 random bytes, mailed to the account's address. Only the
 * SHA-256 is stored (acct-reset), so a copy of the database cannot reset anyone's password.
 * A token works once, within RESET_TTL_MS of being made.
 */

export const RESET_TTL_MS = 60 * 60_000;
const TOKEN = /^rst_[A-Za-z0-9_-]{43}$/;

const digest = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

export class ResetTokens {
  private readonly serial = new KeyedSerial();

  constructor(
    private readonly store: AccountStore,
    private readonly now: () => number,
  ) {}

  async create(userId: string): Promise<{ token: string; expiresAt: number }> {
    const token = `rst_${randomBytes(32).toString('base64url')}`;
    const at = this.now();
    const expiresAt = at + RESET_TTL_MS;
    await this.store.reset.put(digest(token), { userId, createdAt: at, expiresAt });
    return { token, expiresAt };
  }

  /** The user the token was made for; the token is spent whether or not it was still valid. */
  consume(token: string): Promise<string> {
    const invalid = () => accountProblem('validation', ACCOUNT_ERRORS.RESET_TOKEN_INVALID, 'the reset token is unknown or was already used; ask for a new reset link', { field: 'token' });
    if (!TOKEN.test(token)) return Promise.reject(invalid());
    const h = digest(token);
    // one consumer per token: two requests with the same token cannot both pass
    return this.serial.run(h, async () => {
      const row = await this.store.reset.get(h);
      if (!row) throw invalid();
      await this.store.reset.del(h);
      if (row.expiresAt <= this.now()) {
        throw accountProblem('validation', ACCOUNT_ERRORS.RESET_TOKEN_EXPIRED, `the reset token expired at ${new Date(row.expiresAt).toISOString()}; ask for a new reset link`, { field: 'token' });
      }
      return row.userId;
    });
  }
}
