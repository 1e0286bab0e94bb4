import type { IssuedCredential } from '../services.js';
import { credentialIssued, verificationCompleted, verificationExpired, verificationFailed } from '../webhooks/payloads.js';
import { DOCUMENT_TYPES, type KycEvent, type Liveness, type SessionDocument, type VerificationSession } from '../types.js';
import { outcomeOf, sandboxDecision, SANDBOX_REJECTION } from './sandbox.js';
import type { DeciderActor, ReviewRecord } from './actors.js';

/**
 * The verification session's state machine (seed 001 A, "States and transitions"): a pure
 * function from (session, event) to the next session and the effects to carry out, or a typed
 * refusal. No I/O and no clock: the time comes with the event.
 *
 * Decisions where the seed is silent (docs/kyc.md, "Verification sessions"):
 * - Steps per level: 1 = document; 2 = document + liveness; 3 = document + liveness + address
 *   (an upload of type `address_proof`, side front, accepted only at level 3).
 * - The document step is complete when an identity document is uploaded with `final=true`; the
 *   liveness step when frames are accepted; the address step when an address proof is uploaded.
 * - A session enters `processing` when every step of its level is complete, on either route:
 *   so `final=true` triggers processing at once at level 1, and a level-2 session whose final
 *   document came first enters processing when its liveness is submitted.
 * - Entering `processing` moves expiresAt to now + reviewTtl.
 * - Sandbox sessions are decided at once on entering processing (sandbox.ts). Live sessions: a
 *   document the automatic checks rejected fails the session with that document's reason;
 *   otherwise the session awaits a decision (the provider, or the operator review queue). Live
 *   mode never passes by itself.
 * - A pass whose subjectDid is a did:ledger DID of this network stays `processing` (the decision
 *   recorded) until the issuer reports the credential; then `completed` with credentialId, and
 *   events verification.completed then credential.issued. A pass with no subjectDid, or with any
 *   other DID (accepted at creation), completes at once without a credential.
 * - A decided pass no longer expires: the issuer finishes it durably.
 * - `pending` sessions expire at expiresAt (reason session_ttl), undecided `processing` ones at
 *   theirs (reason review_ttl); the sandbox outcome timeout expires with reason timeout.
 * - Terminal states (completed, failed, expired) never change. Uploads to a session that is not
 *   pending are refused with SESSION_NOT_PENDING (409).
 * - A session takes at most MAX_DOCUMENTS uploads; liveness is submitted once.
 */

export const UPLOAD_TYPES = [...DOCUMENT_TYPES, 'address_proof'] as const;
export type UploadType = (typeof UPLOAD_TYPES)[number];
export type Step = 'document' | 'liveness' | 'address';
export const MAX_DOCUMENTS = 20;

export interface StoredDocument extends Omit<SessionDocument, 'type'> {
  type: UploadType;
}

export type Decider = DeciderActor['kind'];

/** The stored session: the record of types.ts plus what only this part reads. */
export interface StoredSession extends Omit<VerificationSession, 'documents'> {
  documents: StoredDocument[];
  /** internal: a pass was decided and the credential is being issued */
  decision?: { outcome: 'pass'; by: Decider; at: string };
  /** internal: when the session entered processing */
  processingAt?: string;
  /** the decision, who made it and when (shown in the full view) */
  review?: ReviewRecord;
  /** when the retention deleted the session's images (retention.ts); the record itself is kept */
  evidenceDeletedAt?: string;
}

export type SessionEvent =
  | { type: 'upload'; document: StoredDocument; final: boolean }
  | { type: 'liveness'; liveness: Liveness }
  | { type: 'decide'; by: Decider; outcome: 'pass'; score?: number; decidedBy?: DeciderActor }
  | { type: 'decide'; by: Decider; outcome: 'fail'; reason: string; message: string; score?: number; decidedBy?: DeciderActor }
  | { type: 'credential'; credential: IssuedCredential }
  | { type: 'expire'; reason: 'session_ttl' | 'review_ttl' | 'timeout' };

export type Effect =
  | { type: 'emit'; event: KycEvent; data: Record<string, unknown> }
  /** ask the issuer for the credential (issuance.requestCredential) */
  | { type: 'request_credential' }
  /** a live session awaits its decision: ask the provider, if one is configured */
  | { type: 'await_decision' };

export interface Refusal {
  ok: false;
  code: string;
  status: 400 | 409;
  message: string;
}

export type Transition = { ok: true; session: StoredSession; effects: Effect[] } | Refusal;

export interface Rules {
  /** the event's time, ms */
  at: number;
  reviewTtlMs: number;
  /** the chain's network name: subjects `did:ledger:<network>:…` get a credential */
  network: string;
}

export const TERMINAL = new Set(['completed', 'failed', 'expired']);

export function stepsFor(level: 1 | 2 | 3): Step[] {
  return level === 1 ? ['document'] : level === 2 ? ['document', 'liveness'] : ['document', 'liveness', 'address'];
}

export const stepDone = (s: StoredSession, step: Step): boolean => s.steps[step];

/** The first step still to do while pending; null otherwise. */
export function currentStep(s: StoredSession): Step | null {
  if (s.status !== 'pending') return null;
  return stepsFor(s.level).find((step) => !s.steps[step]) ?? null;
}

/** Whether the session's subject gets a credential on this chain. */
export const credentialSubject = (s: Pick<StoredSession, 'subjectDid'>, network: string): boolean => s.subjectDid?.startsWith(`did:ledger:${network}:`) ?? false;

/** A live session waiting for its decision (the review queue). */
export const awaitingDecision = (s: StoredSession): boolean => s.status === 'processing' && !s.decision;

const refuse = (code: string, message: string, status: 400 | 409 = 409): Refusal => ({ ok: false, code, status, message });

const iso = (ms: number): string => new Date(ms).toISOString();

export function transition(session: StoredSession, event: SessionEvent, rules: Rules): Transition {
  if (TERMINAL.has(session.status)) {
    if (event.type === 'upload' || event.type === 'liveness') return refuse('SESSION_NOT_PENDING', `the session is ${session.status}; it takes no more uploads`);
    return refuse('SESSION_FINISHED', `the session is ${session.status}, a final state`);
  }
  switch (event.type) {
    case 'upload':
      return upload(session, event.document, event.final, rules);
    case 'liveness':
      return liveness(session, event.liveness, rules);
    case 'decide':
      if (!awaitingDecision(session)) return refuse('SESSION_NOT_IN_REVIEW', session.status === 'pending' ? 'the session is still pending: its steps are not complete' : 'the session is already decided');
      return decide({ ...session }, event, rules, []);
    case 'credential':
      return credential(session, event.credential, rules);
    case 'expire':
      return expire(session, event.reason, rules);
  }
}

function upload(s: StoredSession, document: StoredDocument, final: boolean, rules: Rules): Transition {
  if (s.status !== 'pending') return refuse('SESSION_NOT_PENDING', `the session is ${s.status}; documents are accepted only while it is pending`);
  if (s.documents.length >= MAX_DOCUMENTS) return refuse('DOCUMENT_LIMIT', `a session takes at most ${MAX_DOCUMENTS} documents`);
  const next: StoredSession = { ...s, documents: [...s.documents, document], steps: { ...s.steps } };
  if (document.type === 'address_proof') {
    if (s.level !== 3) return refuse('ADDRESS_PROOF_NOT_IN_LEVEL', `an address proof is part of level 3 only; this session is level ${s.level}`, 400);
    if (document.side !== 'front') return refuse('ADDRESS_PROOF_SIDE', 'an address proof is one page: side must be front', 400);
    next.steps.address = true;
  } else if (final) {
    if (s.sandbox && outcomeOf(s) === 'document_rejected') {
      const rejected = { ...document, status: 'rejected' as const, reason: SANDBOX_REJECTION.reason };
      next.documents[next.documents.length - 1] = rejected;
      return fail(next, SANDBOX_REJECTION.reason, SANDBOX_REJECTION.message, []);
    }
    next.steps.document = true;
  }
  return advance(next, rules);
}

function liveness(s: StoredSession, result: Liveness, rules: Rules): Transition {
  if (s.status !== 'pending') return refuse('SESSION_NOT_PENDING', `the session is ${s.status}; liveness is accepted only while it is pending`);
  if (s.level < 2) return refuse('LIVENESS_NOT_IN_LEVEL', 'a level 1 session has no liveness step');
  if (s.steps.liveness) return refuse('LIVENESS_ALREADY_SUBMITTED', 'the liveness step is already complete');
  return advance({ ...s, liveness: result, steps: { ...s.steps, liveness: true } }, rules);
}

/** Enters processing when every step is complete; sandbox sessions are then decided at once. */
function advance(s: StoredSession, rules: Rules): Transition {
  if (stepsFor(s.level).some((step) => !s.steps[step])) return { ok: true, session: s, effects: [] };
  const next: StoredSession = { ...s, status: 'processing', processingAt: iso(rules.at), expiresAt: iso(rules.at + rules.reviewTtlMs) };
  if (s.sandbox) {
    const d = sandboxDecision(outcomeOf(s), s.level);
    if (d.kind === 'expire') return expire(next, d.reason, rules);
    if (d.kind === 'fail') return decide(next, { type: 'decide', by: 'sandbox', outcome: 'fail', reason: d.reason, message: d.message }, rules, []);
    return decide(next, { type: 'decide', by: 'sandbox', outcome: 'pass' }, rules, []);
  }
  const rejected = next.documents.find((d) => d.status === 'rejected');
  if (rejected) return fail(next, rejected.reason ?? 'document_rejected', `the ${rejected.type} (${rejected.side}) failed the automatic checks: ${rejected.reason ?? 'rejected'}`, []);
  return { ok: true, session: next, effects: [{ type: 'await_decision' }] };
}

function decide(s: StoredSession, event: Extract<SessionEvent, { type: 'decide' }>, rules: Rules, effects: Effect[]): Transition {
  const decidedBy = event.decidedBy ?? ({ kind: event.by } as DeciderActor);
  if (event.outcome === 'fail') {
    const liveness = s.liveness?.status === 'pending_review' ? { ...s.liveness, status: 'failed' as const, score: event.score ?? null } : s.liveness;
    const review: ReviewRecord = { outcome: 'fail', reason: event.reason, message: event.message, decidedBy, decidedAt: iso(rules.at) };
    return fail({ ...s, ...(liveness ? { liveness } : {}), review }, event.reason, event.message, effects);
  }
  const documents = s.documents.map((d) => (d.status === 'uploaded' ? { ...d, status: 'verified' as const } : d));
  const liveness = s.liveness?.status === 'pending_review' ? { ...s.liveness, status: 'passed' as const, score: event.score ?? null } : s.liveness;
  const review: ReviewRecord = { outcome: 'pass', decidedBy, decidedAt: iso(rules.at) };
  const next: StoredSession = { ...s, documents, ...(liveness ? { liveness } : {}), decision: { outcome: 'pass', by: event.by, at: iso(rules.at) }, review };
  if (credentialSubject(s, rules.network)) return { ok: true, session: next, effects: [...effects, { type: 'request_credential' }] };
  const done: StoredSession = { ...next, status: 'completed', completedAt: iso(rules.at) };
  return { ok: true, session: done, effects: [...effects, emitCompleted(done)] };
}

function credential(s: StoredSession, c: IssuedCredential, rules: Rules): Transition {
  if (s.status !== 'processing' || !s.decision) return refuse('CREDENTIAL_NOT_EXPECTED', `the session is ${s.status} and awaits no credential`);
  if (c.subjectDid !== s.subjectDid) return refuse('CREDENTIAL_SUBJECT_MISMATCH', `the credential's subject ${c.subjectDid} is not the session's ${s.subjectDid}`, 400);
  const done: StoredSession = { ...s, status: 'completed', completedAt: iso(rules.at), credentialId: c.credentialId, credentialOfferUri: c.credentialOfferUri };
  return { ok: true, session: done, effects: [emitCompleted(done), { type: 'emit', event: 'credential.issued', data: { ...credentialIssued(c) } }] };
}

function expire(s: StoredSession, reason: 'session_ttl' | 'review_ttl' | 'timeout', rules: Rules): Transition {
  if (reason !== 'timeout') {
    if (s.status === 'processing' && s.decision) return refuse('SESSION_DECIDED', 'a decided session is finished by the issuer and does not expire');
    if (rules.at < Date.parse(s.expiresAt)) return refuse('NOT_DUE', `the session expires at ${s.expiresAt}`);
  }
  const message = reason === 'timeout' ? 'the verification timed out (sandbox outcome timeout)' : reason === 'session_ttl' ? 'the session was not completed before it expired' : 'no decision was made before the review deadline';
  const next: StoredSession = { ...s, status: 'expired', reason, message };
  return { ok: true, session: next, effects: [{ type: 'emit', event: 'verification.expired', data: { ...verificationExpired(s, reason) } }] };
}

function fail(s: StoredSession, reason: string, message: string, effects: Effect[]): Transition {
  const next: StoredSession = { ...s, status: 'failed', reason, message };
  return {
    ok: true,
    session: next,
    effects: [...effects, { type: 'emit', event: 'verification.failed', data: { ...verificationFailed(s, reason, message) } }],
  };
}

function emitCompleted(s: StoredSession): Effect {
  return { type: 'emit', event: 'verification.completed', data: { ...verificationCompleted(s, s.credentialId ?? null) } };
}
