import type { Logger } from '../../../node/logging.js';
import type { Arrival, ArrivalBus } from '../coordination/types.js';
import type { LogEntry, Mediation, MessageRecord, RelayStore } from '../store/types.js';
import type { RelayEvents } from './events.js';
import type { SettingsService } from './settings.js';

/**
 * The message queue as the protocols use it: accept a forward (durable before the caller
 * answers), hand pending messages to pickup or to a live connection, acknowledge, fail and
 * expire them. Live connections subscribe to their mediation and are told when something arrives
 * for any of its keys, including keys registered after the connection went live, on whichever
 * instance it arrived (the ArrivalBus).
 * The delivery log is buffered and written at most a second later: it is a record for operators,
 * not a guarantee, and losing its last second in a crash loses no message.
 */

/** told of each message accepted for a mediation, with its body, once it is stored */
export type ArrivalListener = (arrival: Arrival) => void;

export interface Pending {
  record: MessageRecord;
  body: Uint8Array;
}

const LOG_FLUSH_MS = 1000;
const LOG_BUFFER_MAX = 500;

export class DeliveryService {
  private logBuffer: Omit<LogEntry, 'id'>[] = [];
  private logTimer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: { store: RelayStore; arrivals: ArrivalBus; settings: SettingsService; events: RelayEvents; log: Logger; now: () => number },
  ) {}

  async accept(mediation: Mediation, recipient: string, sender: string | null, body: Uint8Array): Promise<MessageRecord> {
    const { store, settings, events, now } = this.deps;
    const at = now();
    const { retentionSeconds } = await settings.get(mediation.tenantId);
    const record = await store.messages.enqueue({ tenantId: mediation.tenantId, mediationId: mediation.id, recipient, sender, size: body.length, expiresAt: at + retentionSeconds * 1000 }, body, at);
    store.counters.add(mediation.tenantId, 'received', at);
    this.note(mediation.tenantId, recipient, `queued ${record.id} (${body.length} bytes) for ${recipient}`);
    // the live push need not wait for the event's synced write; the caller's 202 waits for both
    await Promise.all([
      events.emit(mediation.tenantId, 'message.queued', { messageId: record.id, recipient, sender, size: body.length, mediationId: mediation.id }),
      this.deps.arrivals.publish({ mediationId: mediation.id, record, body }),
    ]);
    return record;
  }

  /** `listener` hears of every message accepted for a key of the mediation */
  subscribe(mediationId: string, listener: ArrivalListener): () => void {
    return this.deps.arrivals.subscribe(mediationId, listener);
  }

  /** mediations with at least one live connection on this instance */
  liveMediations(): number {
    return this.deps.arrivals.listening;
  }

  /** pending messages with their bodies, oldest first; `after` skips ids up to it */
  async collect(recipients: readonly string[], limit: number, after?: string): Promise<Pending[]> {
    const records = await this.deps.store.messages.pending(recipients, limit, after);
    const out: Pending[] = [];
    for (const record of records) {
      const body = await this.deps.store.messages.body(record.id);
      if (body) out.push({ record, body });
    }
    return out;
  }

  async delivered(records: readonly MessageRecord[], via: 'delivered' | 'live-delivered'): Promise<void> {
    if (records.length === 0) return;
    const { store, events, now } = this.deps;
    const at = now();
    await store.messages.markDelivered(records.map((r) => r.id), via, at);
    for (const r of records) {
      store.counters.add(r.tenantId, 'delivered', at);
      store.counters.add(r.tenantId, `delivered:${r.mediationId}`, at);
      this.note(r.tenantId, r.recipient, `${via === 'live-delivered' ? 'pushed live' : 'delivered by pickup'} ${r.id} to ${r.recipient}`);
    }
    await events.emitAll(records.map((r) => ({ tenantId: r.tenantId, type: 'message.delivered', data: { messageId: r.id, recipient: r.recipient, via: via === 'live-delivered' ? 'live' : 'pickup' } })));
  }

  async acknowledge(mediation: Mediation, ids: readonly string[], recipients: readonly string[]): Promise<string[]> {
    const { purgeOnAck } = await this.deps.settings.get(mediation.tenantId);
    const acked = await this.deps.store.messages.acknowledge(ids, recipients, this.deps.now(), purgeOnAck);
    if (acked.length > 0) this.note(mediation.tenantId, null, `acknowledged ${acked.length} message(s) for ${mediation.recipientDid}`);
    return acked;
  }

  /** Fails what is queued for the keys (mediation revoked, DID deactivated). */
  async failKeys(tenantId: string, keys: readonly string[], reason: string): Promise<void> {
    if (keys.length === 0) return;
    const failed = await this.deps.store.messages.fail(keys, reason, this.deps.now());
    for (const r of failed) this.note(tenantId, r.recipient, `failed ${r.id} for ${r.recipient}: ${reason}`, 'warn');
    await this.deps.events.emitAll(failed.map((r) => ({ tenantId, type: 'delivery.failed', data: { messageId: r.id, recipient: r.recipient, reason } })));
  }

  /**
   * One pass of the retention sweeper: expires up to `max` messages, then deletes the records of
   * final messages whose window ended more than 7 days ago; returns how many messages expired.
   */
  async sweep(max = 1000): Promise<number> {
    const keepMs = 7 * 86_400_000;
    const chunk = 1000; // records per batch; the store's lock is released between batches
    const { store, now } = this.deps;
    const at = now();
    const expired = await store.messages.expire(at, max);
    for (const r of expired) this.note(r.tenantId, r.recipient, `expired ${r.id} for ${r.recipient}: not picked up within the retention window`, 'warn');
    await this.deps.events.emitAll(expired.map((r) => ({ tenantId: r.tenantId, type: 'delivery.failed', data: { messageId: r.id, recipient: r.recipient, reason: 'expired' } })));
    // the operator's message list shows acknowledged, expired and failed messages for 7 days after their retention window
    const before = at - keepMs;
    if (before > 0) while ((await store.messages.prune(before, chunk)) === chunk);
    return expired.length;
  }

  note(tenantId: string, recipient: string | null, message: string, level: LogEntry['level'] = 'info'): void {
    this.logBuffer.push({ tenantId, at: this.deps.now(), level, message, recipient });
    if (this.logBuffer.length >= LOG_BUFFER_MAX) void this.flushLog();
    else this.logTimer ??= setTimeout(() => void this.flushLog(), LOG_FLUSH_MS).unref();
  }

  flushLog(): Promise<void> {
    clearTimeout(this.logTimer);
    this.logTimer = undefined;
    const entries = this.logBuffer;
    this.logBuffer = [];
    this.flushing = this.flushing.then(async () => {
      if (entries.length === 0) return;
      try {
        await this.deps.store.log.append(entries);
      } catch (err) {
        this.deps.log.warn({ err, entries: entries.length }, 'delivery log entries were not written');
      }
    });
    return this.flushing;
  }
}
