import { LedgerError, invalid } from '../../../node/errors.js';
import { Core, MAX_TIME, Tx, int, join, part, parts, under } from './level-core.js';
import { MediationCache, copyEntry, copyMediation } from './level-mediation-cache.js';
import { MEDIATION_STATES, type KeylistEntry, type Mediation, type MediationRepo } from './types.js';

/**
 * Mediations and keylists (key layout in level-core.ts). One mediation per recipient DID: `put`
 * points `medDid/<recipientDid>` at the mediation last written for that DID. A key is in at most
 * one keylist; `updateKeys` refuses (KEY_IN_OTHER_KEYLIST) a key routed by another mediation
 * rather than silently moving it. `get`, `byRecipient` and `byKey` are served from a cache that
 * every write here updates (level-mediation-cache.ts); the writes themselves read LevelDB.
 */
export class LevelMediationRepo implements MediationRepo {
  private readonly cache: MediationCache;

  constructor(
    private readonly c: Core,
    cacheLimit?: number,
  ) {
    this.cache = new MediationCache(cacheLimit);
  }

  async get(id: string): Promise<Mediation | undefined> {
    const m = await this.mediation(part('id', id));
    return m ? copyMediation(m) : undefined;
  }

  async byRecipient(recipientDid: string): Promise<Mediation | undefined> {
    const did = part('recipientDid', recipientDid);
    const id = await this.cache.read(this.cache.did, did, () => this.c.s.medDid.get(did));
    const m = id === null ? null : await this.mediation(id);
    return m ? copyMediation(m) : undefined;
  }

  /** the cached record itself: callers outside this class get a copy */
  private mediation(id: string): Promise<Mediation | null> {
    return this.cache.read(this.cache.med, id, () => this.c.s.med.get(id));
  }

  /** Writes `tx` and applies it to the cache, under the write lock (call it inside `write`). */
  private async commit(tx: Tx): Promise<void> {
    try {
      await this.c.commit(tx);
    } catch (err) {
      this.cache.drop();
      throw err;
    }
    this.cache.applied(tx, this.c.s);
  }

  async list(tenantId: string): Promise<Mediation[]> {
    const keys = await this.c.s.medTenant.keys(under(part('tenantId', tenantId))).all();
    const records = await this.c.s.med.getMany(keys.map((k) => k.slice(tenantId.length + 1)));
    return records.filter((m): m is Mediation => m !== undefined);
  }

  async put(m: Mediation): Promise<void> {
    const id = part('id', m.id);
    const tenantId = part('tenantId', m.tenantId);
    const did = part('recipientDid', m.recipientDid);
    if (!MEDIATION_STATES.includes(m.state)) throw invalid('RELAY_BAD_STATE', `a mediation's state is one of ${MEDIATION_STATES.join(', ')}`);
    const { s } = this.c;
    return this.c.write(async () => {
      const old = await s.med.get(id);
      const tx = new Tx();
      if (old && old.recipientDid !== did && (await s.medDid.get(old.recipientDid)) === id) tx.del(s.medDid, old.recipientDid);
      if (old && old.tenantId !== tenantId) tx.del(s.medTenant, join(old.tenantId, id));
      tx.put(s.med, id, { ...m });
      tx.put(s.medDid, did, id);
      tx.put(s.medTenant, join(tenantId, id), '');
      await this.commit(tx);
    });
  }

  async byKey(key: string): Promise<KeylistEntry | undefined> {
    const k = part('key', key);
    const entry = await this.cache.read(this.cache.key, k, () => this.c.s.key.get(k));
    return entry ? copyEntry(entry) : undefined;
  }

  async keylist(mediationId: string, opts: { offset?: number; limit?: number } = {}): Promise<{ keys: KeylistEntry[]; total: number }> {
    part('mediationId', mediationId);
    const offset = int('offset', opts.offset ?? 0);
    const limit = opts.limit === undefined ? Infinity : int('limit', opts.limit);
    const keys: KeylistEntry[] = [];
    if (limit > 0) {
      let skipped = 0;
      for await (const entry of this.c.s.mk.values(under(mediationId))) {
        if (skipped++ < offset) continue;
        keys.push(entry);
        if (keys.length >= limit) break;
      }
    }
    return { keys, total: (await this.c.s.kn.get(mediationId)) ?? 0 };
  }

  /** A key both added and removed stays (the add wins). Adding a key already in this keylist keeps its `addedAt`. */
  async updateKeys(mediationId: string, add: readonly string[], remove: readonly string[], at: number): Promise<void> {
    part('mediationId', mediationId);
    const adds = parts('key', add);
    const removes = parts('key', remove).filter((k) => !adds.includes(k));
    int('at', at, MAX_TIME);
    const { s } = this.c;
    return this.c.write(async () => {
      const current = await s.key.getMany([...adds, ...removes]);
      const tx = new Tx();
      adds.forEach((key, j) => {
        const entry = current[j];
        if (entry?.mediationId === mediationId) return;
        if (entry) throw new LedgerError('KEY_IN_OTHER_KEYLIST', `${key} is in another mediation's keylist`, 'conflict', { key });
        const added: KeylistEntry = { key, mediationId, addedAt: at };
        tx.put(s.key, key, added);
        tx.put(s.mk, join(mediationId, key), added);
        tx.add(s.kn, mediationId, 1);
      });
      removes.forEach((key, j) => {
        if (current[adds.length + j]?.mediationId !== mediationId) return;
        tx.del(s.key, key);
        tx.del(s.mk, join(mediationId, key));
        tx.add(s.kn, mediationId, -1);
      });
      await this.commit(tx);
    });
  }
}
