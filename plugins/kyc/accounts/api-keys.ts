import { randomBytes } from 'node:crypto';
import { hashApiKey, looksLikeApiKey, sameHash } from '../../common/auth/api-keys.js';
import { KeyedSerial } from '../../common/http/router.js';
import type { Logger } from '../../../node/logging.js';
import type { ApiKeyMode, ApiKeyRecord } from '../types.js';
import { ACCOUNT_ERRORS, accountProblem, accountUnauthorized } from './errors.js';
import { newId, type AccountStore } from './store.js';

/**
 * API keys (seed "API key"): `sk_live_` or `sk_sandbox_` and 43 base64url characters (32 random
 * bytes), returned once at creation. Only the SHA-256 is stored, with an index from the hash to
 * the key's record, so a request finds its key with one lookup; a fast hash is enough for a
 * 256-bit random key. Deleting a key removes the record and its index entry in one batch: the
 * next request with it is refused.
 */

export const KEY_PREFIX: Record<ApiKeyMode, string> = { live: 'sk_live_', sandbox: 'sk_sandbox_' };
/** keys per organization */
export const MAX_KEYS = 50;
/** lastUsedAt is written at most once per this interval per key */
export const LAST_USED_GRANULARITY_MS = 60_000;
/** random characters shown after the mode prefix, to tell keys apart */
const SHOWN = 6;

export interface PublicApiKey {
  id: string;
  name: string;
  mode: ApiKeyMode;
  prefix: string;
  lastUsedAt: string | null;
  createdAt: string;
}

export interface ApiKeyCaller {
  organizationId: string;
  keyId: string;
  mode: ApiKeyMode;
}

export const publicApiKey = (r: ApiKeyRecord): PublicApiKey => ({ id: r.id, name: r.name, mode: r.mode, prefix: r.prefix, lastUsedAt: r.lastUsedAt, createdAt: r.createdAt });

export class ApiKeyService {
  private readonly serial = new KeyedSerial();
  /** per key id: when lastUsedAt was last written (ms) */
  private readonly touched = new Map<string, number>();

  constructor(
    private readonly store: AccountStore,
    private readonly log: Logger,
    private readonly now: () => number,
  ) {}

  async create(organizationId: string, name: string, mode: ApiKeyMode): Promise<{ key: string; record: ApiKeyRecord }> {
    return this.serial.run(`org:${organizationId}`, async () => {
      const count = (await this.store.keysOf(organizationId)).length;
      if (count >= MAX_KEYS) throw accountProblem('conflict', ACCOUNT_ERRORS.API_KEY_LIMIT, `this organization has ${count} API keys, the most allowed; delete one first`);
      const key = KEY_PREFIX[mode] + randomBytes(32).toString('base64url');
      const record: ApiKeyRecord = {
        id: newId('key'),
        organizationId,
        name,
        mode,
        prefix: `${key.slice(0, KEY_PREFIX[mode].length + SHOWN)}…`,
        lastUsedAt: null,
        createdAt: new Date(this.now()).toISOString(),
        hash: hashApiKey(key),
      };
      await this.store.putApiKey(record);
      this.log.info({ organizationId, key: record.id, mode }, 'API key created');
      return { key, record };
    });
  }

  async list(organizationId: string): Promise<PublicApiKey[]> {
    const keys = await this.store.keysOf(organizationId);
    return keys.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id)).map(publicApiKey);
  }

  async delete(organizationId: string, keyId: string): Promise<void> {
    await this.serial.run(keyId, async () => {
      const record = await this.store.apiKey(organizationId, keyId);
      if (!record) throw accountProblem('not-found', ACCOUNT_ERRORS.API_KEY_NOT_FOUND, `no API key ${keyId.slice(0, 80)} in this organization`);
      await this.store.deleteApiKey(record);
      this.touched.delete(keyId);
      this.log.info({ organizationId, key: keyId }, 'API key deleted');
    });
  }

  /** The organization and mode of `key`, or a 401 Problem; notes the use (lastUsedAt). */
  async authenticate(key: string): Promise<ApiKeyCaller> {
    const mode = key.startsWith(KEY_PREFIX.live) ? 'live' : key.startsWith(KEY_PREFIX.sandbox) ? 'sandbox' : undefined;
    if (mode === undefined || !looksLikeApiKey(key, KEY_PREFIX[mode])) {
      throw accountUnauthorized(ACCOUNT_ERRORS.API_KEY_MALFORMED, 'the API key is malformed: sk_live_ or sk_sandbox_ and 43 base64url characters');
    }
    const hash = hashApiKey(key);
    const target = await this.store.keyHash.get(hash);
    const record = target && (await this.store.apiKey(target.organizationId, target.keyId));
    if (!target || !record || !sameHash(record.hash, hash)) throw accountUnauthorized(ACCOUNT_ERRORS.API_KEY_UNKNOWN, 'unknown API key (it may have been deleted)');
    await this.touch(record);
    return { organizationId: record.organizationId, keyId: record.id, mode: record.mode };
  }

  /** Writes lastUsedAt at most once a minute per key; a key deleted meanwhile stays deleted. */
  private async touch(record: ApiKeyRecord): Promise<void> {
    const now = this.now();
    const last = this.touched.get(record.id) ?? (record.lastUsedAt === null ? undefined : Date.parse(record.lastUsedAt));
    if (last !== undefined && now - last < LAST_USED_GRANULARITY_MS) return;
    this.touched.set(record.id, now);
    if (this.touched.size > 10_000) this.touched.delete(this.touched.keys().next().value!);
    await this.serial.run(record.id, async () => {
      const fresh = await this.store.apiKey(record.organizationId, record.id);
      if (!fresh) return;
      await this.store.putApiKey({ ...fresh, lastUsedAt: new Date(now).toISOString() });
    });
  }
}
