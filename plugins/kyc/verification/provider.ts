import { LedgerError } from '../../../node/errors.js';
import { signWebhook, SIGNATURE_HEADER } from '../../common/webhooks/signature.js';
import type { StoredDocument, StoredSession } from './states.js';

/**
 * Who decides a live session once its automatic checks pass. The default is nobody: the session
 * waits in the operator review queue (review.ts). A configured provider
 * (`plugins.kyc.verificationProvider`) gets the session, its document images and its liveness
 * frames, and answers pass, fail, or review (leave it to a reviewer). An error or an answer that is not one of
 * those leaves the session in the review queue: never a pass by default.
 */

export type ProviderDecision = { outcome: 'pass' | 'fail'; reason?: string; message?: string; score?: number };

export interface ProviderDocument {
  document: StoredDocument;
  mediaType: string;
  bytes: Uint8Array;
}

/** A liveness frame as submitted, in order. */
export interface ProviderFrame {
  index: number;
  mediaType: string;
  bytes: Uint8Array;
}

export interface VerificationProvider {
  decide(session: StoredSession, documents: ProviderDocument[], frames: ProviderFrame[]): Promise<ProviderDecision | 'review'>;
}

/** The default: every live session goes to the review queue. */
export const reviewQueueProvider: VerificationProvider = {
  decide: async () => 'review',
};

const base64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');

const REASON = /^[a-z][a-z0-9_]{0,63}$/;
const MAX_ANSWER_BYTES = 64 * 1024;

/** Reads a provider's answer strictly: anything else is an error (and the session stays in review). */
export function parseProviderAnswer(value: unknown): ProviderDecision | 'review' {
  const bad = (why: string) => new LedgerError('PROVIDER_ANSWER_INVALID', `the verification provider's answer ${why}`, 'internal');
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw bad('is not a JSON object');
  const a = value as Record<string, unknown>;
  for (const k of Object.keys(a)) if (!['outcome', 'reason', 'message', 'score'].includes(k)) throw bad(`has an unknown field ${k}`);
  if (a.outcome === 'review') return 'review';
  if (a.outcome !== 'pass' && a.outcome !== 'fail') throw bad('needs outcome pass, fail or review');
  const out: ProviderDecision = { outcome: a.outcome };
  if (a.reason !== undefined) {
    if (typeof a.reason !== 'string' || !REASON.test(a.reason)) throw bad('has a reason that is not a lowercase code');
    out.reason = a.reason;
  }
  if (a.message !== undefined) {
    if (typeof a.message !== 'string' || a.message.length > 500) throw bad('has a message that is not a string of at most 500 characters');
    out.message = a.message;
  }
  if (a.score !== undefined) {
    if (typeof a.score !== 'number' || !(a.score >= 0 && a.score <= 1)) throw bad('has a score outside 0..1');
    out.score = a.score;
  }
  if (out.outcome === 'fail' && out.reason === undefined) throw bad('fails without a reason');
  return out;
}

/**
 * POSTs `{session, documents[{id, type, side, mediaType, data (base64)}], liveness: null |
 * {status, score, completedAt, frames[{index, mediaType, data (base64)}]}}` to the provider's URL,
 * signed like a webhook (`Ledger-Signature: t=<unix>,v1=<hex>` keyed with the configured secret),
 * and reads `{outcome: pass|fail|review, reason?, message?, score?}` from a 2xx answer.
 */
export class HttpVerificationProvider implements VerificationProvider {
  constructor(private readonly opts: { url: string; secret: string; timeoutMs?: number; now?: () => number }) {}

  async decide(session: StoredSession, documents: ProviderDocument[], frames: ProviderFrame[]): Promise<ProviderDecision | 'review'> {
    const body = JSON.stringify({
      session: {
        id: session.id,
        organizationId: session.organizationId,
        level: session.level,
        subjectDid: session.subjectDid ?? null,
        documents: session.documents.map((d) => ({ id: d.id, type: d.type, side: d.side, status: d.status, reason: d.reason ?? null, extractedData: d.extractedData, checks: d.checks })),
        liveness: session.liveness ?? null,
        metadata: session.metadata,
      },
      documents: documents.map((d) => ({ id: d.document.id, type: d.document.type, side: d.document.side, mediaType: d.mediaType, data: base64(d.bytes) })),
      liveness: session.liveness
        ? { status: session.liveness.status, score: session.liveness.score, completedAt: session.liveness.completedAt, frames: frames.map((f) => ({ index: f.index, mediaType: f.mediaType, data: base64(f.bytes) })) }
        : null,
    });
    const t = Math.floor((this.opts.now?.() ?? Date.now()) / 1000);
    const res = await fetch(this.opts.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: signWebhook(this.opts.secret, body, t) },
      body,
      signal: AbortSignal.timeout(this.opts.timeoutMs ?? 10_000),
      redirect: 'error',
    });
    const text = await res.text();
    if (!res.ok) throw new LedgerError('PROVIDER_FAILED', `the verification provider answered ${res.status}`, 'internal');
    if (text.length > MAX_ANSWER_BYTES) throw new LedgerError('PROVIDER_ANSWER_INVALID', 'the verification provider answer is too large', 'internal');
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new LedgerError('PROVIDER_ANSWER_INVALID', 'the verification provider answer is not JSON', 'internal');
    }
    return parseProviderAnswer(parsed);
  }
}
