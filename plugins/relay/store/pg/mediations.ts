import { LedgerError, invalid } from '../../../../node/errors.js';
import { MAX_TIME, int, part, parts } from '../shared.js';
import { MEDIATION_STATES, type KeylistEntry, type Mediation, type MediationRepo, type MediationState } from '../types.js';
import { PgCore, text } from './core.js';

/**
 * Mediations and keylists in Postgres (tables in schema.ts). As in the LevelDB store, a recipient
 * DID resolves to the mediation last written for it, and `updateKeys` refuses a key routed by
 * another mediation (KEY_IN_OTHER_KEYLIST) rather than moving it: the refusal rolls the whole
 * update back. Two instances adding one key to two keylists at once cannot both succeed: the key
 * is the primary key, and the second insert waits for the first and then sees it.
 */

const COLUMNS = 'id, tenant_id, recipient_did, state, reason, gate_policy, gate_state, created_at, updated_at, granted_at';

interface Row {
  id: string;
  tenant_id: string;
  recipient_did: string;
  state: MediationState;
  reason: string | null;
  gate_policy: string | null;
  gate_state: 'pass' | 'blocked' | null;
  created_at: number;
  updated_at: number;
  granted_at: number | null;
}

const mediation = (r: Row): Mediation => ({
  id: r.id,
  tenantId: r.tenant_id,
  recipientDid: r.recipient_did,
  state: r.state,
  reason: r.reason,
  gate: r.gate_policy === null ? null : { policy: r.gate_policy, state: r.gate_state! },
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  grantedAt: r.granted_at,
});

interface KeyRow {
  key: string;
  mediation_id: string;
  added_at: number;
}

const entry = (r: KeyRow): KeylistEntry => ({ key: r.key, mediationId: r.mediation_id, addedAt: r.added_at });

export class PgMediationRepo implements MediationRepo {
  constructor(private readonly c: PgCore) {}

  async get(id: string): Promise<Mediation | undefined> {
    part('id', id);
    const { rows } = await this.c.run(() => this.c.db.query<Row>(`SELECT ${COLUMNS} FROM relay_mediations WHERE id = $1`, [id]));
    return rows[0] && mediation(rows[0]);
  }

  async byRecipient(recipientDid: string): Promise<Mediation | undefined> {
    part('recipientDid', recipientDid);
    const sql = `SELECT ${COLUMNS} FROM relay_mediations WHERE id = (SELECT mediation_id FROM relay_mediation_dids WHERE recipient_did = $1)`;
    const { rows } = await this.c.run(() => this.c.db.query<Row>(sql, [recipientDid]));
    return rows[0] && mediation(rows[0]);
  }

  /** in id order */
  async list(tenantId: string): Promise<Mediation[]> {
    part('tenantId', tenantId);
    const { rows } = await this.c.run(() => this.c.db.query<Row>(`SELECT ${COLUMNS} FROM relay_mediations WHERE tenant_id = $1 ORDER BY id`, [tenantId]));
    return rows.map(mediation);
  }

  async put(m: Mediation): Promise<void> {
    const id = part('id', m.id);
    const tenantId = part('tenantId', m.tenantId);
    const did = part('recipientDid', m.recipientDid);
    if (!MEDIATION_STATES.includes(m.state)) throw invalid('RELAY_BAD_STATE', `a mediation's state is one of ${MEDIATION_STATES.join(', ')}`);
    const reason = text('reason', m.reason, true);
    if (m.gate !== null && (typeof m.gate !== 'object' || typeof m.gate.state !== 'string')) throw invalid('RELAY_BAD_MEDIATION', 'a gate is null or {policy, state}');
    const gate = m.gate === null ? [null, null] : [text('gate.policy', m.gate.policy), text('gate.state', m.gate.state)];
    const times = [int('createdAt', m.createdAt, MAX_TIME), int('updatedAt', m.updatedAt, MAX_TIME), m.grantedAt === null ? null : int('grantedAt', m.grantedAt, MAX_TIME)];
    await this.c.ordered(`mediation:${id}`, () =>
      this.c.db.transaction(async (tx) => {
        const { rows } = await tx.query<{ recipient_did: string }>('SELECT recipient_did FROM relay_mediations WHERE id = $1 FOR UPDATE', [id]);
        const old = rows[0];
        // the old DID stops resolving, unless another mediation was written for it since
        if (old && old.recipient_did !== did) await tx.query('DELETE FROM relay_mediation_dids WHERE recipient_did = $1 AND mediation_id = $2', [old.recipient_did, id]);
        await tx.query(
          `INSERT INTO relay_mediations (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
           ON CONFLICT (id) DO UPDATE SET tenant_id = EXCLUDED.tenant_id, recipient_did = EXCLUDED.recipient_did, state = EXCLUDED.state,
             reason = EXCLUDED.reason, gate_policy = EXCLUDED.gate_policy, gate_state = EXCLUDED.gate_state, created_at = EXCLUDED.created_at,
             updated_at = EXCLUDED.updated_at, granted_at = EXCLUDED.granted_at`,
          [id, tenantId, did, m.state, reason, ...gate, ...times],
        );
        await tx.query(
          'INSERT INTO relay_mediation_dids (recipient_did, mediation_id) VALUES ($1, $2) ON CONFLICT (recipient_did) DO UPDATE SET mediation_id = EXCLUDED.mediation_id',
          [did, id],
        );
      }),
    );
  }

  async byKey(key: string): Promise<KeylistEntry | undefined> {
    part('key', key);
    const { rows } = await this.c.run(() => this.c.db.query<KeyRow>('SELECT key, mediation_id, added_at FROM relay_keys WHERE key = $1', [key]));
    return rows[0] && entry(rows[0]);
  }

  async keylist(mediationId: string, opts: { offset?: number; limit?: number } = {}): Promise<{ keys: KeylistEntry[]; total: number }> {
    part('mediationId', mediationId);
    const offset = int('offset', opts.offset ?? 0);
    const limit = opts.limit === undefined ? null : int('limit', opts.limit);
    const { db } = this.c;
    return this.c.run(async () => {
      const [page, count] = await Promise.all([
        limit === 0 ? { rows: [] } : db.query<KeyRow>('SELECT key, mediation_id, added_at FROM relay_keys WHERE mediation_id = $1 ORDER BY key LIMIT $2 OFFSET $3', [mediationId, limit, offset]),
        db.query<{ n: number }>('SELECT count(*) AS n FROM relay_keys WHERE mediation_id = $1', [mediationId]),
      ]);
      return { keys: page.rows.map(entry), total: Number(count.rows[0]!.n) };
    });
  }

  /** A key both added and removed stays (the add wins). Adding a key already in this keylist keeps its `addedAt`. */
  async updateKeys(mediationId: string, add: readonly string[], remove: readonly string[], at: number): Promise<void> {
    part('mediationId', mediationId);
    // sorted, so two updates lock the keys they share in the same order
    const adds = parts('key', add).sort();
    const removes = parts('key', remove).filter((k) => !adds.includes(k));
    int('at', at, MAX_TIME);
    await this.c.ordered(`keylist:${mediationId}`, () =>
      this.c.db.transaction(async (tx) => {
        if (adds.length > 0) {
          await tx.query('INSERT INTO relay_keys (key, mediation_id, added_at) SELECT k, $2, $3 FROM unnest($1::text[]) AS k ORDER BY k ON CONFLICT (key) DO NOTHING', [adds, mediationId, at]);
          const { rows } = await tx.query<{ key: string }>('SELECT key FROM relay_keys WHERE key = ANY($1::text[]) AND mediation_id <> $2', [adds, mediationId]);
          const taken = new Set(rows.map((r) => r.key));
          const key = [...new Set(add)].find((k) => taken.has(k));
          if (key !== undefined) throw new LedgerError('KEY_IN_OTHER_KEYLIST', `${key} is in another mediation's keylist`, 'conflict', { key });
        }
        if (removes.length > 0) await tx.query('DELETE FROM relay_keys WHERE key = ANY($1::text[]) AND mediation_id = $2', [removes, mediationId]);
      }),
    );
  }
}
