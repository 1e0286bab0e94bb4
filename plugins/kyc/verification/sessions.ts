import { randomBytes } from 'node:crypto';
import { LedgerError } from '../../../node/errors.js';
import { HttpProblem } from '../../common/http/problems.js';
import { KeyedSerial } from '../../common/http/router.js';
import { newEventId } from '../../common/webhooks/ids.js';
import type { CredentialIssuance, EventSink, IssuedCredential, KycBase, OrganizationDirectory, SessionOutcomes } from '../services.js';
import type { ApiKeyMode, DocumentSide, SessionStatus, VerificationSession } from '../types.js';
import { sniffImage, type ImageChecker } from './checks/image.js';
import { parseMrz } from './checks/mrz.js';
import { reviewQueueProvider, type ProviderDocument, type ProviderFrame, type VerificationProvider } from './provider.js';
import { evidenceDeleted } from './retention.js';
import { liveLiveness, outcomeOf, sandboxLiveness } from './sandbox.js';
import { transition, type Effect, type SessionEvent, type StoredDocument, type StoredSession, type UploadType } from './states.js';
import { hashToken, newSessionToken, pendingEventKey, SessionStore, TOKEN_PATTERN, type ListFilter, type PendingEvent } from './store.js';
import { documentView, hostedView, listView, reviewView, sessionView } from './views.js';
import type { SessionReason } from './reasons.js';
import type { Actor, DeciderActor } from './actors.js';

/**
 * Verification sessions: creation, reads, uploads, liveness, decisions, expiry and the issuer's
 * answer. Every change runs under the session's lock (read, transition, one batch write), then
 * its effects run in order: events, the credential request, the provider's decision.
 *
 * The events a change owes are written in its batch (`ver-events`, with their ids) and deleted
 * once the webhooks part has queued them, so a crash between the two loses none: the next start
 * queues what is left, with the same ids (resumeEvents). The credential request needs no such
 * record: `ver-issuing` is its record (resumeIssuance).
 */

/** What a creation request sets of a session. */
export type CreateInput = Pick<VerificationSession, 'level' | 'sandbox' | 'sandboxOutcome' | 'subjectDid' | 'redirectUrl' | 'metadata'>;

export interface UploadInput {
  type: UploadType;
  side: DocumentSide;
  final: boolean;
  /** the document's machine-readable zone as read by the client, lines separated by LF */
  mrz?: string;
  file: Uint8Array;
}

/** A session as the API-key routes name it (org and id) or as the hosted routes do (the token). */
export type SessionRef = { organizationId: string; id: string } | { token: string };

export interface Caller {
  organizationId: string;
  apiKey: { id: string; mode: ApiKeyMode };
}

export const CHALLENGE_TTL_MS = 5 * 60_000;
export const MAX_FRAMES = 10;
const INSTRUCTIONS = 'Look at the camera, then turn your head slowly to the left and back to the centre.';

const SYSTEM: Actor = { kind: 'system' };
const PROVIDER: DeciderActor = { kind: 'provider' };
/** who changes a session through a reference: the person on the hosted page, or the organization's key */
const actorOf = (ref: SessionRef): Actor => ('token' in ref ? { kind: 'subject' } : { kind: 'api-key' });

const id = (p: string) => `${p}_${randomBytes(12).toString('hex')}`;
const notFound = () => new LedgerError('SESSION_NOT_FOUND', 'no such verification session', 'not_found');
const refused = (r: { code: string; status: 400 | 409; message: string }) => new LedgerError(r.code, r.message, r.status === 409 ? 'conflict' : 'invalid');

export class SessionService implements SessionOutcomes {
  readonly store: SessionStore;
  private readonly serial = new KeyedSerial();
  private readonly background = new Set<Promise<void>>();
  private readonly provider: VerificationProvider;

  constructor(
    private readonly deps: { base: KycBase; events: EventSink; issuance: CredentialIssuance; orgs: OrganizationDirectory; provider?: VerificationProvider; images: ImageChecker },
  ) {
    this.store = new SessionStore(deps.base.db);
    this.provider = deps.provider ?? reviewQueueProvider;
  }

  private get base(): KycBase {
    return this.deps.base;
  }

  now(): number {
    return this.base.now();
  }

  private iso(ms = this.base.now()): string {
    return new Date(ms).toISOString();
  }

  async create(caller: Caller, input: CreateInput): Promise<{ session: Record<string, unknown>; sessionUrl: string }> {
    if (caller.apiKey.mode === 'sandbox' && !input.sandbox) throw new HttpProblem('forbidden', 'a sandbox API key creates only sandbox sessions (sandbox: true)', { code: 'SANDBOX_KEY_LIVE_SESSION', field: 'sandbox' });
    const now = this.base.now();
    const token = newSessionToken();
    const session: StoredSession = {
      id: id('ver'),
      organizationId: caller.organizationId,
      status: 'pending',
      level: input.level,
      sandbox: input.sandbox,
      ...(input.sandboxOutcome !== undefined ? { sandboxOutcome: input.sandboxOutcome } : {}),
      ...(input.subjectDid !== undefined ? { subjectDid: input.subjectDid } : {}),
      ...(input.redirectUrl !== undefined ? { redirectUrl: input.redirectUrl } : {}),
      metadata: input.metadata,
      createdAt: this.iso(now),
      expiresAt: this.iso(now + this.base.config.sessionTtlSeconds * 1000),
      documents: [],
      steps: { document: false, liveness: false, address: false },
      apiKeyId: caller.apiKey.id,
      tokenHash: hashToken(token),
    };
    await this.store.write(undefined, session, { at: session.createdAt, actor: { kind: 'api-key', keyId: caller.apiKey.id } });
    return { session: { ...sessionView(session), sessionToken: token }, sessionUrl: `${this.base.publicUrl()}/v/s/${token}` };
  }

  async list(organizationId: string, opts: ListFilter): Promise<{ sessions: Array<Record<string, unknown>>; total: number }> {
    const { rows, total } = await this.store.list(organizationId, opts);
    return { sessions: rows.map(listView), total };
  }

  async get(organizationId: string, sessionId: string): Promise<Record<string, unknown>> {
    return sessionView(await this.resolve({ organizationId, id: sessionId }));
  }

  async hostedView(token: string): Promise<Record<string, unknown>> {
    const s = await this.resolve({ token });
    const org = await this.deps.orgs.organization(s.organizationId);
    return hostedView(s, org, this.base.config.evidenceRetentionDays);
  }

  /** The session a reference names: 404 for an unknown id, another organization's, or an unknown token. */
  async resolve(ref: SessionRef): Promise<StoredSession> {
    if ('token' in ref) {
      const s = TOKEN_PATTERN.test(ref.token) ? await this.store.byTokenHash(hashToken(ref.token)) : undefined;
      if (!s) throw notFound();
      return s;
    }
    const s = await this.store.get(ref.id);
    if (!s || s.organizationId !== ref.organizationId) throw notFound();
    return s;
  }

  async uploadDocument(ref: SessionRef, input: UploadInput): Promise<Record<string, unknown>> {
    const before = await this.resolve(ref);
    notPending(before);
    // the image work runs before the lock: it is the slow part and reads nothing of the session
    const image = await this.deps.images.check(input.file, 'document', 'file');
    const mrz = input.mrz === undefined ? undefined : readMrz(input.mrz, new Date(this.base.now()).getUTCFullYear());
    const now = this.base.now();
    let reason: SessionReason | undefined;
    if (mrz && !mrz.valid) reason = 'mrz_check_digit';
    else if (mrz?.extractedData.expiryDate && mrz.extractedData.expiryDate < this.iso(now).slice(0, 10)) reason = 'document_expired';
    const document: StoredDocument = {
      id: id('doc'),
      type: input.type,
      side: input.side,
      status: reason ? 'rejected' : 'uploaded',
      ...(reason ? { reason } : {}),
      extractedData: mrz?.extractedData ?? {},
      checks: { ...image, ...(mrz ? { mrz: { valid: mrz.valid, format: mrz.format, failures: mrz.failures } } : {}) },
      createdAt: this.iso(now),
    };
    const after = await this.change(before.id, { type: 'upload', document, final: input.final }, actorOf(ref), (b, t) => b.put(t.images, `${before.id}\x00doc\x00${document.id}`, input.file));
    return documentView(after.documents.find((d) => d.id === document.id)!);
  }

  async livenessChallenge(ref: SessionRef): Promise<Record<string, unknown>> {
    const s = await this.resolve(ref);
    notPending(s);
    if (s.level < 2) throw new LedgerError('LIVENESS_NOT_IN_LEVEL', 'a level 1 session has no liveness step', 'conflict');
    if (s.steps.liveness) throw new LedgerError('LIVENESS_ALREADY_SUBMITTED', 'the liveness step is already complete', 'conflict');
    const challenge = { id: id('chl'), type: 'head_turn' as const, instructions: INSTRUCTIONS, expiresAt: this.iso(this.base.now() + CHALLENGE_TTL_MS) };
    await this.store.putChallenge({ ...challenge, sessionId: s.id });
    return challenge;
  }

  async submitLiveness(ref: SessionRef, frames: Uint8Array[], challengeId?: string): Promise<{ status: string; score: number | null }> {
    const before = await this.resolve(ref);
    notPending(before);
    if (frames.length < 1 || frames.length > MAX_FRAMES) throw new LedgerError('FRAMES_COUNT', `frames takes 1 to ${MAX_FRAMES} images (got ${frames.length})`, 'invalid', { field: 'frames' });
    const challenge = await this.store.challenge(before.id);
    if (!challenge) throw new LedgerError('LIVENESS_CHALLENGE_REQUIRED', 'get a liveness challenge first (GET …/liveness-challenge); frames are accepted only while one is live', 'conflict');
    if (Date.parse(challenge.expiresAt) <= this.base.now()) throw new LedgerError('LIVENESS_CHALLENGE_EXPIRED', `the liveness challenge expired at ${challenge.expiresAt}; get a new one`, 'conflict');
    if (challengeId !== undefined && challengeId !== challenge.id) throw new LedgerError('LIVENESS_CHALLENGE_MISMATCH', `challengeId ${challengeId} is not the session's live challenge`, 'conflict', { field: 'challengeId' });
    for (const [i, f] of frames.entries()) await this.deps.images.check(f, 'frame', `frames[${i}]`);
    const at = this.iso();
    const liveness = before.sandbox ? sandboxLiveness(outcomeOf(before), at, frames.length) : liveLiveness(at, frames.length);
    const after = await this.change(before.id, { type: 'liveness', liveness }, actorOf(ref), (b, t) => {
      frames.forEach((f, i) => b.put(t.images, `${before.id}\x00frame\x00${challenge.id}\x00${i}`, f));
      b.del(t.challenges, before.id);
    });
    const l = after.liveness!;
    return { status: l.status, score: l.score };
  }

  /** A reviewer's (or the provider's) decision on a session awaiting one. */
  async decide(
    sessionId: string,
    decision: { outcome: 'pass'; score?: number } | { outcome: 'fail'; reason: string; message: string; score?: number },
    decidedBy: DeciderActor = { kind: 'operator' },
  ): Promise<Record<string, unknown>> {
    if (!(await this.store.get(sessionId))) throw notFound();
    const by = decidedBy.kind;
    const event: SessionEvent = decision.outcome === 'pass' ? { type: 'decide', by, decidedBy, outcome: 'pass', ...(decision.score !== undefined ? { score: decision.score } : {}) } : { type: 'decide', by, decidedBy, ...decision };
    return reviewView(await this.change(sessionId, event, decidedBy));
  }

  async reviewQueue(opts: { organizationId?: string; limit: number; offset: number }): Promise<{ sessions: Array<Record<string, unknown>>; total: number }> {
    const { ids, total } = await this.store.reviewQueue(opts);
    const sessions = await this.store.sessions.getMany(ids);
    return { sessions: sessions.filter((s): s is StoredSession => s !== undefined).map(reviewView), total };
  }

  /** An uploaded document's image, for the reviewer. */
  async documentImage(sessionId: string, documentId: string): Promise<{ mediaType: string; bytes: Uint8Array }> {
    const s = await this.store.get(sessionId);
    const d = s?.documents.find((x) => x.id === documentId);
    if (d && s?.evidenceDeletedAt !== undefined) throw evidenceDeleted(s.evidenceDeletedAt);
    const bytes = d && (await this.store.image(sessionId, 'doc', documentId));
    if (!d || !bytes) throw new LedgerError('DOCUMENT_NOT_FOUND', 'no such document in this session', 'not_found');
    return { mediaType: d.checks.mediaType, bytes };
  }

  /** The session's liveness frames, with their media type read from their bytes. */
  async frames(sessionId: string): Promise<ProviderFrame[]> {
    return (await this.store.frames(sessionId)).map((f) => ({ index: f.index, mediaType: sniffImage(f.bytes) ?? 'application/octet-stream', bytes: f.bytes }));
  }

  /** Expires every session whose expiresAt is at or before `now`; returns how many. */
  async expireDue(now: number, batch = 500): Promise<number> {
    let count = 0;
    for (;;) {
      const ids = await this.store.due(now, batch);
      let changed = 0;
      for (const sid of ids) {
        const s = await this.store.get(sid);
        if (!s) continue;
        try {
          await this.change(sid, { type: 'expire', reason: s.status === 'pending' ? 'session_ttl' : 'review_ttl' }, SYSTEM, undefined, now);
          changed++;
        } catch (err) {
          // a session that changed meanwhile (decided, or its expiry moved) is simply not due
          if (!(err instanceof LedgerError) || err.kind === 'internal') throw err;
        }
      }
      count += changed;
      if (ids.length < batch || changed === 0) return count;
    }
  }

  async credentialIssued(sessionId: string, credential: IssuedCredential): Promise<void> {
    const s = await this.store.get(sessionId);
    if (!s) throw notFound();
    // the issuer may report twice (a restart between its record and ours): the second is a no-op
    if (s.status === 'completed' && s.credentialId === credential.credentialId) return;
    await this.change(sessionId, { type: 'credential', credential }, SYSTEM);
  }

  /** At start: queues the events of changes stored before a crash that kept them from being queued, with their ids. */
  async resumeEvents(): Promise<number> {
    const pending = await this.store.pendingEvents();
    for (const e of pending) await this.queueEvent(e);
    return pending.length;
  }

  /** At start: asks the issuer again for every decided pass still waiting (requestCredential is idempotent per session). */
  async resumeIssuance(): Promise<number> {
    const ids = await this.store.issuingIds();
    for (const sid of ids) {
      const s = await this.store.get(sid);
      if (s) await this.deps.issuance.requestCredential(contract(s));
    }
    return ids.length;
  }

  /** Resolves when the provider calls under way have finished (shutdown, tests). */
  async idle(): Promise<void> {
    while (this.background.size > 0) await Promise.allSettled([...this.background]);
  }

  /** Read, transition, write and run the effects, under the session's lock. */
  private async change(sessionId: string, event: SessionEvent, actor: Actor, extra?: Parameters<SessionStore['write']>[3], at = this.base.now()): Promise<StoredSession> {
    const { session, effects, events } = await this.serial.run(sessionId, async () => {
      const prev = await this.store.get(sessionId);
      if (!prev) throw notFound();
      const t = transition(prev, event, { at, reviewTtlMs: this.base.config.reviewTtlSeconds * 1000, network: this.base.network });
      if (!t.ok) throw refused(t);
      const createdAt = this.iso();
      const events = t.effects.flatMap((e) => (e.type === 'emit' ? [e] : [])).map((e, n): PendingEvent => {
        const id = newEventId();
        return { key: pendingEventKey(createdAt, sessionId, n, id), id, createdAt, organizationId: t.session.organizationId, sessionId, type: e.event, data: e.data };
      });
      await this.store.write(prev, t.session, { at: this.iso(at), actor }, extra, events);
      return { ...t, events };
    });
    await this.run(session, effects, events);
    return session;
  }

  /** Hands a stored event to the webhooks part; once it is queued there, it is no longer owed. */
  private async queueEvent(e: PendingEvent): Promise<void> {
    try {
      await this.deps.events.emit(e.organizationId, e.type, e.data, { id: e.id, createdAt: e.createdAt });
      await this.store.eventQueued(e);
    } catch (err) {
      this.base.log.error({ err, session: e.sessionId, event: e.type }, 'verification event not queued; it is queued again at the next start');
    }
  }

  private async run(s: StoredSession, effects: Effect[], events: PendingEvent[]): Promise<void> {
    let next = 0;
    for (const e of effects) {
      if (e.type === 'emit') {
        await this.queueEvent(events[next++]!);
      } else if (e.type === 'request_credential') {
        // on failure the session stays in ver-issuing and resumeIssuance asks again at the next start
        await this.deps.issuance.requestCredential(contract(s)).catch((err: unknown) => this.base.log.error({ err, session: s.id }, 'credential request failed; retried at the next start'));
      } else if (this.provider !== reviewQueueProvider) {
        this.track(this.askProvider(s.id));
      }
    }
  }

  private track(p: Promise<void>): void {
    this.background.add(p);
    void p.finally(() => this.background.delete(p));
  }

  private async askProvider(sessionId: string): Promise<void> {
    try {
      const s = await this.store.get(sessionId);
      if (!s || s.status !== 'processing' || s.decision) return;
      const documents: ProviderDocument[] = [];
      for (const d of s.documents) {
        const bytes = await this.store.image(s.id, 'doc', d.id);
        if (bytes) documents.push({ document: d, mediaType: d.checks.mediaType, bytes });
      }
      const answer = await this.provider.decide(s, documents, await this.frames(s.id));
      if (answer === 'review') return;
      const score = answer.score !== undefined ? { score: answer.score } : {};
      if (answer.outcome === 'pass') await this.decide(s.id, { outcome: 'pass', ...score }, PROVIDER);
      else await this.decide(s.id, { outcome: 'fail', reason: answer.reason ?? ('provider_rejected' satisfies SessionReason), message: answer.message ?? 'the verification provider rejected the verification', ...score }, PROVIDER);
    } catch (err) {
      this.base.log.warn({ err, session: sessionId }, 'the verification provider did not decide; the session waits in the review queue');
    }
  }
}

function readMrz(text: string, referenceYear: number): ReturnType<typeof parseMrz> {
  try {
    return parseMrz(text, { referenceYear });
  } catch (err) {
    if (err instanceof LedgerError) throw new LedgerError(err.code, `mrz: ${err.message}`, 'invalid', { field: 'mrz' });
    throw err;
  }
}

function notPending(s: StoredSession): void {
  if (s.status !== 'pending') throw new LedgerError('SESSION_NOT_PENDING', `the session is ${s.status}; it takes uploads only while pending`, 'conflict');
}

/**
 * The session as the issuer's contract types it. The one difference is the document type
 * `address_proof` (the level 3 address step), which types.ts's DocumentType does not list yet.
 */
const contract = (s: StoredSession): VerificationSession => s as unknown as VerificationSession;
