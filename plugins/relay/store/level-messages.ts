import { invalid } from '../../../node/errors.js';
import { Core, IdGen, MAX_TIME, Tx, bytes, eachPart, int, join, pad, part, parts, under, type Summary } from './level-core.js';
import { checkMessageFilter, checkNewMessage } from './shared.js';
import {
  MESSAGE_STATES,
  type MessageFilter,
  type MessageQueue,
  type MessageRecord,
  type MessageState,
  type NewMessage,
} from './types.js';

const PENDING: ReadonlySet<MessageState> = new Set(['queued', 'delivered', 'live-delivered']);
export const isPending = (state: MessageState): boolean => PENDING.has(state);

/** messages read per step when failing a recipient's whole queue */
const FAIL_CHUNK = 500;

const summary = (r: MessageRecord): Summary => [r.state, r.protocol, r.recipient];
const expiryKey = (expiresAt: number, id: string): string => join(pad(expiresAt, 13), id);

/**
 * The message queue (key layout in level-core.ts). A message is pending while it is queued,
 * delivered or live-delivered: it then has a `q` entry and counts in `n/<recipient>`. It leaves
 * pending exactly once, to acknowledged, expired or failed, and nothing moves it again. Its body
 * stays until its `expiresAt` (the sweeper, `expire`, drops it then, whatever the state), except
 * that an acknowledgement with `purge` drops it at once. The move to a final state writes the
 * message's `p` entry; `prune` reads those to delete final records past a later time.
 */
export class LevelMessageQueue implements MessageQueue {
  private readonly ids = new IdGen('msg_', true);

  constructor(private readonly c: Core) {}

  async enqueue(msg: NewMessage, body: Uint8Array, at: number): Promise<MessageRecord> {
    const { tenantId, mediationId, recipient } = checkNewMessage(msg, body, at);
    const { s } = this.c;
    return this.c.write(async () => {
      const id = this.ids.next(this.c.now());
      const rec: MessageRecord = {
        id,
        tenantId,
        mediationId,
        recipient,
        sender: msg.sender,
        protocol: 'forward',
        state: 'queued',
        size: msg.size,
        receivedAt: at,
        deliveredAt: null,
        acknowledgedAt: null,
        expiresAt: msg.expiresAt,
        reason: null,
      };
      const tx = new Tx();
      tx.put(s.m, id, rec);
      tx.put(s.b, id, body);
      tx.put(s.q, join(recipient, id), '');
      tx.put(s.t, join(tenantId, id), summary(rec));
      tx.put(s.x, expiryKey(rec.expiresAt, id), '');
      tx.add(s.n, recipient, 1);
      tx.add(s.sc, join(tenantId, 'queued'), 1);
      await this.c.commit(tx);
      return rec;
    }, 'grouped');
  }

  async get(id: string): Promise<MessageRecord | undefined> {
    return this.c.s.m.get(part('id', id));
  }

  async getMany(ids: readonly string[]): Promise<Array<MessageRecord | undefined>> {
    const keys = eachPart('id', ids);
    return keys.length === 0 ? [] : this.c.s.m.getMany(keys);
  }

  async body(id: string): Promise<Uint8Array | undefined> {
    return bytes(await this.c.s.b.get(part('id', id)));
  }

  async pending(recipients: readonly string[], limit: number, after?: string): Promise<MessageRecord[]> {
    const rs = parts('recipient', recipients);
    int('limit', limit);
    if (after !== undefined) part('after', after);
    if (limit === 0 || rs.length === 0) return [];
    // the oldest `limit` of each recipient, merged by id (ids sort by arrival)
    const range = (r: string) => (after === undefined ? under(r) : { gt: `${r}\u0000${after}`, lt: under(r).lt });
    const perRecipient = await Promise.all(rs.map((r) => this.c.s.q.keys({ ...range(r), limit }).all()));
    const ids = perRecipient.flatMap((keys, j) => keys.map((k) => k.slice(rs[j]!.length + 1))).sort();
    const records = await this.c.s.m.getMany(ids.slice(0, limit));
    return records.filter((r): r is MessageRecord => r !== undefined && isPending(r.state));
  }

  async countPending(recipients: readonly string[]): Promise<number> {
    const rs = parts('recipient', recipients);
    if (rs.length === 0) return 0;
    return (await this.c.s.n.getMany(rs)).reduce<number>((sum, n) => sum + (n ?? 0), 0);
  }

  async markDelivered(ids: readonly string[], state: 'delivered' | 'live-delivered', at: number): Promise<void> {
    const wanted = parts('id', ids);
    if (state !== 'delivered' && state !== 'live-delivered') throw invalid('RELAY_BAD_STATE', 'a delivery is delivered or live-delivered');
    int('at', at, MAX_TIME);
    return this.c.write(async () => {
      const tx = new Tx();
      for (const rec of await this.c.s.m.getMany(wanted)) {
        if (rec && isPending(rec.state)) this.move(tx, rec, { state, protocol: 'pickup', deliveredAt: at }, false);
      }
      await this.c.commit(tx);
    }, 'unsynced');
  }

  async acknowledge(ids: readonly string[], recipients: readonly string[], at: number, purge: boolean): Promise<string[]> {
    const wanted = parts('id', ids);
    const owners = new Set(parts('recipient', recipients));
    int('at', at, MAX_TIME);
    return this.c.write(async () => {
      const tx = new Tx();
      const done: string[] = [];
      for (const rec of await this.c.s.m.getMany(wanted)) {
        if (!rec || !isPending(rec.state) || !owners.has(rec.recipient)) continue;
        this.move(tx, rec, { state: 'acknowledged', protocol: 'pickup', acknowledgedAt: at }, purge);
        done.push(rec.id);
      }
      await this.c.commit(tx);
      return done;
    }, 'unsynced');
  }

  /** `at` is not recorded: a record has no time of failure (its `reason` says why). */
  async fail(recipients: readonly string[], reason: string, at: number): Promise<MessageRecord[]> {
    const rs = parts('recipient', recipients);
    if (typeof reason !== 'string') throw invalid('RELAY_BAD_REASON', 'reason must be a string');
    int('at', at, MAX_TIME);
    return this.c.write(async () => {
      const out: MessageRecord[] = [];
      for (const r of rs) {
        // one batch per chunk; the lock is held throughout, so no enqueue slips in between
        for (;;) {
          const keys = await this.c.s.q.keys({ ...under(r), limit: FAIL_CHUNK }).all();
          if (keys.length === 0) break;
          const tx = new Tx();
          const records = await this.c.s.m.getMany(keys.map((k) => k.slice(r.length + 1)));
          records.forEach((rec, j) => {
            if (rec && isPending(rec.state)) out.push(this.move(tx, rec, { state: 'failed', reason }, false));
            else tx.del(this.c.s.q, keys[j]!); // a stale index entry: drop it so the loop ends
          });
          await this.c.commit(tx);
        }
      }
      return out;
    });
  }

  /**
   * Expires pending messages with `expiresAt <= now` and drops the stored body of every message
   * (whatever its state) past that point, oldest expiry first; handles at most `max` messages per
   * call (one batch), so the sweeper calls it again while it returns work.
   */
  async expire(now: number, max: number): Promise<MessageRecord[]> {
    int('now', now, 1e13 - 1);
    int('max', max);
    return this.c.write(async () => {
      if (max === 0) return [];
      const { s } = this.c;
      const keys = await s.x.keys({ lt: pad(now + 1, 13), limit: max }).all();
      const records = await s.m.getMany(keys.map((k) => k.slice(14)));
      const tx = new Tx();
      const out: MessageRecord[] = [];
      records.forEach((rec, j) => {
        if (rec && isPending(rec.state)) {
          out.push(this.move(tx, rec, { state: 'expired', reason: 'the retention window ended' }, true));
        } else {
          const id = keys[j]!.slice(14);
          tx.del(s.b, id);
          tx.del(s.x, keys[j]!);
        }
      });
      await this.c.commit(tx);
      return out;
    }, 'unsynced');
  }

  /**
   * Deletes final messages with `expiresAt < before`, oldest expiry first, at most `max` `p`
   * entries per call (one batch): the record, its body and expiry entry if `expire` has not yet
   * dropped them, its listing entry, its `p` entry and its state count. A pending message has no
   * `p` entry, so it is never deleted (and no recipient's pending count changes). A `p` entry
   * without a final record (none is ever written) is dropped and not counted.
   */
  async prune(before: number, max: number): Promise<number> {
    int('before', before, 1e13);
    int('max', max);
    return this.c.write(async () => {
      if (max === 0) return 0;
      const { s } = this.c;
      const keys = await s.p.keys({ lt: pad(before, 13), limit: max }).all();
      if (keys.length === 0) return 0;
      const records = await s.m.getMany(keys.map((k) => k.slice(14)));
      const tx = new Tx();
      let deleted = 0;
      records.forEach((rec, j) => {
        tx.del(s.p, keys[j]!);
        if (!rec || isPending(rec.state)) return;
        tx.del(s.m, rec.id);
        tx.del(s.b, rec.id);
        tx.del(s.x, expiryKey(rec.expiresAt, rec.id));
        tx.del(s.t, join(rec.tenantId, rec.id));
        tx.del(s.q, join(rec.recipient, rec.id)); // a final message has none; a stale one goes too
        tx.add(s.sc, join(rec.tenantId, rec.state), -1);
        deleted++;
      });
      await this.c.commit(tx);
      return deleted;
    }, 'unsynced');
  }

  async list(filter: MessageFilter): Promise<{ items: MessageRecord[]; total: number }> {
    const { tenantId, state, protocol, recipient, limit, offset } = checkMessageFilter(filter);
    // With no filter or only a state, the stored counts give the total and the scan stops at the
    // page. Otherwise the scan reads the tenant's whole listing (small entries, no records) to
    // count: fine up to ~100k messages per tenant.
    let known: number | undefined;
    if (protocol === undefined && recipient === undefined) {
      const counts = await this.stateCounts(tenantId);
      known = state ? counts[state] : Object.values(counts).reduce((a, b) => a + b, 0);
    }
    const page: string[] = [];
    let matched = 0;
    if (known === undefined || offset < known) {
      for await (const [k, [st, pr, rc]] of this.c.s.t.iterator({ ...under(tenantId), reverse: true })) {
        if ((state && st !== state) || (protocol && pr !== protocol) || (recipient !== undefined && rc !== recipient)) continue;
        if (matched >= offset && page.length < limit) page.push(k.slice(tenantId.length + 1));
        matched++;
        if (known !== undefined && matched >= offset + limit) break;
      }
    }
    const items = (await this.c.s.m.getMany(page)).filter((r): r is MessageRecord => r !== undefined);
    return { items, total: known ?? matched };
  }

  async stateCounts(tenantId: string): Promise<Record<MessageState, number>> {
    part('tenantId', tenantId);
    const stored = await this.c.s.sc.getMany(MESSAGE_STATES.map((st) => join(tenantId, st)));
    return Object.fromEntries(MESSAGE_STATES.map((st, j) => [st, stored[j] ?? 0])) as Record<MessageState, number>;
  }

  /** Writes a pending message's move into `tx`, with its index and count changes; returns the new record. */
  private move(tx: Tx, old: MessageRecord, changes: Partial<MessageRecord>, dropBody: boolean): MessageRecord {
    const { s } = this.c;
    const rec: MessageRecord = { ...old, ...changes };
    tx.put(s.m, rec.id, rec);
    tx.put(s.t, join(rec.tenantId, rec.id), summary(rec));
    if (old.state !== rec.state) {
      tx.add(s.sc, join(rec.tenantId, old.state), -1);
      tx.add(s.sc, join(rec.tenantId, rec.state), 1);
    }
    if (!isPending(rec.state)) {
      tx.del(s.q, join(old.recipient, old.id));
      tx.add(s.n, old.recipient, -1);
      tx.put(s.p, expiryKey(rec.expiresAt, rec.id), '');
    }
    if (dropBody) {
      tx.del(s.b, rec.id);
      tx.del(s.x, expiryKey(old.expiresAt, old.id));
    }
    return rec;
  }
}
