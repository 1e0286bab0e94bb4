import { LedgerError, invalid } from '../../../node/errors.js';
import { Core, MAX_TIME, Tx, int, join, part, parts, under } from './level-core.js';
import { MEDIATION_STATES, type KeylistEntry, type Mediation, type MediationRepo } from './types.js';

/**
 * Mediations and keylists (key layout in level-core.ts). One mediation per recipient DID: `put`
 * points `medDid/<recipientDid>` at the mediation last written for that DID. A key is in at most
 * one keylist; `updateKeys` refuses (KEY_IN_OTHER_KEYLIST) a key routed by another mediation
 * rather than silently moving it.
 */
export class LevelMediationRepo implements MediationRepo {
  constructor(private readonly c: Core) {}

  async get(id: string): Promise<Mediation | undefined> {
    return this.c.s.med.get(part('id', id));
  }

  async byRecipient(recipientDid: string): Promise<Mediation | undefined> {
    const id = await this.c.s.medDid.get(part('recipientDid', recipientDid));
    return id === undefined ? undefined : this.c.s.med.get(id);
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
      await this.c.commit(tx);
    });
  }

  async byKey(key: string): Promise<KeylistEntry | undefined> {
    return this.c.s.key.get(part('key', key));
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
      await this.c.commit(tx);
    });
  }
}
