/**
 * The relay's storage contract. The protocol and operator code see only these interfaces, so a
 * backend for several relay instances (Postgres for records, Redis for queues and counters) can
 * replace the embedded LevelDB one without touching them. Every write method resolves only once
 * its data is durable: the wire answers 2xx after that, never before.
 */

export const MEDIATION_STATES = ['requested', 'granted', 'denied', 'revoked'] as const;
export type MediationState = (typeof MEDIATION_STATES)[number];

export interface Mediation {
  id: string;
  tenantId: string;
  /** the agent's DID: the sender of mediate-request */
  recipientDid: string;
  state: MediationState;
  /** the reason given with a deny or a revoke */
  reason: string | null;
  /** the policy that gated the request, and what it said */
  gate: { policy: string; state: 'pass' | 'blocked' } | null;
  createdAt: number;
  updatedAt: number;
  grantedAt: number | null;
}

export interface KeylistEntry {
  /** a DID (or DID URL) the agent receives messages for */
  key: string;
  mediationId: string;
  addedAt: number;
}

export const MESSAGE_STATES = ['queued', 'live-delivered', 'delivered', 'acknowledged', 'expired', 'failed'] as const;
export type MessageState = (typeof MESSAGE_STATES)[number];

export const MESSAGE_PROTOCOLS = ['forward', 'pickup', 'coordinate-mediation'] as const;
export type MessageProtocol = (typeof MESSAGE_PROTOCOLS)[number];

/** A message the relay holds for a recipient; its body (the opaque attached envelope) is stored apart. */
export interface MessageRecord {
  id: string;
  tenantId: string;
  mediationId: string;
  /** the `next` of the forward: a key of the mediation's keylist */
  recipient: string;
  /** the forward's sender when it was authcrypted, else null */
  sender: string | null;
  /** how it last moved: `forward` while queued, `pickup` once delivered */
  protocol: MessageProtocol;
  state: MessageState;
  size: number;
  receivedAt: number;
  deliveredAt: number | null;
  acknowledgedAt: number | null;
  /** when the retention window ends; the sweeper expires the message then */
  expiresAt: number;
  /** set for `failed` and `expired` */
  reason: string | null;
}

export interface NewMessage {
  tenantId: string;
  mediationId: string;
  recipient: string;
  sender: string | null;
  size: number;
  expiresAt: number;
}

export interface MessageFilter {
  tenantId: string;
  state?: MessageState;
  protocol?: MessageProtocol;
  recipient?: string;
  limit: number;
  offset: number;
}

export interface MediationRepo {
  get(id: string): Promise<Mediation | undefined>;
  byRecipient(recipientDid: string): Promise<Mediation | undefined>;
  list(tenantId: string): Promise<Mediation[]>;
  /** writes the record (create or update) */
  put(m: Mediation): Promise<void>;
  /** the mediation that routes `key`, if the key is in a keylist */
  byKey(key: string): Promise<KeylistEntry | undefined>;
  keylist(mediationId: string, opts?: { offset?: number; limit?: number }): Promise<{ keys: KeylistEntry[]; total: number }>;
  /** adds and removes keys in one atomic write; a key already in another keylist is refused by the caller */
  updateKeys(mediationId: string, add: readonly string[], remove: readonly string[], at: number): Promise<void>;
}

export interface MessageQueue {
  /** stores the record and its body durably, then resolves */
  enqueue(msg: NewMessage, body: Uint8Array, at: number): Promise<MessageRecord>;
  get(id: string): Promise<MessageRecord | undefined>;
  /** the records of `ids` in one read, in their order, undefined for an unknown id */
  getMany(ids: readonly string[]): Promise<Array<MessageRecord | undefined>>;
  body(id: string): Promise<Uint8Array | undefined>;
  /** messages not yet acknowledged, expired or failed, oldest first; `after` skips ids up to it (ids sort by arrival) */
  pending(recipients: readonly string[], limit: number, after?: string): Promise<MessageRecord[]>;
  /** how many messages are pending for each of the recipients */
  countPending(recipients: readonly string[]): Promise<number>;
  /** records a delivery (by pickup or live); only pending messages move */
  markDelivered(ids: readonly string[], state: 'delivered' | 'live-delivered', at: number): Promise<void>;
  /**
   * Acknowledges the pending messages among `ids` that belong to `recipients`; returns their ids.
   * An acknowledged message is never delivered again. `purge` drops its body at once.
   */
  acknowledge(ids: readonly string[], recipients: readonly string[], at: number, purge: boolean): Promise<string[]>;
  /** moves every pending message of the recipients to `failed` (mediation revoked, DID deactivated) */
  fail(recipients: readonly string[], reason: string, at: number): Promise<MessageRecord[]>;
  /** expires pending messages whose window ended before `now`, and drops stored bodies past it; returns the expired */
  expire(now: number, max: number): Promise<MessageRecord[]>;
  /**
   * Deletes at most `max` messages in a final state (acknowledged, expired, failed) whose
   * `expiresAt` is before `before`: the record, its body if still stored, every index entry that
   * refers to it and its place in the state counts, in one atomic write. Pending messages are
   * never deleted. Returns how many were; the caller calls again while it returns `max`.
   */
  prune(before: number, max: number): Promise<number>;
  list(filter: MessageFilter): Promise<{ items: MessageRecord[]; total: number }>;
  /** counts per state for one tenant */
  stateCounts(tenantId: string): Promise<Record<MessageState, number>>;
}

/** Small per-tenant JSON documents: settings, policies, API keys, webhook configuration, notification channels. */
export interface DocumentRepo {
  get<T>(tenantId: string, kind: string, id: string): Promise<T | undefined>;
  list<T>(tenantId: string, kind: string): Promise<T[]>;
  put(tenantId: string, kind: string, id: string, value: unknown): Promise<void>;
  delete(tenantId: string, kind: string, id: string): Promise<void>;
  /** a global lookup key (an API key's hash) to a tenant's document */
  index(name: string, key: string): Promise<{ tenantId: string; id: string } | undefined>;
  putIndex(name: string, key: string, target: { tenantId: string; id: string } | null): Promise<void>;
}

export interface LogEntry {
  id: string;
  tenantId: string;
  at: number;
  level: 'info' | 'warn' | 'error';
  message: string;
  recipient: string | null;
}

export interface DeliveryLog {
  append(entries: readonly Omit<LogEntry, 'id'>[]): Promise<void>;
  /** newest first */
  list(tenantId: string, opts: { recipient?: string; limit: number }): Promise<LogEntry[]>;
  prune(before: number): Promise<number>;
}

/** Per-minute counters for the throughput series. */
export interface Counters {
  add(tenantId: string, name: string, at: number, n?: number): void;
  /** buckets of `bucketMs` from `from` to `to`, summed; includes counts not yet flushed */
  series(tenantId: string, name: string, from: number, to: number, bucketMs: number): Promise<number[]>;
  flush(): Promise<void>;
}

export interface RelayStore {
  /** `leveldb` or `postgres`, as health reports it */
  readonly backend: string;
  readonly mediations: MediationRepo;
  readonly messages: MessageQueue;
  readonly documents: DocumentRepo;
  readonly log: DeliveryLog;
  readonly counters: Counters;
  /**
   * The relay's own secrets (mediator key seed, session secret); created once and kept, sealed
   * under the service-key secret (secrets.ts). SERVICE_KEY_SECRET_WRONG when the stored one does
   * not open: nothing is made in its place.
   */
  secret(name: string, create: () => Uint8Array): Promise<Uint8Array>;
  close(): Promise<void>;
}
