import { LedgerError, invalid } from '../../../node/errors.js';
import type { Logger } from '../../../node/logging.js';
import type { BinarySublevel } from '../../../node/state/db.js';
import { attemptDelivery, type AttemptOutcome } from './attempt.js';
import { DeliveryIds } from './ids.js';
import { DeliveryStore, applyOutcome, newRecord, type CountFilter, type DeliveryRecord, type DeliveryStatus } from './store.js';
import { checkDelivery, checkEndpoint, type WebhookEndpoint, type WebhookEvent } from './event.js';

/**
 * A durable webhook outbox (docs/webhooks.md). A delivery is on disk (fsynced, through a group
 * commit shared with the deliveries queued meanwhile) before `enqueue` returns, then attempted in
 * the background on the retry schedule. Every attempt's outcome is written before the next is
 * planned, so after a crash or a restart the pending deliveries carry on from the store; one in
 * flight at the crash is sent again (at-least-once: receivers deduplicate on the event id).
 */

export const DEFAULT_SCHEDULE: readonly number[] = [0, 10, 20, 40, 80, 160];
export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_RETENTION_MS = 7 * 24 * 3600 * 1000;

export interface WebhookOutboxOptions {
  store: BinarySublevel;
  log: Logger;
  userAgent?: string;
  /** seconds after the first attempt at which each attempt is due; its length is the attempt count */
  schedule?: readonly number[];
  timeoutMs?: number;
  now?: () => number;
  maxConcurrent?: number;
  onSettled?: (d: DeliveryRecord) => void;
  /** settled records older than this are deleted at start and every `pruneIntervalMs` */
  retentionMs?: number;
  pruneIntervalMs?: number;
  /** more host names allowed over plain http (see url.ts) */
  allowHttpHosts?: readonly string[];
  /**
   * The endpoint's current URL and secret, asked before every attempt of a queued delivery, so
   * a rotated secret or a corrected URL applies to pending retries at once; the secret is then
   * not stored with the delivery. null: the endpoint is gone (or disabled), and the delivery
   * fails without another attempt. Unset: each delivery keeps the URL and secret it was queued with.
   */
  resolveEndpoint?: (endpointId: string, tenant: string | null) => Promise<{ url: string; secret: string } | null>;
  /**
   * Default true: `enqueue` and `resend` resolve once the delivery is on disk (a synced batch,
   * shared with the deliveries queued meanwhile). False: nothing is fsynced (tests, benches of the
   * difference): a delivery survives the process being killed, not a power loss.
   */
  sync?: boolean;
}

export interface SendNowResult {
  id: string;
  status: DeliveryStatus;
  statusCode: number | null;
  error?: string;
  duration: number;
  request: { url: string; headers: Record<string, string> };
}

export interface ListOptions extends CountFilter {
  /** 1 to 500; default 50 */
  limit?: number;
  offset?: number;
}

const STATUSES: readonly DeliveryStatus[] = ['pending', 'delivered', 'failed'];
// setTimeout's limit; a later due time re-arms on firing.
const MAX_TIMER_MS = 2 ** 31 - 1;

export class WebhookOutbox {
  private readonly store: DeliveryStore;
  private readonly log: Logger;
  private readonly userAgent: string;
  private readonly schedule: readonly number[];
  private readonly timeoutMs: number;
  private readonly now: () => number;
  private readonly maxConcurrent: number;
  private readonly onSettled?: (d: DeliveryRecord) => void;
  private readonly retentionMs: number;
  private readonly pruneIntervalMs: number;
  private readonly allowHttpHosts: readonly string[];
  private readonly resolveEndpoint?: WebhookOutboxOptions['resolveEndpoint'];
  private readonly ids = new DeliveryIds();

  private state: 'new' | 'running' | 'stopped' = 'new';
  private readonly stopping = new AbortController();
  /** ids with a timer, in the queue or in flight: each is handled by exactly one of those */
  private readonly active = new Set<string>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private queue: string[] = [];
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly tests = new Set<Promise<unknown>>();
  private pruneTimer?: NodeJS.Timeout;
  private pruning?: Promise<void>;

  constructor(opts: WebhookOutboxOptions) {
    this.log = opts.log;
    this.userAgent = opts.userAgent ?? 'Ledger-Webhooks/1.0';
    this.schedule = [...(opts.schedule ?? DEFAULT_SCHEDULE)];
    const s = this.schedule;
    if (s.length === 0 || s.length > 50 || s[0] !== 0 || s.some((x, i) => !Number.isFinite(x) || x < 0 || (i > 0 && x < s[i - 1]!))) {
      throw invalid('WEBHOOK_SCHEDULE_INVALID', 'a retry schedule is 1 to 50 non-decreasing offsets in seconds, starting at 0');
    }
    // Whole numbers: AbortSignal.timeout throws on a fraction.
    this.timeoutMs = positiveInteger(opts.timeoutMs ?? DEFAULT_TIMEOUT_MS, 'timeoutMs');
    this.maxConcurrent = positiveInteger(opts.maxConcurrent ?? 8, 'maxConcurrent');
    this.retentionMs = positive(opts.retentionMs ?? DEFAULT_RETENTION_MS, 'retentionMs');
    this.pruneIntervalMs = positive(opts.pruneIntervalMs ?? 3600_000, 'pruneIntervalMs');
    this.now = opts.now ?? Date.now;
    this.onSettled = opts.onSettled;
    this.allowHttpHosts = opts.allowHttpHosts ?? [];
    this.resolveEndpoint = opts.resolveEndpoint;
    this.store = new DeliveryStore(opts.store, { sync: opts.sync ?? true });
  }

  /** Prunes old records, then schedules every pending delivery in the store at its due time. */
  async start(): Promise<void> {
    if (this.state !== 'new') throw new LedgerError('WEBHOOK_OUTBOX_STATE', 'a webhook outbox starts once', 'internal');
    this.state = 'running';
    await this.prune();
    for await (const stored of this.store.pending()) {
      if (this.state !== 'running') return;
      if (this.active.has(stored.record.id)) continue;
      const due = Date.parse(stored.record.nextRetryAt ?? '') || 0;
      this.active.add(stored.record.id);
      this.arm(stored.record.id, due);
    }
    this.pruneTimer = setInterval(() => void this.prune(), this.pruneIntervalMs);
    this.pruneTimer.unref();
  }

  /** Cancels timers and aborts requests in flight; their deliveries stay pending in the store. */
  async stop(): Promise<void> {
    if (this.state === 'stopped') return;
    this.state = 'stopped';
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    clearInterval(this.pruneTimer);
    this.queue = [];
    this.stopping.abort();
    await Promise.allSettled([...this.inFlight.values(), ...this.tests, this.pruning]);
    // the plugin closes the store next: the synced inserts under way finish first
    await this.store.drained();
    this.active.clear();
  }

  /**
   * Records a delivery, on disk when it resolves (`WEBHOOK_OUTBOX_SYNC_FAILED` when the synced
   * write fails), then attempts it at once in the background if running.
   */
  async enqueue(endpoint: WebhookEndpoint, event: WebhookEvent, opts: { tenant?: string } = {}): Promise<DeliveryRecord> {
    const { url, body } = checkDelivery(endpoint, event, opts.tenant, this.allowHttpHosts);
    const createdAt = this.now();
    const record = newRecord(this.ids.next(createdAt), endpoint.id, opts.tenant ?? null, event, url, createdAt);
    return this.queueNew(record, body, endpoint.secret);
  }

  /**
   * Queues a failed delivery again as a new delivery: the same event id and body bytes, to
   * `endpoint` (the endpoint's current URL and secret), with `resendOf` naming the old one.
   * Test deliveries keep no body and cannot be resent.
   */
  async resend(id: string, endpoint: WebhookEndpoint): Promise<DeliveryRecord> {
    const url = checkEndpoint(endpoint, this.allowHttpHosts);
    const old = (await this.store.get(id))?.record;
    if (!old || old.endpointId !== endpoint.id) throw new LedgerError('WEBHOOK_DELIVERY_NOT_FOUND', 'no such delivery for this endpoint', 'not_found');
    if (old.status !== 'failed') throw new LedgerError('WEBHOOK_DELIVERY_NOT_FAILED', `only a failed delivery can be resent; this one is ${old.status}`, 'conflict');
    const payload = await this.store.payload(id);
    if (!payload) throw new LedgerError('WEBHOOK_DELIVERY_BODY_GONE', 'this delivery kept no body to resend (a test delivery is not resent; send another test)', 'conflict');
    const createdAt = this.now();
    const record = newRecord(this.ids.next(createdAt), endpoint.id, old.tenant, { id: old.eventId, type: old.eventType }, url, createdAt);
    record.resendOf = old.id;
    return this.queueNew(record, payload.body, endpoint.secret);
  }

  private async queueNew(record: DeliveryRecord, body: string, secret: string): Promise<DeliveryRecord> {
    record.nextRetryAt = record.createdAt;
    // With a resolver the secret is read at each attempt, so none is stored to go stale.
    await this.store.insert({ record, firstAttemptAt: null }, this.resolveEndpoint ? { body } : { body, secret }, true);
    // Before start() it waits in the store, and start() picks it up.
    if (this.state === 'running') {
      this.active.add(record.id);
      this.queue.push(record.id);
      this.pump();
    }
    return { ...record };
  }

  /**
   * One attempt now, never retried, recorded as delivered or failed: for "send a test event".
   * It does not wait for a slot under `maxConcurrent`; the route that calls it limits its callers.
   */
  async sendNow(endpoint: WebhookEndpoint, event: WebhookEvent, opts: { tenant?: string } = {}): Promise<SendNowResult> {
    if (this.state === 'stopped') throw new LedgerError('WEBHOOK_OUTBOX_STOPPED', 'the webhook outbox has stopped', 'disabled');
    const { url, body } = checkDelivery(endpoint, event, opts.tenant, this.allowHttpHosts);
    const now = this.now();
    const record = newRecord(this.ids.next(now), endpoint.id, opts.tenant ?? null, event, url, now);
    const sending = attemptDelivery(this.request(url, body, endpoint.secret, event.id, event.type));
    this.tests.add(sending);
    let outcome: AttemptOutcome;
    try {
      outcome = await sending;
    } finally {
      this.tests.delete(sending);
    }
    if (outcome.aborted) throw new LedgerError('WEBHOOK_OUTBOX_STOPPED', 'the webhook outbox stopped during the attempt', 'disabled');
    applyOutcome(record, outcome, 1, null);
    // the record of an attempt already made, owed to nobody: not synced
    await this.store.insert({ record, firstAttemptAt: outcome.requestedAt }, undefined, false);
    this.settled(record, outcome);
    return { id: record.id, status: record.status, statusCode: record.statusCode, ...(record.error ? { error: record.error } : {}), duration: outcome.duration, request: { url, headers: outcome.headers } };
  }

  async get(id: string): Promise<DeliveryRecord | undefined> {
    return (await this.store.get(id))?.record;
  }

  /** Newest first. */
  async list(opts: ListOptions = {}): Promise<DeliveryRecord[]> {
    const limit = opts.limit ?? 50;
    const offset = opts.offset ?? 0;
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > 500) throw invalid('WEBHOOK_LIST_INVALID', 'limit is an integer from 1 to 500');
    if (!Number.isSafeInteger(offset) || offset < 0 || offset > 100_000) throw invalid('WEBHOOK_LIST_INVALID', 'offset is an integer from 0 to 100000');
    if (opts.status !== undefined && !STATUSES.includes(opts.status)) throw invalid('WEBHOOK_LIST_INVALID', `status is one of ${STATUSES.join(', ')}`);
    return this.store.list({ endpointId: opts.endpointId, tenant: opts.tenant, status: opts.status, limit, offset });
  }

  /** How many records match (each filter optional). */
  async count(filter: CountFilter = {}): Promise<number> {
    if (filter.status !== undefined && !STATUSES.includes(filter.status)) throw invalid('WEBHOOK_LIST_INVALID', `status is one of ${STATUSES.join(', ')}`);
    return this.store.count({ endpointId: filter.endpointId, tenant: filter.tenant, status: filter.status });
  }

  private request(url: string, body: string, secret: string, eventId: string, eventType: string) {
    return { url, body, secret, eventId, eventType, userAgent: this.userAgent, timeoutMs: this.timeoutMs, stop: this.stopping.signal, now: this.now };
  }

  /** Starts queued deliveries while there are free slots. */
  private pump(): void {
    while (this.state === 'running' && this.inFlight.size < this.maxConcurrent && this.queue.length > 0) {
      const id = this.queue.shift()!;
      const run = this.run(id).finally(() => {
        this.inFlight.delete(id);
        this.pump();
      });
      this.inFlight.set(id, run);
    }
  }

  /** Queues `id` when `dueMs` comes (at once if it is past). */
  private arm(id: string, dueMs: number): void {
    const delay = Math.max(0, dueMs - this.now());
    const timer = setTimeout(() => {
      this.timers.delete(id);
      if (this.state !== 'running') return;
      if (delay > MAX_TIMER_MS) return this.arm(id, dueMs);
      this.queue.push(id);
      this.pump();
    }, Math.min(delay, MAX_TIMER_MS));
    timer.unref();
    this.timers.set(id, timer);
  }

  /** One background attempt. Never throws: a store error leaves the delivery pending for the next start. */
  private async run(id: string): Promise<void> {
    let keep = false;
    try {
      const stored = await this.store.get(id);
      if (!stored || stored.record.status !== 'pending') return;
      const record = stored.record;
      const payload = await this.store.payload(id);
      const target = payload ? await this.target(record, payload.secret) : undefined;
      if (payload && target && !target.ok) {
        // Nothing left to send to: failed now, body kept for a resend once the endpoint is back.
        record.status = 'failed';
        record.nextRetryAt = null;
        record.error = target.error;
        await this.store.update({ ...stored, record }, 'pending', payload.body);
        this.settled(record, null);
        return;
      }
      let outcome: AttemptOutcome;
      if (payload && target?.ok) {
        record.url = target.url;
        outcome = await attemptDelivery(this.request(target.url, payload.body, target.secret, record.eventId, record.eventType));
        // Stopped mid-request: whether it arrived is unknown, so it stays pending and goes again.
        if (outcome.aborted) return;
      } else {
        // Only a damaged store gets here; retrying cannot bring the body back.
        const at = this.now();
        outcome = { ok: false, aborted: false, statusCode: null, error: 'the stored body is missing', requestedAt: at, respondedAt: at, duration: 0, headers: {} };
      }
      const firstAttemptAt = stored.firstAttemptAt ?? outcome.requestedAt;
      const attempt = record.attemptNumber + 1;
      const nextAt = payload && attempt < this.schedule.length ? Math.max(outcome.respondedAt, firstAttemptAt + this.schedule[attempt]! * 1000) : null;
      applyOutcome(record, outcome, attempt, nextAt);
      await this.store.update({ record, firstAttemptAt }, 'pending', payload?.body);
      if (record.status === 'pending') {
        this.log.warn({ delivery: id, endpoint: record.endpointId, event: record.eventId, attempt, statusCode: record.statusCode, error: record.error, nextRetryAt: record.nextRetryAt }, 'webhook delivery attempt failed');
        if (this.state === 'running') {
          keep = true;
          this.arm(id, nextAt!);
        }
      } else {
        this.settled(record, outcome);
      }
    } catch (err) {
      this.log.error({ err, delivery: id }, 'webhook outbox could not process a delivery; it stays pending until the next start');
    } finally {
      if (!keep) this.active.delete(id);
    }
  }

  /** Where and with which secret the next attempt goes: the resolver's answer, or what was stored. */
  private async target(record: DeliveryRecord, stored: string | undefined): Promise<{ ok: true; url: string; secret: string } | { ok: false; error: string }> {
    if (!this.resolveEndpoint) return stored ? { ok: true, url: record.url, secret: stored } : { ok: false, error: 'the stored secret is missing' };
    const current = await this.resolveEndpoint(record.endpointId, record.tenant);
    if (current === null) return { ok: false, error: 'the endpoint was deleted or disabled' };
    try {
      return { ok: true, url: checkEndpoint({ id: record.endpointId, ...current }, this.allowHttpHosts), secret: current.secret };
    } catch (err) {
      return { ok: false, error: `the endpoint is no longer valid: ${(err as Error).message}` };
    }
  }

  private settled(record: DeliveryRecord, outcome: AttemptOutcome | null): void {
    if (record.status === 'failed') {
      this.log.warn({ delivery: record.id, endpoint: record.endpointId, event: record.eventId, attempt: record.attemptNumber, statusCode: record.statusCode, error: record.error }, 'webhook delivery failed');
    } else {
      this.log.debug({ delivery: record.id, endpoint: record.endpointId, event: record.eventId, attempt: record.attemptNumber, duration: outcome?.duration }, 'webhook delivered');
    }
    try {
      this.onSettled?.({ ...record });
    } catch (err) {
      this.log.error({ err, delivery: record.id }, 'webhook onSettled threw');
    }
  }

  /** Deletes settled records past the retention. Errors are logged: pruning is housekeeping. */
  private prune(): Promise<void> {
    if (this.pruning) return this.pruning;
    this.pruning = (async () => {
      try {
        const deleted = await this.store.prune(this.now() - this.retentionMs);
        if (deleted > 0) this.log.info({ deleted }, 'webhook outbox pruned old deliveries');
      } catch (err) {
        this.log.warn({ err }, 'webhook outbox prune failed');
      } finally {
        this.pruning = undefined;
      }
    })();
    return this.pruning;
  }
}

function positive(n: number, name: string): number {
  if (!Number.isFinite(n) || n <= 0) throw invalid('WEBHOOK_OPTIONS_INVALID', `${name} is a positive number`);
  return n;
}

function positiveInteger(n: number, name: string): number {
  if (!Number.isSafeInteger(n) || n <= 0 || n > MAX_TIMER_MS) throw invalid('WEBHOOK_OPTIONS_INVALID', `${name} is a whole number from 1 to ${MAX_TIMER_MS}`);
  return n;
}
