import type { Actor } from './actors.js';
import type { StoredSession } from './states.js';

/**
 * The record of each change of a session, with its time and actor (docs/kyc.md, "Timeline"). The timeline
 * is derived from the session before and after a change, so every route that changes a session
 * records its steps the same way, in the change's own batch.
 */

export const TIMELINE_TYPES = [
  'created',
  'document_uploaded',
  'liveness_submitted',
  'processing',
  'decided',
  'completed',
  'failed',
  'expired',
  'credential_issued',
  'credential_revoked',
  'evidence_deleted',
] as const;
export type TimelineType = (typeof TIMELINE_TYPES)[number];

export interface TimelineEntry {
  at: string;
  type: TimelineType;
  actor: Actor;
  /** what the step names: a document's id, type, side and status; a reason; a credential id */
  detail?: Record<string, string | number | null>;
}

/** The entries a change from `prev` (undefined: created) to `next` makes, in the order they happened. */
export function timelineOf(prev: StoredSession | undefined, next: StoredSession, at: string, actor: Actor): TimelineEntry[] {
  const out: TimelineEntry[] = [];
  const add = (type: TimelineType, detail?: TimelineEntry['detail']) => out.push({ at, type, actor, ...(detail ? { detail } : {}) });
  if (!prev) add('created', { level: next.level, mode: next.sandbox ? 'sandbox' : 'live' });
  const known = new Set(prev?.documents.map((d) => d.id) ?? []);
  for (const d of next.documents) {
    if (!known.has(d.id)) add('document_uploaded', { documentId: d.id, documentType: d.type, side: d.side, status: d.status, reason: d.reason ?? null });
  }
  if (next.liveness && !prev?.liveness) add('liveness_submitted', { frames: next.liveness.frames });
  if (next.processingAt && !prev?.processingAt) add('processing');
  if (next.review && !prev?.review) add('decided', { outcome: next.review.outcome, reason: next.review.reason ?? null });
  if (next.status !== prev?.status) {
    if (next.status === 'completed') add('completed');
    if (next.status === 'failed') add('failed', { reason: next.reason ?? null });
    if (next.status === 'expired') add('expired', { reason: next.reason ?? null });
  }
  if (next.credentialId && !prev?.credentialId) add('credential_issued', { credentialId: next.credentialId });
  return out;
}
