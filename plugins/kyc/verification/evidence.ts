import { LedgerError } from '../../../node/errors.js';
import type { SessionService } from './sessions.js';
import type { StoredSession } from './states.js';
import { evidenceDeleted } from './retention.js';
import { documentView } from './views.js';

/**
 * A session's evidence as reviewers see it: every document image and every liveness frame, each
 * with an id (`doc_…` for a document, `frame_<index>` for a frame). Fetching a piece's image as a
 * reviewer records that this reviewer opened it (table `ver-opened`), durably, and a decision
 * needs every piece opened by the reviewer who decides (review.ts): a reviewer approves only a
 * face and a document they were shown. What another reviewer opened does not count.
 * Once the retention deleted a final session's images, each piece is listed with its deletedAt
 * and fetching it is a 410 EVIDENCE_DELETED (retention.ts).
 */

/** Who reads evidence: a reviewer (a member's account or the operator) or the organization's API key. */
export type EvidenceReader =
  | { kind: 'operator' }
  | { kind: 'user'; userId: string; organizationId: string; email?: string }
  | { kind: 'api-key'; organizationId: string };

export type Reviewer = Exclude<EvidenceReader, { kind: 'api-key' }>;

const FRAME_ID = /^frame_(\d{1,2})$/;
export const frameId = (index: number): string => `frame_${index}`;

/** The `ver-opened` key part of a reviewer: `operator`, or `user:<id>`. */
export const reviewerKey = (r: Reviewer): string => (r.kind === 'operator' ? 'operator' : `user:${r.userId}`);

const isReviewer = (r: EvidenceReader): r is Reviewer => r.kind !== 'api-key';

/** Every evidence id of the session: its documents, then its frames in order. */
export function evidenceIds(s: StoredSession): string[] {
  return [...s.documents.map((d) => d.id), ...Array.from({ length: s.liveness?.frames ?? 0 }, (_, i) => frameId(i))];
}

/** The session the reader may see: any for the operator, its organization's for the others; 404 otherwise. */
export async function visibleSession(sessions: SessionService, reader: EvidenceReader, sessionId: string): Promise<StoredSession> {
  if (reader.kind === 'operator') {
    const s = await sessions.store.get(sessionId);
    if (!s) throw new LedgerError('SESSION_NOT_FOUND', 'no such verification session', 'not_found');
    return s;
  }
  return sessions.resolve({ organizationId: reader.organizationId, id: sessionId });
}

export class Evidence {
  constructor(private readonly sessions: SessionService) {}

  session(reader: EvidenceReader, sessionId: string): Promise<StoredSession> {
    return visibleSession(this.sessions, reader, sessionId);
  }

  /** The evidence list: documents (with their checks and MRZ results) and the liveness frames; for a reviewer, what they opened. */
  async list(reader: EvidenceReader, sessionId: string): Promise<Record<string, unknown>> {
    const s = await this.session(reader, sessionId);
    const frames = await this.sessions.frames(s.id);
    const opened = isReviewer(reader) ? await this.sessions.store.openedBy(s.id, reviewerKey(reader)) : undefined;
    const mark = (id: string) => (opened ? { opened: opened.has(id) } : {});
    const deletedAt = s.evidenceDeletedAt ?? null;
    // once deleted, the frames are listed from the liveness record's count: their bytes are gone
    const frameRows = deletedAt
      ? Array.from({ length: s.liveness?.frames ?? 0 }, (_, index) => ({ evidenceId: frameId(index), index, mediaType: null, bytes: null, deletedAt, ...mark(frameId(index)) }))
      : frames.map((f) => ({ evidenceId: frameId(f.index), index: f.index, mediaType: f.mediaType, bytes: f.bytes.length, deletedAt, ...mark(frameId(f.index)) }));
    const out: Record<string, unknown> = {
      sessionId: s.id,
      status: s.status,
      evidenceDeletedAt: deletedAt,
      documents: s.documents.map((d) => ({ ...documentView(d), evidenceId: d.id, deletedAt, ...mark(d.id) })),
      liveness: s.liveness ? { status: s.liveness.status, score: s.liveness.score, completedAt: s.liveness.completedAt, frames: frameRows } : null,
    };
    if (opened) out.unopened = evidenceIds(s).filter((id) => !opened.has(id));
    return out;
  }

  /** A piece's image; fetched by a reviewer, it counts as opened by them. */
  async image(reader: EvidenceReader, sessionId: string, evidenceId: string): Promise<{ mediaType: string; bytes: Uint8Array }> {
    const s = await this.session(reader, sessionId);
    const frame = FRAME_ID.exec(evidenceId);
    const known = frame ? Number(frame[1]) < (s.liveness?.frames ?? 0) : s.documents.some((d) => d.id === evidenceId);
    if (known && s.evidenceDeletedAt !== undefined) throw evidenceDeleted(s.evidenceDeletedAt);
    let image: { mediaType: string; bytes: Uint8Array } | undefined;
    if (frame) image = (await this.sessions.frames(s.id)).find((f) => f.index === Number(frame[1]));
    else if (s.documents.some((d) => d.id === evidenceId)) image = await this.sessions.documentImage(s.id, evidenceId);
    if (!image) throw new LedgerError('EVIDENCE_NOT_FOUND', `no evidence ${evidenceId.slice(0, 80)} in this session`, 'not_found');
    if (isReviewer(reader)) await this.sessions.store.markOpened(s.id, reviewerKey(reader), evidenceId, new Date(this.sessions.now()).toISOString());
    return image;
  }

  /** The session's evidence ids the reviewer has not fetched yet. */
  async unopened(reviewer: Reviewer, s: StoredSession): Promise<string[]> {
    const opened = await this.sessions.store.openedBy(s.id, reviewerKey(reviewer));
    return evidenceIds(s).filter((id) => !opened.has(id));
  }
}
