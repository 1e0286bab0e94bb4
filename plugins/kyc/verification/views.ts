import type { Organization } from '../types.js';
import type { ListRow } from './store.js';
import { currentStep, stepsFor, type StoredDocument, type StoredSession } from './states.js';

/**
 * What the routes show of a session. Never shown: the token hash, the key that created it, the
 * step marks and the internal decision record. The session token appears only in the creation
 * answer (sessions.ts adds it there).
 */

export function documentView(d: StoredDocument): Record<string, unknown> {
  return {
    id: d.id,
    type: d.type,
    side: d.side,
    status: d.status,
    ...(d.reason !== undefined ? { reason: d.reason } : {}),
    extractedData: d.extractedData,
    checks: d.checks,
    createdAt: d.createdAt,
  };
}

export function sessionView(s: StoredSession): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: s.id,
    organizationId: s.organizationId,
    status: s.status,
    level: s.level,
    sandbox: s.sandbox,
  };
  if (s.sandboxOutcome !== undefined) out.sandboxOutcome = s.sandboxOutcome;
  if (s.subjectDid !== undefined) out.subjectDid = s.subjectDid;
  if (s.redirectUrl !== undefined) out.redirectUrl = s.redirectUrl;
  out.metadata = s.metadata;
  out.createdAt = s.createdAt;
  out.expiresAt = s.expiresAt;
  if (s.completedAt !== undefined) out.completedAt = s.completedAt;
  out.documents = s.documents.map(documentView);
  if (s.liveness !== undefined) out.liveness = { status: s.liveness.status, score: s.liveness.score, completedAt: s.liveness.completedAt };
  if (s.credentialId !== undefined) out.credentialId = s.credentialId;
  if (s.credentialOfferUri !== undefined) out.credentialOfferUri = s.credentialOfferUri;
  if (s.reason !== undefined) out.reason = s.reason;
  if (s.message !== undefined) out.message = s.message;
  if (s.review !== undefined) out.review = s.review;
  if (s.evidenceDeletedAt !== undefined) out.evidenceDeletedAt = s.evidenceDeletedAt;
  return out;
}

export function listView(r: ListRow): Record<string, unknown> {
  return { id: r.id, status: r.status, level: r.level, sandbox: r.sandbox ?? false, subjectDid: r.subjectDid, credentialId: r.credentialId, createdAt: r.createdAt, completedAt: r.completedAt, metadata: r.metadata ?? {} };
}

const BRAND_COLOR = /^#[0-9a-fA-F]{6}$/;
const BRAND_LOGO = /^data:image\/(png|jpeg);base64,[A-Za-z0-9+/]+={0,2}$/;

/**
 * The hosted page's view (session-token routes): enough to drive the steps, nothing internal;
 * the organization's name, and its logo and colour when they have the shapes the page can show.
 */
export function hostedView(s: StoredSession, org: Pick<Organization, 'name' | 'branding'> | undefined, evidenceRetentionDays: number | null): Record<string, unknown> {
  const organizationName = org?.name ?? '';
  const { color, logo } = org?.branding ?? {};
  const out: Record<string, unknown> = {
    id: s.id,
    status: s.status,
    level: s.level,
    organizationName,
    organization: {
      name: organizationName,
      ...(logo !== undefined && BRAND_LOGO.test(logo) ? { logo } : {}),
      ...(color !== undefined && BRAND_COLOR.test(color) ? { color } : {}),
    },
    steps: stepsFor(s.level),
    currentStep: currentStep(s),
    completedSteps: stepsFor(s.level).filter((step) => s.steps[step]),
    expiresAt: s.expiresAt,
    // what the consent notice says of the photos: deleted that many days after the decision, or kept (null)
    evidenceRetentionDays,
  };
  if (s.redirectUrl !== undefined) out.redirectUrl = s.redirectUrl;
  if (s.credentialOfferUri !== undefined) out.credentialOfferUri = s.credentialOfferUri;
  if (s.status === 'failed' || s.status === 'expired') {
    if (s.reason !== undefined) out.reason = s.reason;
    if (s.message !== undefined) out.message = s.message;
  }
  return out;
}

/** A review queue entry: what an operator needs to decide, across organizations. */
export function reviewView(s: StoredSession): Record<string, unknown> {
  return { ...sessionView(s), processingAt: s.processingAt ?? null };
}
