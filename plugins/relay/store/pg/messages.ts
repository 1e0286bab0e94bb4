import { LedgerError, invalid } from '../../../../node/errors.js';
import { IdGen, MAX_TIME, checkMessageFilter, checkNewMessage, eachPart, int, part, parts } from '../shared.js';
import {
  MESSAGE_STATES,
  type MessageFilter,
  type MessageProtocol,
  type MessageQueue,
  type MessageRecord,
  type MessageState,
  type NewMessage,
} from '../types.js';
import { PgCore, text, toBytea, fromBytea } from './core.js';
import { FINAL_SQL, PENDING_SQL } from './schema.js';

/**
 * The message queue in Postgres: one row per message, its body in the same row (null once
 * dropped). A message is pending while queued, delivered or live-delivered; it leaves pending
 * once, to acknowledged, expired or failed, and nothing moves it again: every transition is one
 * UPDATE whose WHERE names the states it moves from, so of two instances racing, the second finds
 * the row moved (it waits for the first's lock, then re-reads the row) and leaves it. The
 * sweeper's `expire` and `prune` take their rows FOR UPDATE SKIP LOCKED: two sweepers never take
 * the same message, so an expiry is reported once.
 */

const FIELDS = ['id', 'tenant_id', 'mediation_id', 'recipient', 'sender', 'protocol', 'state', 'size', 'received_at', 'delivered_at', 'acknowledged_at', 'expires_at', 'reason'];
const COLUMNS = FIELDS.join(', ');
/** the columns of `m`, where a statement joins another relation that has an `id` */
const M_COLUMNS = FIELDS.map((f) => `m.${f}`).join(', ');
/** new ids tried when one is taken (another instance made the same, which is very unlikely) */
const ID_ATTEMPTS = 5;

interface Row {
  id: string;
  tenant_id: string;
  mediation_id: string;
  recipient: string;
  sender: string | null;
  protocol: MessageProtocol;
  state: MessageState;
  size: number;
  received_at: number;
  delivered_at: number | null;
  acknowledged_at: number | null;
  expires_at: number;
  reason: string | null;
}

const record = (r: Row): MessageRecord => ({
  id: r.id,
  tenantId: r.tenant_id,
  mediationId: r.mediation_id,
  recipient: r.recipient,
  sender: r.sender,
  protocol: r.protocol,
  state: r.state,
  size: r.size,
  receivedAt: r.received_at,
  deliveredAt: r.delivered_at,
  acknowledgedAt: r.acknowledged_at,
  expiresAt: r.expires_at,
  reason: r.reason,
});

const byExpiry = (a: MessageRecord, b: MessageRecord): number => a.expiresAt - b.expiresAt || (a.id < b.id ? -1 : 1);

export class PgMessageQueue implements MessageQueue {
  /** `spread`: ids of two instances made in the same ms differ in their counters too */
  private readonly ids = new IdGen('msg_', true, true);

  constructor(private readonly c: PgCore) {}

  async enqueue(msg: NewMessage, body: Uint8Array, at: number): Promise<MessageRecord> {
    const { tenantId, mediationId, recipient } = checkNewMessage(msg, body, at);
    const sender = text('sender', msg.sender, true);
    return this.c.run(async () => {
      for (let attempt = 0; attempt < ID_ATTEMPTS; attempt++) {
        const id = this.ids.next(this.c.now());
        const { rowCount } = await this.c.db.query(
          `INSERT INTO relay_messages (id, tenant_id, mediation_id, recipient, sender, protocol, state, size, received_at, expires_at, body)
           VALUES ($1, $2, $3, $4, $5, 'forward', 'queued', $6, $7, $8, $9) ON CONFLICT (id) DO NOTHING`,
          [id, tenantId, mediationId, recipient, sender, msg.size, at, msg.expiresAt, toBytea(body)],
        );
        if (rowCount === 1) {
          return { id, tenantId, mediationId, recipient, sender, protocol: 'forward', state: 'queued', size: msg.size, receivedAt: at, deliveredAt: null, acknowledgedAt: null, expiresAt: msg.expiresAt, reason: null };
        }
      }
      throw new LedgerError('RELAY_ID_TAKEN', `no free message id after ${ID_ATTEMPTS} attempts`, 'internal');
    });
  }

  async get(id: string): Promise<MessageRecord | undefined> {
    part('id', id);
    const { rows } = await this.c.run(() => this.c.db.query<Row>(`SELECT ${COLUMNS} FROM relay_messages WHERE id = $1`, [id]));
    return rows[0] && record(rows[0]);
  }

  async getMany(ids: readonly string[]): Promise<Array<MessageRecord | undefined>> {
    const wanted = eachPart('id', ids);
    if (wanted.length === 0) return this.c.run(async () => []);
    const { rows } = await this.c.run(() => this.c.db.query<Row>(`SELECT ${COLUMNS} FROM relay_messages WHERE id = ANY($1::text[])`, [wanted]));
    const found = new Map(rows.map((r) => [r.id, r]));
    return wanted.map((id) => {
      const row = found.get(id);
      return row && record(row);
    });
  }

  async body(id: string): Promise<Uint8Array | undefined> {
    part('id', id);
    const { rows } = await this.c.run(() => this.c.db.query<{ body: Uint8Array | null }>('SELECT body FROM relay_messages WHERE id = $1', [id]));
    return fromBytea(rows[0]?.body);
  }

  async pending(recipients: readonly string[], limit: number, after?: string): Promise<MessageRecord[]> {
    const rs = parts('recipient', recipients);
    int('limit', limit);
    if (after !== undefined) part('after', after);
    if (limit === 0 || rs.length === 0) return [];
    // the oldest `limit` of each recipient from the pending index, merged by id; '' is below every id
    const sql = `SELECT ${M_COLUMNS} FROM unnest($1::text[]) AS r(recipient)
      CROSS JOIN LATERAL (SELECT ${COLUMNS} FROM relay_messages
        WHERE recipient = r.recipient AND state IN ${PENDING_SQL} AND id > $2 ORDER BY id LIMIT $3) m
      ORDER BY m.id LIMIT $3`;
    const { rows } = await this.c.run(() => this.c.db.query<Row>(sql, [rs, after ?? '', limit]));
    return rows.map(record);
  }

  async countPending(recipients: readonly string[]): Promise<number> {
    const rs = parts('recipient', recipients);
    if (rs.length === 0) return 0;
    const sql = `SELECT count(*) AS n FROM relay_messages WHERE recipient = ANY($1::text[]) AND state IN ${PENDING_SQL}`;
    const { rows } = await this.c.run(() => this.c.db.query<{ n: number }>(sql, [rs]));
    return Number(rows[0]!.n);
  }

  async markDelivered(ids: readonly string[], state: 'delivered' | 'live-delivered', at: number): Promise<void> {
    const wanted = parts('id', ids);
    if (state !== 'delivered' && state !== 'live-delivered') throw invalid('RELAY_BAD_STATE', 'a delivery is delivered or live-delivered');
    int('at', at, MAX_TIME);
    if (wanted.length === 0) return this.c.run(async () => undefined);
    const sql = `UPDATE relay_messages SET state = $2, protocol = 'pickup', delivered_at = $3 WHERE id = ANY($1::text[]) AND state IN ${PENDING_SQL}`;
    await this.c.run(() => this.c.db.query(sql, [wanted, state, at]));
  }

  async acknowledge(ids: readonly string[], recipients: readonly string[], at: number, purge: boolean): Promise<string[]> {
    const wanted = parts('id', ids);
    const owners = parts('recipient', recipients);
    int('at', at, MAX_TIME);
    if (wanted.length === 0 || owners.length === 0) return this.c.run(async () => []);
    const sql = `UPDATE relay_messages SET state = 'acknowledged', protocol = 'pickup', acknowledged_at = $3, body = CASE WHEN $4::boolean THEN NULL ELSE body END
      WHERE id = ANY($1::text[]) AND recipient = ANY($2::text[]) AND state IN ${PENDING_SQL} RETURNING id`;
    const { rows } = await this.c.run(() => this.c.db.query<{ id: string }>(sql, [wanted, owners, at, purge === true]));
    const done = new Set(rows.map((r) => r.id));
    return wanted.filter((id) => done.has(id));
  }

  /** `at` is not recorded: a record has no time of failure (its `reason` says why). */
  async fail(recipients: readonly string[], reason: string, at: number): Promise<MessageRecord[]> {
    const rs = parts('recipient', recipients);
    if (typeof reason !== 'string') throw invalid('RELAY_BAD_REASON', 'reason must be a string');
    text('reason', reason);
    int('at', at, MAX_TIME);
    if (rs.length === 0) return this.c.run(async () => []);
    // the rows are locked in id order, the order every other transition locks them in
    const sql = `UPDATE relay_messages m SET state = 'failed', reason = $2
      FROM (SELECT id FROM relay_messages WHERE recipient = ANY($1::text[]) AND state IN ${PENDING_SQL} ORDER BY id FOR UPDATE) f
      WHERE m.id = f.id RETURNING ${M_COLUMNS}`;
    const { rows } = await this.c.run(() => this.c.db.query<Row>(sql, [rs, reason]));
    // as the LevelDB store returns them: recipient by recipient, oldest first
    const place = new Map(rs.map((r, i) => [r, i]));
    return rows.map(record).sort((a, b) => place.get(a.recipient)! - place.get(b.recipient)! || (a.id < b.id ? -1 : 1));
  }

  /**
   * Expires pending messages with `expiresAt <= now` and drops the stored body of every message
   * (whatever its state) past that point, oldest expiry first; handles at most `max` messages per
   * call, so the sweeper calls it again while it returns work. Rows another sweeper holds are
   * skipped: that one handles them.
   */
  async expire(now: number, max: number): Promise<MessageRecord[]> {
    int('now', now, 1e13 - 1);
    int('max', max);
    if (max === 0) return this.c.run(async () => []);
    // a message with a body is pending or final-but-not-yet-swept; an `expired` one never has a body, so
    // the rows that come back expired are exactly the ones this statement expired
    const sql = `WITH due AS (
        SELECT id FROM relay_messages WHERE body IS NOT NULL AND expires_at <= $1 ORDER BY expires_at, id LIMIT $2 FOR UPDATE SKIP LOCKED)
      UPDATE relay_messages m SET body = NULL,
        state = CASE WHEN m.state IN ${PENDING_SQL} THEN 'expired' ELSE m.state END,
        reason = CASE WHEN m.state IN ${PENDING_SQL} THEN 'the retention window ended' ELSE m.reason END
      FROM due WHERE m.id = due.id RETURNING ${M_COLUMNS}`;
    const { rows } = await this.c.run(() => this.c.db.query<Row>(sql, [now, max]));
    return rows
      .filter((r) => r.state === 'expired')
      .map(record)
      .sort(byExpiry);
  }

  /**
   * Deletes final messages with `expiresAt < before`, oldest expiry first, at most `max` per call,
   * body and all. A pending message is never deleted. Rows another sweeper holds are skipped.
   */
  async prune(before: number, max: number): Promise<number> {
    int('before', before, 1e13);
    int('max', max);
    if (max === 0) return this.c.run(async () => 0);
    const sql = `DELETE FROM relay_messages WHERE id IN (
      SELECT id FROM relay_messages WHERE state IN ${FINAL_SQL} AND expires_at < $1 ORDER BY expires_at, id LIMIT $2 FOR UPDATE SKIP LOCKED)`;
    const { rowCount } = await this.c.run(() => this.c.db.query(sql, [before, max]));
    return rowCount;
  }

  /** newest first */
  async list(filter: MessageFilter): Promise<{ items: MessageRecord[]; total: number }> {
    const { tenantId, state, protocol, recipient, limit, offset } = checkMessageFilter(filter);
    // an absent filter is a null parameter, which makes its condition true
    const where = `tenant_id = $1 AND ($2::text IS NULL OR state = $2) AND ($3::text IS NULL OR protocol = $3) AND ($4::text IS NULL OR recipient = $4)`;
    const params = [tenantId, state ?? null, protocol ?? null, recipient ?? null];
    const { db } = this.c;
    return this.c.run(async () => {
      const [page, count] = await Promise.all([
        limit === 0 ? { rows: [] } : db.query<Row>(`SELECT ${COLUMNS} FROM relay_messages WHERE ${where} ORDER BY id DESC LIMIT $5 OFFSET $6`, [...params, limit, offset]),
        db.query<{ n: number }>(`SELECT count(*) AS n FROM relay_messages WHERE ${where}`, params),
      ]);
      return { items: page.rows.map(record), total: Number(count.rows[0]!.n) };
    });
  }

  /** counts per state for one tenant */
  async stateCounts(tenantId: string): Promise<Record<MessageState, number>> {
    part('tenantId', tenantId);
    const sql = 'SELECT state, count(*) AS n FROM relay_messages WHERE tenant_id = $1 GROUP BY state';
    const { rows } = await this.c.run(() => this.c.db.query<{ state: MessageState; n: number }>(sql, [tenantId]));
    const out = Object.fromEntries(MESSAGE_STATES.map((st) => [st, 0])) as Record<MessageState, number>;
    for (const r of rows) out[r.state] = Number(r.n);
    return out;
  }
}
