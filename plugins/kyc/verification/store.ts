import { createHash, randomBytes } from 'node:crypto';
import { key, prefix, SEP, timeKey, type Batch, type PluginDb, type Table } from '../../common/store/tables.js';
import type { KycEvent, LivenessChallenge, Metadata, SessionStatus } from '../types.js';
import { awaitingDecision, TERMINAL, type StoredSession } from './states.js';
import type { Actor } from './actors.js';
import { timelineOf, type TimelineEntry } from './timeline.js';

/**
 * The sessions' tables. Every change writes the record and every index it affects in one Batch,
 * so an index never disagrees with its record:
 *
 *   ver-sessions    id -> StoredSession
 *   ver-by-org      org, createdAt, id -> the list row (status, level, subject, credential, times, metadata)
 *   ver-by-token    SHA-256(session token) -> id; the token itself is never stored
 *   ver-expiry      expiresAt, id -> id, while pending or undecided in processing (the sweeper)
 *   ver-review      processingAt, id -> organization, while a live session awaits its decision
 *   ver-issuing     id -> id, while a decided pass waits for its credential (resumed at start)
 *   ver-images      session, doc|frame, id[, n] -> the uploaded bytes
 *   ver-challenges  session -> its live liveness challenge
 *   ver-events      time, session, n, event id -> an event of a change, written with the change and deleted
 *                   once the webhooks part has queued it; what a crash left is queued at start
 *   ver-timeline    session, time, seq -> a step of the session's timeline (timeline.ts), with the change
 *   ver-sent        session, time, event id -> {id, type, createdAt}: the events sent for the session, kept
 *   ver-opened      session, reviewer, evidence id -> when that reviewer first fetched it (evidence.ts)
 *   ver-purge       final time, id -> id: a final session whose images are not deleted yet (retention.ts),
 *                   written with the move to the final state and deleted with the images
 *   ver-purge-marks 'indexed' -> when the sessions already final before ver-purge existed were indexed
 */

export interface ListRow {
  id: string;
  status: SessionStatus;
  level: 1 | 2 | 3;
  subjectDid: string | null;
  credentialId: string | null;
  createdAt: string;
  completedAt: string | null;
  /** absent from rows written before lists showed it: then read from the session */
  metadata?: Metadata;
  /** absent from rows written before lists showed the mode: then read from the session */
  sandbox?: boolean;
}

/** A list's filters: status, mode, and createdAt from and to (ms, both inclusive). */
export interface ListFilter {
  status?: SessionStatus;
  mode?: 'sandbox' | 'live';
  from?: number;
  to?: number;
  limit: number;
  offset: number;
}

export interface StoredChallenge extends LivenessChallenge {
  sessionId: string;
}

/** An event a change owes, with the id and time it is sent with, however often it is queued. */
export interface PendingEvent {
  /** its key in `ver-events` */
  key: string;
  id: string;
  createdAt: string;
  organizationId: string;
  sessionId: string;
  type: KycEvent;
  data: Record<string, unknown>;
}

/** The `ver-events` key of a change's n-th event: in the order of the changes, then of their events. */
/** An event sent for a session, as the timeline route lists it. */
export interface SentEvent {
  id: string;
  type: KycEvent;
  createdAt: string;
}

/** What caused a change: its time and who made it. */
export interface Cause {
  at: string;
  actor: Actor;
}

// a process-wide sequence, so steps and events written in the same millisecond keep their order
let seq = 0;
const nextSeq = (): string => `${String(++seq).padStart(12, '0')}${randomBytes(3).toString('hex')}`;
const timelineKey = (sessionId: string, at: string): string => key(sessionId, timeKey(Date.parse(at)), nextSeq());

export const pendingEventKey = (createdAt: string, sessionId: string, n: number, id: string): string => key(timeKey(Date.parse(createdAt)), sessionId, String(n).padStart(4, '0'), id);

const TOKEN_PREFIX = 'sess_tok_';
export const TOKEN_PATTERN = /^sess_tok_[A-Za-z0-9_-]{43}$/;

export function newSessionToken(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

export const hashToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/** The `ver-sent` key of an event: in the order the events were sent. */
const sentKey = (sessionId: string, e: { id: string; createdAt: string }): string => key(sessionId, timeKey(Date.parse(e.createdAt)), nextSeq(), e.id);

const row = (s: StoredSession): ListRow => ({
  id: s.id,
  status: s.status,
  level: s.level,
  subjectDid: s.subjectDid ?? null,
  credentialId: s.credentialId ?? null,
  createdAt: s.createdAt,
  completedAt: s.completedAt ?? null,
  metadata: s.metadata,
  sandbox: s.sandbox,
});

const expiring = (s: StoredSession): boolean => s.status === 'pending' || awaitingDecision(s);
const inReview = (s: StoredSession): boolean => awaitingDecision(s) && !s.sandbox;
const issuing = (s: StoredSession): boolean => s.status === 'processing' && s.decision !== undefined;
const isFinal = (s: StoredSession | undefined): boolean => s !== undefined && TERMINAL.has(s.status);
/** The `ver-purge` key of a session that became final at `at`: the retention runs from that time. */
export const purgeKey = (at: string, sessionId: string): string => key(timeKey(Date.parse(at)), sessionId);

/** A session due for deletion of its images, with its index key. */
export interface PurgeEntry {
  key: string;
  id: string;
}

export class SessionStore {
  readonly sessions: Table<StoredSession>;
  private readonly byOrg: Table<ListRow>;
  private readonly byToken: Table<string>;
  private readonly expiry: Table<string>;
  private readonly review: Table<string>;
  private readonly issuingIdx: Table<string>;
  private readonly images: Table<Uint8Array>;
  private readonly challenges: Table<StoredChallenge>;
  private readonly events: Table<PendingEvent>;
  private readonly timeline: Table<TimelineEntry>;
  private readonly sent: Table<SentEvent>;
  private readonly opened: Table<string>;
  private readonly purge: Table<string>;
  private readonly purgeMarks: Table<string>;

  constructor(private readonly db: PluginDb) {
    this.sessions = db.json('ver-sessions');
    this.byOrg = db.json('ver-by-org');
    this.byToken = db.json('ver-by-token');
    this.expiry = db.json('ver-expiry');
    this.review = db.json('ver-review');
    this.issuingIdx = db.json('ver-issuing');
    this.images = db.bytes('ver-images');
    this.challenges = db.json('ver-challenges');
    this.events = db.json('ver-events');
    this.timeline = db.json('ver-timeline');
    this.sent = db.json('ver-sent');
    this.opened = db.json('ver-opened');
    this.purge = db.json('ver-purge');
    this.purgeMarks = db.json('ver-purge-marks');
  }

  get(id: string): Promise<StoredSession | undefined> {
    return this.sessions.get(id);
  }

  async byTokenHash(hash: string): Promise<StoredSession | undefined> {
    const id = await this.byToken.get(hash);
    return id === undefined ? undefined : this.sessions.get(id);
  }

  challenge(sessionId: string): Promise<StoredChallenge | undefined> {
    return this.challenges.get(sessionId);
  }

  image(sessionId: string, ...parts: Array<string | number>): Promise<Uint8Array | undefined> {
    return this.images.get(key(sessionId, ...parts));
  }

  /**
   * Writes `next` (new when `prev` is undefined) with its indexes, the events the change owes
   * (and their record in the session's sent events), its timeline steps, and whatever `extra`
   * adds to the same batch (images, challenges).
   */
  async write(
    prev: StoredSession | undefined,
    next: StoredSession,
    cause: Cause,
    extra?: (b: Batch, t: { images: Table<Uint8Array>; challenges: Table<StoredChallenge> }) => void,
    events: readonly PendingEvent[] = [],
  ): Promise<void> {
    const b = this.db.batch();
    b.put(this.sessions, next.id, next);
    b.put(this.byOrg, key(next.organizationId, timeKey(Date.parse(next.createdAt)), next.id), row(next));
    if (!prev) b.put(this.byToken, next.tokenHash, next.id);
    const swap = (table: Table<string>, was: string | undefined, now: string | undefined, value: string) => {
      if (was !== undefined && was !== now) b.del(table, was);
      if (now !== undefined && was !== now) b.put(table, now, value);
    };
    const expiryKey = (s: StoredSession | undefined) => (s && expiring(s) ? key(timeKey(Date.parse(s.expiresAt)), s.id) : undefined);
    const reviewKey = (s: StoredSession | undefined) => (s && inReview(s) ? key(timeKey(Date.parse(s.processingAt ?? s.createdAt)), s.id) : undefined);
    const issuingKey = (s: StoredSession | undefined) => (s && issuing(s) ? s.id : undefined);
    swap(this.expiry, expiryKey(prev), expiryKey(next), next.id);
    swap(this.review, reviewKey(prev), reviewKey(next), next.organizationId);
    swap(this.issuingIdx, issuingKey(prev), issuingKey(next), next.id);
    // a challenge lives only while the session can still take liveness frames
    if (next.status !== 'pending' && prev?.status === 'pending') b.del(this.challenges, next.id);
    if (isFinal(next) && !isFinal(prev)) b.put(this.purge, purgeKey(cause.at, next.id), next.id);
    extra?.(b, { images: this.images, challenges: this.challenges });
    for (const e of events) {
      b.put(this.events, e.key, e);
      b.put(this.sent, sentKey(e.sessionId, e), { id: e.id, type: e.type, createdAt: e.createdAt });
    }
    for (const entry of timelineOf(prev, next, cause.at, cause.actor)) b.put(this.timeline, timelineKey(next.id, entry.at), entry);
    await b.write();
  }

  /** Adds a step that is not a change of the session record (a revocation). */
  async addTimeline(sessionId: string, entry: TimelineEntry): Promise<void> {
    await this.timeline.put(timelineKey(sessionId, entry.at), entry);
  }

  /** The session's timeline, oldest first. */
  async timelineOf(sessionId: string): Promise<TimelineEntry[]> {
    const out: TimelineEntry[] = [];
    for await (const [, e] of this.timeline.entries(prefix(sessionId))) out.push(e);
    return out;
  }

  /** Records an event sent for the session outside its changes (credential.revoked). */
  async addSent(sessionId: string, e: SentEvent): Promise<void> {
    await this.sent.put(sentKey(sessionId, e), e);
  }

  /** The events sent for the session, oldest first. */
  async sentEvents(sessionId: string): Promise<SentEvent[]> {
    const out: SentEvent[] = [];
    for await (const [, e] of this.sent.entries(prefix(sessionId))) out.push(e);
    return out;
  }

  /** Records that `reviewer` fetched the evidence `evidenceId` of the session (the first time is kept). */
  async markOpened(sessionId: string, reviewer: string, evidenceId: string, at: string): Promise<void> {
    const k = key(sessionId, reviewer, evidenceId);
    if ((await this.opened.get(k)) === undefined) await this.opened.put(k, at);
  }

  /** The evidence ids `reviewer` fetched of the session. */
  async openedBy(sessionId: string, reviewer: string): Promise<Set<string>> {
    const out = new Set<string>();
    for await (const k of this.opened.keys(prefix(sessionId, reviewer))) out.add(k.slice(k.lastIndexOf(SEP) + 1));
    return out;
  }

  /** The events owed by changes whose events were not queued yet (a crash in between), oldest first. */
  async pendingEvents(): Promise<PendingEvent[]> {
    const out: PendingEvent[] = [];
    for await (const [, e] of this.events.entries()) out.push(e);
    return out;
  }

  /** The webhooks part has queued the event: it is no longer owed. */
  eventQueued(e: PendingEvent): Promise<void> {
    return this.events.del(e.key);
  }

  /** The session's liveness frames, in the order they were submitted. */
  async frames(sessionId: string): Promise<Array<{ index: number; bytes: Uint8Array }>> {
    const out: Array<{ index: number; bytes: Uint8Array }> = [];
    for await (const [k, bytes] of this.images.entries(prefix(sessionId, 'frame'))) out.push({ index: Number(k.slice(k.lastIndexOf(SEP) + 1)), bytes });
    return out.sort((a, b) => a.index - b.index);
  }

  async putChallenge(c: StoredChallenge): Promise<void> {
    await this.challenges.put(c.sessionId, c);
  }

  /** An organization's sessions, newest first, filtered, with the total that match. The dates bound the index range. */
  async list(organizationId: string, opts: ListFilter): Promise<{ rows: ListRow[]; total: number }> {
    const rows: ListRow[] = [];
    let total = 0;
    const range = {
      gt: opts.from !== undefined ? key(organizationId, timeKey(opts.from)) : prefix(organizationId).gt,
      lt: opts.to !== undefined ? key(organizationId, timeKey(opts.to + 1)) : prefix(organizationId).lt,
    };
    for await (const [, stored] of this.byOrg.entries({ ...range, reverse: true })) {
      if (opts.status !== undefined && stored.status !== opts.status) continue;
      const r = stored.metadata && stored.sandbox !== undefined ? stored : await this.complete(stored);
      if (opts.mode !== undefined && r.sandbox !== (opts.mode === 'sandbox')) continue;
      if (total >= opts.offset && rows.length < opts.limit) rows.push(r);
      total++;
    }
    return { rows, total };
  }

  /** A row written before rows carried the metadata and the mode, completed from its session. */
  private async complete(r: ListRow): Promise<ListRow> {
    const s = await this.sessions.get(r.id);
    return { ...r, metadata: r.metadata ?? s?.metadata ?? {}, sandbox: r.sandbox ?? s?.sandbox ?? false };
  }

  /** Ids of sessions whose expiresAt is at or before `now`, oldest first. */
  async due(now: number, limit: number): Promise<string[]> {
    const ids: string[] = [];
    for await (const [, id] of this.expiry.entries({ lte: key(timeKey(now), '\uffff'), limit })) ids.push(id);
    return ids;
  }

  /** The review queue across organizations (or one), oldest first. */
  async reviewQueue(opts: { organizationId?: string; limit: number; offset: number }): Promise<{ ids: string[]; total: number }> {
    const ids: string[] = [];
    let total = 0;
    for await (const [k, org] of this.review.entries()) {
      if (opts.organizationId !== undefined && org !== opts.organizationId) continue;
      if (total >= opts.offset && ids.length < opts.limit) ids.push(k.slice(k.lastIndexOf('\x00') + 1));
      total++;
    }
    return { ids, total };
  }

  /** Sessions with a decided pass still waiting for their credential. */
  async issuingIds(): Promise<string[]> {
    const ids: string[] = [];
    for await (const id of this.issuingIdx.keys()) ids.push(id);
    return ids;
  }

  /** Final sessions that became final at or before `before` (ms) and still have their images, oldest first. */
  async purgeDue(before: number, limit: number): Promise<PurgeEntry[]> {
    const out: PurgeEntry[] = [];
    for await (const [k, id] of this.purge.entries({ lte: key(timeKey(before), '\uffff'), limit })) out.push({ key: k, id });
    return out;
  }

  /** Indexes sessions that were final before `ver-purge` existed. */
  async indexForPurge(entries: ReadonlyArray<{ at: string; id: string }>): Promise<void> {
    const b = this.db.batch();
    for (const e of entries) b.put(this.purge, purgeKey(e.at, e.id), e.id);
    await b.write();
  }

  purgeMark(): Promise<string | undefined> {
    return this.purgeMarks.get('indexed');
  }

  async setPurgeMark(at: string): Promise<void> {
    await this.purgeMarks.put('indexed', at);
  }

  /**
   * Deletes the session's images (documents and frames) and records it, in one batch: the session
   * gets evidenceDeletedAt, the timeline an evidence_deleted step, and the index entry goes.
   * A final session's record never changes otherwise, so no lock is needed against a change.
   */
  async deleteEvidence(s: StoredSession | undefined, entry: PurgeEntry, at: string): Promise<{ documents: number; frames: number }> {
    const b = this.db.batch();
    let documents = 0;
    let frames = 0;
    for await (const k of this.images.keys(prefix(entry.id))) {
      b.del(this.images, k);
      if (k.startsWith(key(entry.id, 'doc'))) documents++;
      else frames++;
    }
    if (s && s.evidenceDeletedAt === undefined) {
      b.put(this.sessions, s.id, { ...s, evidenceDeletedAt: at });
      b.put(this.timeline, timelineKey(s.id, at), { at, type: 'evidence_deleted', actor: { kind: 'system' }, detail: { documents, frames } });
    }
    b.del(this.purge, entry.key);
    await b.write();
    return { documents, frames };
  }
}
