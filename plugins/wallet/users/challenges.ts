import { randomBytes } from 'node:crypto';
import { invalid } from '../../../node/errors.js';
import { KeyedSerial } from '../../common/http/router.js';
import type { PluginDb, Table } from '../../common/store/tables.js';

/**
 * Single-use sign-in challenges for importing a DID (`GET /v1/users/challenge?did=`): the text
 * `ledger-wallet-login:<did>:<32 random bytes hex>`, which the DID's key signs. Each lives
 * 5 minutes and is stored (table `challenges`, by its text), so a restart keeps the ones issued.
 * Taking one deletes it, one take at a time, so exactly one register call can ever spend it,
 * whatever that call's outcome; the expired ones are swept at most once a minute, on issue.
 */

export const CHALLENGE_TTL_MS = 5 * 60_000;
export const CHALLENGE_PREFIX = 'ledger-wallet-login';
const SWEEP_EVERY_MS = 60_000;
/** the longest challenge text accepted back: the prefix, a DID (≤ 128) and the nonce */
export const MAX_CHALLENGE_LENGTH = CHALLENGE_PREFIX.length + 1 + 128 + 1 + 64;

interface StoredChallenge {
  did: string;
  expiresAt: number;
  createdAt: number;
}

export interface IssuedChallenge {
  challenge: string;
  /** ISO time */
  expiresAt: string;
}

export class ChallengeStore {
  private readonly table: Table<StoredChallenge>;
  private readonly serial = new KeyedSerial();
  private lastSweep = 0;

  constructor(
    private readonly db: PluginDb,
    private readonly now: () => number = Date.now,
  ) {
    this.table = db.json<StoredChallenge>('challenges');
  }

  async issue(did: string): Promise<IssuedChallenge> {
    const now = this.now();
    if (now - this.lastSweep >= SWEEP_EVERY_MS) {
      this.lastSweep = now;
      await this.sweep();
    }
    const challenge = `${CHALLENGE_PREFIX}:${did}:${randomBytes(32).toString('hex')}`;
    const expiresAt = now + CHALLENGE_TTL_MS;
    await this.table.put(challenge, { did, expiresAt, createdAt: now });
    return { challenge, expiresAt: new Date(expiresAt).toISOString() };
  }

  /**
   * Spends `challenge` for `did`: it is deleted now, and a 400 says why it cannot be used when it
   * is unknown (never issued, or already used), expired, or issued for another DID.
   */
  take(challenge: string, did: string): Promise<void> {
    return this.serial.run('take', async () => {
      const found = challenge.length <= MAX_CHALLENGE_LENGTH ? await this.table.get(challenge) : undefined;
      if (!found) throw invalid('CHALLENGE_UNKNOWN', 'the challenge is unknown or already used; get a new one from GET /v1/users/challenge', { field: 'proof' });
      await this.table.del(challenge);
      if (found.expiresAt <= this.now()) throw invalid('CHALLENGE_EXPIRED', 'the challenge has expired (challenges live 5 minutes); get a new one', { field: 'proof' });
      if (found.did !== did) throw invalid('CHALLENGE_OTHER_DID', `the challenge was issued for ${found.did}, not ${did}`, { field: 'proof' });
    });
  }

  /** Deletes the expired challenges; how many. */
  async sweep(): Promise<number> {
    const now = this.now();
    const batch = this.db.batch();
    for await (const [k, c] of this.table.entries()) if (c.expiresAt <= now) batch.del(this.table, k);
    await batch.write();
    return batch.size;
  }
}
