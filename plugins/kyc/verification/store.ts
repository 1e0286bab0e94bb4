import { createHash, randomBytes } from 'node:crypto';
import { key, prefix, timeKey, type Batch, type KycDb, type Table } from '../store/tables.js';
import type { LivenessChallenge, SessionStatus } from '../types.js';
import { awaitingDecision, type StoredSession } from './states.js';

/**
 * The sessions' tables. Every change writes the record and every index it affects in one Batch,
 * so an index never disagrees with its record:
 *
 *   ver-sessions    id -> StoredSession
 *   ver-by-org      org, createdAt, id -> the list row (status, level, subject, credential, times)
 *   ver-by-token    SHA-256(session token) -> id; the token itself is never stored
 *   ver-expiry      expiresAt, id -> id, while pending or undecided in processing (the sweeper)
 *   ver-review      processingAt, id -> organization, while a live session awaits its decision
 *   ver-issuing     id -> id, while a decided pass waits for its credential (resumed at start)
 *   ver-images      session, doc|frame, id[, n] -> the uploaded bytes
 *   ver-challenges  session -> its live liveness challenge
 */

export interface ListRow {
  id: string;
  status: SessionStatus;
  level: 1 | 2 | 3;
  subjectDid: string | null;
  credentialId: string | null;
  createdAt: string;
  completedAt: string | null;
}

export interface StoredChallenge extends LivenessChallenge {
  sessionId: string;
}

const TOKEN_PREFIX = 'sess_tok_';
export const TOKEN_PATTERN = /^sess_tok_[A-Za-z0-9_-]{43}$/;

export function newSessionToken(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

export const hashToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

const row = (s: StoredSession): ListRow => ({
  id: s.id,
  status: s.status,
  level: s.level,
  subjectDid: s.subjectDid ?? null,
  credentialId: s.credentialId ?? null,
  createdAt: s.createdAt,
  completedAt: s.completedAt ?? null,
});

const expiring = (s: StoredSession): boolean => s.status === 'pending' || awaitingDecision(s);
const inReview = (s: StoredSession): boolean => awaitingDecision(s) && !s.sandbox;
const issuing = (s: StoredSession): boolean => s.status === 'processing' && s.decision !== undefined;

export class SessionStore {
  readonly sessions: Table<StoredSession>;
  private readonly byOrg: Table<ListRow>;
  private readonly byToken: Table<string>;
  private readonly expiry: Table<string>;
  private readonly review: Table<string>;
  private readonly issuingIdx: Table<string>;
  private readonly images: Table<Uint8Array>;
  private readonly challenges: Table<StoredChallenge>;

  constructor(private readonly db: KycDb) {
    this.sessions = db.json('ver-sessions');
    this.byOrg = db.json('ver-by-org');
    this.byToken = db.json('ver-by-token');
    this.expiry = db.json('ver-expiry');
    this.review = db.json('ver-review');
    this.issuingIdx = db.json('ver-issuing');
    this.images = db.bytes('ver-images');
    this.challenges = db.json('ver-challenges');
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
   * Writes `next` (new when `prev` is undefined) with its indexes, and whatever `extra` adds to
   * the same batch (images, challenges).
   */
  async write(prev: StoredSession | undefined, next: StoredSession, extra?: (b: Batch, t: { images: Table<Uint8Array>; challenges: Table<StoredChallenge> }) => void): Promise<void> {
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
    extra?.(b, { images: this.images, challenges: this.challenges });
    await b.write();
  }

  async putChallenge(c: StoredChallenge): Promise<void> {
    await this.challenges.put(c.sessionId, c);
  }

  /** An organization's sessions, newest first, optionally of one status, with the total that match. */
  async list(organizationId: string, opts: { status?: SessionStatus; limit: number; offset: number }): Promise<{ rows: ListRow[]; total: number }> {
    const rows: ListRow[] = [];
    let total = 0;
    for await (const [, r] of this.byOrg.entries({ ...prefix(organizationId), reverse: true })) {
      if (opts.status !== undefined && r.status !== opts.status) continue;
      if (total >= opts.offset && rows.length < opts.limit) rows.push(r);
      total++;
    }
    return { rows, total };
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
}
