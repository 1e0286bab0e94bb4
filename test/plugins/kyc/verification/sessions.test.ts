import t from 'tap';
import { LedgerError } from '../../../../node/errors.js';
import { HttpProblem } from '../../../../plugins/common/http/problems.js';
import type { EventSink, KycBase } from '../../../../plugins/kyc/services.js';
import type { KycEvent } from '../../../../plugins/kyc/types.js';
import { CHALLENGE_TTL_MS, SessionService, type Caller, type CreateInput } from '../../../../plugins/kyc/verification/sessions.js';
import type { StoredSession } from '../../../../plugins/kyc/verification/states.js';
import { hashToken } from '../../../../plugins/kyc/verification/store.js';
import { issued, jpegImage, LEDGER_DID, ORG_A, ORG_B, Orgs, setup } from './harness.js';

const LIVE_A: Caller = { organizationId: ORG_A, apiKey: { id: 'key_live_a', mode: 'live' } };
const SANDBOX_A: Caller = { organizationId: ORG_A, apiKey: { id: 'key_sb_a', mode: 'sandbox' } };
const LIVE_B: Caller = { organizationId: ORG_B, apiKey: { id: 'key_live_b', mode: 'live' } };
const OPERATOR = { kind: 'operator' } as const;
const input = (over: Partial<CreateInput> = {}): CreateInput => ({ level: 1, sandbox: false, metadata: {}, ...over });
const IMG = jpegImage(400, 300);
const FRAME = jpegImage(96, 96);
const TD3 = 'P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F1204159ZE184226B<<<<<10';
// the specimen with its expiry moved to 2031-04-15 and the check digits redone
const TD3_VALID = 'P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F3104150ZE184226B<<<<<16';

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    if (err instanceof LedgerError) return err.code;
    if (err instanceof HttpProblem) return `${err.slug}:${err.extra.code}`;
    throw err;
  }
}

/** Every index entry agrees with its record, and no record lacks one. */
async function consistent(base: KycBase): Promise<string[]> {
  const all = async (name: string) => {
    const out = new Map<string, unknown>();
    for await (const [k, v] of base.db.json<unknown>(name).entries()) out.set(k, v);
    return out;
  };
  const [sessions, byOrg, byToken, expiry, review, issuing, purge] = await Promise.all(['ver-sessions', 'ver-by-org', 'ver-by-token', 'ver-expiry', 'ver-review', 'ver-issuing', 'ver-purge'].map(all));
  const problems: string[] = [];
  const want = { byOrg: new Set<string>(), expiry: new Set<string>(), review: new Set<string>(), issuing: new Set<string>() };
  for (const s of sessions!.values() as Iterable<StoredSession>) {
    const ko = `${s.organizationId}\x00${String(Date.parse(s.createdAt)).padStart(13, '0')}\x00${s.id}`;
    want.byOrg.add(ko);
    if ((byOrg!.get(ko) as { status?: string } | undefined)?.status !== s.status) problems.push(`${s.id} list row`);
    if (byToken!.get(s.tokenHash) !== s.id) problems.push(`${s.id} token`);
    const undecided = s.status === 'pending' || (s.status === 'processing' && !s.decision);
    if (undecided) want.expiry.add(`${String(Date.parse(s.expiresAt)).padStart(13, '0')}\x00${s.id}`);
    if (s.status === 'processing' && !s.decision && !s.sandbox) want.review.add(`${String(Date.parse(s.processingAt!)).padStart(13, '0')}\x00${s.id}`);
    if (s.status === 'processing' && s.decision) want.issuing.add(s.id);
    // a final session with its images is in the purge index (its key's time is when it became final)
    const purged = [...purge!.values()].filter((id) => id === s.id).length;
    if (purged !== (['completed', 'failed', 'expired'].includes(s.status) && !s.evidenceDeletedAt ? 1 : 0)) problems.push(`${s.id} purge index`);
  }
  const same = (name: string, w: Set<string>, got: Map<string, unknown>) => {
    for (const k of w) if (!got.has(k)) problems.push(`${name} missing ${JSON.stringify(k)}`);
    for (const k of got.keys()) if (!w.has(k)) problems.push(`${name} stale ${JSON.stringify(k)}`);
  };
  same('by-org', want.byOrg, byOrg!);
  same('expiry', want.expiry, expiry!);
  same('review', want.review, review!);
  same('issuing', want.issuing, issuing!);
  return problems;
}

t.test('create: token shown once, stored hashed; the view hides internals', async (t) => {
  const { sessions, base } = await setup(t);
  const { session, sessionUrl } = await sessions.create(LIVE_A, input({ level: 2, subjectDid: LEDGER_DID, redirectUrl: 'https://shop.test/done', metadata: { ref: '42' } }));
  const token = session.sessionToken as string;
  t.match(token, /^sess_tok_[A-Za-z0-9_-]{43}$/);
  t.equal(sessionUrl, `https://kyc.test/v/s/${token}`);
  t.match(session, { status: 'pending', level: 2, sandbox: false, subjectDid: LEDGER_DID, redirectUrl: 'https://shop.test/done', metadata: { ref: '42' }, documents: [] });
  t.equal(session.expiresAt, new Date(base.now() + 3600_000).toISOString());
  for (const k of ['tokenHash', 'apiKeyId', 'steps', 'decision']) t.notOk(k in session, k);
  const stored = (await sessions.store.get(session.id as string))!;
  t.equal(stored.tokenHash, hashToken(token));
  t.notOk(JSON.stringify(stored).includes(token), 'the token itself is not stored');
  const read = await sessions.get(ORG_A, session.id as string);
  t.notOk('sessionToken' in read, 'the token is shown only at creation');
  t.equal(await codeOf(sessions.get(ORG_B, session.id as string)), 'SESSION_NOT_FOUND', 'another organization: 404');
  t.same(await consistent(base), []);
});

t.test('sandbox keys create only sandbox sessions', async (t) => {
  const { sessions } = await setup(t);
  t.equal(await codeOf(sessions.create(SANDBOX_A, input({ sandbox: false }))), 'forbidden:SANDBOX_KEY_LIVE_SESSION');
  t.equal(await codeOf(sessions.create(SANDBOX_A, input({ sandbox: true }))), 'ok');
  t.equal(await codeOf(sessions.create(LIVE_A, input({ sandbox: true, sandboxOutcome: 'fail' }))), 'ok', 'live keys may make sandbox sessions');
});

t.test('list: newest first, status filter, paging, per organization', async (t) => {
  const { sessions, clock, base } = await setup(t);
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    clock.now += 1000;
    ids.push((await sessions.create(LIVE_A, input({ sandbox: true, metadata: { n: i, tags: [i, null] } }))).session.id as string);
  }
  await sessions.create(LIVE_B, input());
  await sessions.uploadDocument({ organizationId: ORG_A, id: ids[1]! }, { type: 'passport', side: 'front', final: true, file: IMG });
  const all = await sessions.list(ORG_A, { limit: 20, offset: 0 });
  t.equal(all.total, 5);
  t.same(all.sessions.map((s) => s.id), [...ids].reverse());
  t.same(Object.keys(all.sessions[0]!), ['id', 'status', 'level', 'sandbox', 'subjectDid', 'credentialId', 'createdAt', 'completedAt', 'metadata']);
  t.same(all.sessions.map((s) => s.metadata), [4, 3, 2, 1, 0].map((n) => ({ n, tags: [n, null] })), 'each row with its metadata');
  // a row written before rows carried metadata: the list reads it from the session
  const rows = base.db.json<Record<string, unknown>>('ver-by-org');
  for await (const [k, row] of rows.entries()) if (row.id === ids[0]) await rows.put(k, { ...row, metadata: undefined, sandbox: undefined });
  t.match((await sessions.list(ORG_A, { limit: 20, offset: 0 })).sessions.at(-1)!, { metadata: { n: 0, tags: [0, null] }, sandbox: true });
  t.same((await sessions.list(ORG_A, { mode: 'sandbox', limit: 20, offset: 0 })).total, 5, 'the mode of an old row is read from its session');
  const done = await sessions.list(ORG_A, { status: 'completed', limit: 20, offset: 0 });
  t.same(done.sessions.map((s) => s.id), [ids[1]]);
  t.equal(done.sessions[0]!.completedAt, new Date(clock.now).toISOString());
  const page = await sessions.list(ORG_A, { status: 'pending', limit: 2, offset: 1 });
  t.equal(page.total, 4);
  t.same(page.sessions.map((s) => s.id), [ids[3], ids[2]]);
});

t.test('live level 1: final upload -> review queue -> approve -> credential -> completed', async (t) => {
  const { sessions, review, events, issuance, base, clock } = await setup(t);
  const { session } = await sessions.create(LIVE_A, input({ subjectDid: LEDGER_DID }));
  const id = session.id as string;
  const ref = { token: session.sessionToken as string };
  const d1 = await sessions.uploadDocument(ref, { type: 'passport', side: 'front', final: false, mrz: TD3_VALID, file: IMG });
  t.match(d1, { type: 'passport', side: 'front', status: 'uploaded', extractedData: { lastName: 'ERIKSSON', dateOfBirth: '1974-08-12', expiryDate: '2031-04-15' }, checks: { mediaType: 'image/jpeg', width: 400, height: 300, mrz: { valid: true, format: 'TD3', failures: [] } } });
  t.match(d1.id, /^doc_/);
  clock.now += 1000;
  const d2 = await sessions.uploadDocument({ organizationId: ORG_A, id }, { type: 'passport', side: 'back', final: true, file: IMG });
  const processing = await sessions.get(ORG_A, id);
  t.equal(processing.status, 'processing');
  t.equal(processing.expiresAt, new Date(clock.now + 7200_000).toISOString());
  t.same(events.events, [], 'nothing decided: live mode never passes by itself');
  t.equal(await codeOf(sessions.uploadDocument(ref, { type: 'passport', side: 'front', final: true, file: IMG })), 'SESSION_NOT_PENDING');
  const queue = await review.list(OPERATOR, { limit: 20, offset: 0 });
  t.same(queue.sessions.map((s) => s.id), [id]);
  t.equal(queue.total, 1);
  t.same((await review.list(OPERATOR, { organizationId: ORG_B, limit: 20, offset: 0 })).total, 0);
  const img = await review.image(OPERATOR, id, d1.id as string);
  t.same(Buffer.from(img.bytes), IMG);
  t.same(await consistent(base), []);
  t.equal(await codeOf(review.approve(OPERATOR, id)), 'EVIDENCE_NOT_OPENED', 'the back of the passport was not opened');
  await review.image(OPERATOR, id, d2.id as string);

  const approved = await review.approve(OPERATOR, id);
  t.match(approved.review, { outcome: 'pass', decidedBy: { kind: 'operator' }, decidedAt: new Date(clock.now).toISOString() });
  t.equal(approved.status, 'processing', 'waits for the credential');
  t.same(approved.documents, [
    { ...(approved.documents as any[])[0], status: 'verified' },
    { ...(approved.documents as any[])[1], status: 'verified' },
  ]);
  t.equal(issuance.requests.length, 1);
  t.equal(issuance.requests[0]!.id, id);
  t.equal((await review.list(OPERATOR, { limit: 20, offset: 0 })).total, 0, 'out of the queue');
  t.equal(await codeOf(review.approve(OPERATOR, id)), 'SESSION_NOT_IN_REVIEW');
  t.same(await consistent(base), []);
  t.same(await sessions.resumeIssuance(), 1, 'a decided pass is asked for again at start');
  t.equal(issuance.requests.length, 2);

  clock.now += 5000;
  await sessions.credentialIssued(id, issued(LEDGER_DID));
  await sessions.credentialIssued(id, issued(LEDGER_DID)); // reported twice: a no-op
  const done = await sessions.get(ORG_A, id);
  t.match(done, { status: 'completed', credentialId: issued(LEDGER_DID).credentialId, credentialOfferUri: issued(LEDGER_DID).credentialOfferUri, completedAt: new Date(clock.now).toISOString() });
  t.same(events.types(), ['verification.completed', 'credential.issued']);
  t.equal(events.events[0]!.organizationId, ORG_A);
  t.same(events.events[0]!.data, { verificationId: id, status: 'completed', outcome: 'pass', subjectDid: LEDGER_DID, level: 1, credentialId: issued(LEDGER_DID).credentialId, metadata: {} });
  t.equal(await codeOf(sessions.credentialIssued(id, issued(LEDGER_DID, 2))), 'SESSION_FINISHED');
  t.equal(await sessions.resumeIssuance(), 0);
  t.same(await consistent(base), []);
});

t.test('live: MRZ check digits and an expired document fail the session on processing', async (t) => {
  const { sessions, review, events } = await setup(t);
  const a = (await sessions.create(LIVE_A, input())).session;
  const bad = TD3.replace('7408122', '7408123');
  const doc = await sessions.uploadDocument({ token: a.sessionToken as string }, { type: 'passport', side: 'front', final: true, mrz: bad, file: IMG });
  t.match(doc, { status: 'rejected', reason: 'mrz_check_digit', checks: { mrz: { valid: false, failures: ['dateOfBirth', 'composite'] } } });
  t.match(await sessions.get(ORG_A, a.id as string), { status: 'failed', reason: 'mrz_check_digit' });
  const b = (await sessions.create(LIVE_A, input())).session;
  const expired = await sessions.uploadDocument({ token: b.sessionToken as string }, { type: 'passport', side: 'front', final: true, mrz: TD3, file: IMG });
  t.match(expired, { status: 'rejected', reason: 'document_expired' });
  t.same(events.types(), ['verification.failed', 'verification.failed']);
  t.equal((await review.list(OPERATOR, { limit: 20, offset: 0 })).total, 0);
  const c = (await sessions.create(LIVE_A, input())).session;
  t.equal(await codeOf(sessions.uploadDocument({ token: c.sessionToken as string }, { type: 'passport', side: 'front', final: true, mrz: 'P<UTO', file: IMG })), 'MRZ_FORMAT');
  t.equal(await codeOf(sessions.uploadDocument({ token: c.sessionToken as string }, { type: 'passport', side: 'front', final: true, file: Buffer.from('GIF89a') })), 'IMAGE_TYPE_UNSUPPORTED');
  t.equal((await sessions.get(ORG_A, c.id as string)).status, 'pending', 'refused uploads change nothing');
});

t.test('liveness: a live challenge is needed; sandbox and live results', async (t) => {
  const { sessions, clock, events, base } = await setup(t);
  const live = (await sessions.create(LIVE_A, input({ level: 2 }))).session;
  const ref = { organizationId: ORG_A, id: live.id as string };
  t.equal(await codeOf(sessions.submitLiveness(ref, [FRAME])), 'LIVENESS_CHALLENGE_REQUIRED');
  const c1 = await sessions.livenessChallenge(ref);
  t.match(c1, { id: /^chl_/, type: 'head_turn', instructions: /turn your head/, expiresAt: new Date(clock.now + CHALLENGE_TTL_MS).toISOString() });
  clock.now += CHALLENGE_TTL_MS;
  t.equal(await codeOf(sessions.submitLiveness(ref, [FRAME])), 'LIVENESS_CHALLENGE_EXPIRED');
  const c2 = await sessions.livenessChallenge(ref);
  t.equal(await codeOf(sessions.submitLiveness(ref, [FRAME], c1.id as string)), 'LIVENESS_CHALLENGE_MISMATCH');
  t.equal(await codeOf(sessions.submitLiveness(ref, [])), 'FRAMES_COUNT');
  t.equal(await codeOf(sessions.submitLiveness(ref, [FRAME, jpegImage(40, 40)])), 'IMAGE_TOO_SMALL');
  t.same(await sessions.submitLiveness(ref, [FRAME, FRAME, FRAME], c2.id as string), { status: 'pending_review', score: null });
  t.equal(await codeOf(sessions.livenessChallenge(ref)), 'LIVENESS_ALREADY_SUBMITTED');
  t.equal(await codeOf(sessions.submitLiveness(ref, [FRAME])), 'LIVENESS_CHALLENGE_REQUIRED', 'the challenge is used up');
  t.ok(await sessions.store.image(live.id as string, 'frame', c2.id as string, 2), 'frames are kept for the reviewer');
  t.equal((await sessions.get(ORG_A, live.id as string)).status, 'pending', 'the document step is still open');

  const l1 = (await sessions.create(LIVE_A, input())).session;
  t.equal(await codeOf(sessions.livenessChallenge({ organizationId: ORG_A, id: l1.id as string })), 'LIVENESS_NOT_IN_LEVEL');

  for (const [outcome, want] of [['pass', { status: 'passed', score: 0.99 }], ['fail', { status: 'failed', score: 0.12 }]] as const) {
    const s = (await sessions.create(SANDBOX_A, input({ level: 2, sandbox: true, sandboxOutcome: outcome }))).session;
    const r = { token: s.sessionToken as string };
    await sessions.uploadDocument(r, { type: 'national_id', side: 'front', final: true, file: IMG });
    await sessions.livenessChallenge(r);
    t.same(await sessions.submitLiveness(r, [FRAME]), want, outcome);
    t.equal((await sessions.get(ORG_A, s.id as string)).status, outcome === 'pass' ? 'completed' : 'failed');
  }
  t.same(events.types(), ['verification.completed', 'verification.failed']);
  t.match(events.events[1]!.data, { reason: 'face_mismatch', outcome: 'fail', status: 'failed' });
  t.same(await consistent(base), []);
});

t.test('a crash between a change and the queueing of its events loses none; queued again, they keep their ids', async (t) => {
  const { base, clock, issuance, images, sessions: first } = await setup(t);
  type Sent = { organizationId: string; type: KycEvent; data: Record<string, unknown>; id: string; createdAt: string };
  /** a webhooks part that records what it queues, and optionally dies right after (before the caller hears back) */
  const sink = (dies: boolean) => {
    const sent: Sent[] = [];
    const events: EventSink = {
      async emit(organizationId, type, data, event) {
        if (!event) throw new Error('a session event comes with its id');
        sent.push({ organizationId, type, data, ...event });
        if (dies) throw new Error('the process died here');
      },
    };
    return { sent, events };
  };
  const restart = (events: EventSink) => new SessionService({ base, events, issuance, orgs: new Orgs(), images });

  // the process dies after each change is stored, before the webhooks part queues its events
  const dying = sink(true);
  const sessions = restart(dying.events);
  const pass = (await sessions.create(LIVE_A, input({ subjectDid: LEDGER_DID }))).session.id as string;
  await sessions.uploadDocument({ organizationId: ORG_A, id: pass }, { type: 'passport', side: 'front', final: true, file: IMG });
  await sessions.decide(pass, { outcome: 'pass' });
  await sessions.credentialIssued(pass, issued(LEDGER_DID));
  clock.now += 1000;
  const fail = (await sessions.create(SANDBOX_A, input({ sandbox: true, sandboxOutcome: 'fail' }))).session.id as string;
  await sessions.uploadDocument({ organizationId: ORG_A, id: fail }, { type: 'passport', side: 'front', final: true, file: IMG });
  t.equal((await sessions.get(ORG_A, pass)).status, 'completed', 'the changes are stored');
  t.equal((await sessions.get(ORG_A, fail)).status, 'failed');
  // after a restart the issuer reports the credential again: the session is already completed
  await sessions.credentialIssued(pass, issued(LEDGER_DID));
  t.same(dying.sent.map((e) => e.type), ['verification.completed', 'credential.issued', 'verification.failed'], 'each event was tried once');

  // the next start: the events are queued again, in order, with the ids they were stored with
  const again = sink(true);
  t.equal(await restart(again.events).resumeEvents(), 3);
  t.same(again.sent, dying.sent, 'same events, ids, times and data');
  const ok = sink(false);
  t.equal(await restart(ok.events).resumeEvents(), 3, 'queued, then died before the record was dropped: still owed');
  t.same(ok.sent, dying.sent);
  t.match(ok.sent, [
    { organizationId: ORG_A, type: 'verification.completed', id: /^evt_[0-9a-f]{24}$/, data: { verificationId: pass, credentialId: issued(LEDGER_DID).credentialId } },
    { type: 'credential.issued', data: { credentialId: issued(LEDGER_DID).credentialId, txHash: issued(LEDGER_DID).txHash } },
    { type: 'verification.failed', data: { verificationId: fail, reason: 'face_mismatch' } },
  ]);
  t.equal(await restart(sink(false).events).resumeEvents(), 0, 'once queued, nothing is owed');

  // in a run without a crash, nothing is left behind
  const p2 = (await first.create(SANDBOX_A, input({ sandbox: true, sandboxOutcome: 'fail' }))).session.id as string;
  await first.uploadDocument({ organizationId: ORG_A, id: p2 }, { type: 'passport', side: 'front', final: true, file: IMG });
  t.equal(await first.resumeEvents(), 0);
});

t.test('sandbox outcomes: document_rejected at the final upload, timeout expires', async (t) => {
  const { sessions, events, issuance } = await setup(t);
  const r = (await sessions.create(SANDBOX_A, input({ sandbox: true, sandboxOutcome: 'document_rejected' }))).session;
  const d = await sessions.uploadDocument({ token: r.sessionToken as string }, { type: 'passport', side: 'front', final: true, file: IMG });
  t.match(d, { status: 'rejected', reason: 'document_rejected' });
  t.match(await sessions.get(ORG_A, r.id as string), { status: 'failed', reason: 'document_rejected' });
  const x = (await sessions.create(SANDBOX_A, input({ sandbox: true, sandboxOutcome: 'timeout', subjectDid: LEDGER_DID }))).session;
  await sessions.uploadDocument({ token: x.sessionToken as string }, { type: 'passport', side: 'front', final: true, file: IMG });
  t.match(await sessions.get(ORG_A, x.id as string), { status: 'expired', reason: 'timeout' });
  t.same(events.events.map((e) => [e.type, e.data.reason]), [['verification.failed', 'document_rejected'], ['verification.expired', 'timeout']]);
  const p = (await sessions.create(SANDBOX_A, input({ sandbox: true, subjectDid: LEDGER_DID }))).session;
  await sessions.uploadDocument({ token: p.sessionToken as string }, { type: 'passport', side: 'front', final: true, file: IMG });
  t.equal((await sessions.get(ORG_A, p.id as string)).status, 'processing');
  t.same(issuance.requests.map((s) => s.id), [p.id]);
});

t.test('expireDue: pending at its TTL, processing at the review TTL, decided never', async (t) => {
  const { sessions, clock, events, base } = await setup(t);
  const start = clock.now;
  const pending = (await sessions.create(LIVE_A, input({ subjectDid: 'did:key:z6Mk' }))).session;
  const processing = (await sessions.create(LIVE_A, input())).session;
  const decided = (await sessions.create(SANDBOX_A, input({ sandbox: true, subjectDid: LEDGER_DID }))).session;
  await sessions.uploadDocument({ token: processing.sessionToken as string }, { type: 'passport', side: 'front', final: true, file: IMG });
  await sessions.uploadDocument({ token: decided.sessionToken as string }, { type: 'passport', side: 'front', final: true, file: IMG });
  t.equal(await sessions.expireDue(start + 3600_000 - 1), 0);
  t.equal(await sessions.expireDue(start + 3600_000), 1);
  t.match(await sessions.get(ORG_A, pending.id as string), { status: 'expired', reason: 'session_ttl' });
  t.same(events.events.at(-1), { organizationId: ORG_A, type: 'verification.expired', data: { verificationId: pending.id, status: 'expired', subjectDid: 'did:key:z6Mk', reason: 'session_ttl', metadata: {} } });
  t.equal(await sessions.expireDue(start + 7200_000), 1);
  t.match(await sessions.get(ORG_A, processing.id as string), { status: 'expired', reason: 'review_ttl' });
  t.equal(await sessions.expireDue(start + 1e12), 0);
  t.equal((await sessions.get(ORG_A, decided.id as string)).status, 'processing');
  t.equal(await codeOf(sessions.uploadDocument({ token: pending.sessionToken as string }, { type: 'passport', side: 'front', final: true, file: IMG })), 'SESSION_NOT_PENDING');
  t.same(await consistent(base), []);
});

t.test('hosted view', async (t) => {
  const { sessions } = await setup(t);
  const s = (await sessions.create(LIVE_A, input({ level: 3, redirectUrl: 'https://shop.test/back' }))).session;
  const token = s.sessionToken as string;
  t.same(await sessions.hostedView(token), { id: s.id, status: 'pending', level: 3, organizationName: 'Acme Bank', organization: { name: 'Acme Bank' }, steps: ['document', 'liveness', 'address'], currentStep: 'document', completedSteps: [], expiresAt: s.expiresAt, evidenceRetentionDays: 30, redirectUrl: 'https://shop.test/back' });
  await sessions.uploadDocument({ token }, { type: 'passport', side: 'front', final: true, file: IMG });
  t.match(await sessions.hostedView(token), { currentStep: 'liveness', completedSteps: ['document'] });
  t.equal(await codeOf(sessions.hostedView('sess_tok_' + 'A'.repeat(43))), 'SESSION_NOT_FOUND');
  t.equal(await codeOf(sessions.hostedView('garbage')), 'SESSION_NOT_FOUND');
});

t.test('hosted view: the retention the consent notice states, null when the images are kept', async (t) => {
  for (const days of [7, null]) {
    const { sessions } = await setup(t, { config: { evidenceRetentionDays: days } });
    const s = (await sessions.create(LIVE_A, input({ level: 1 }))).session;
    t.equal((await sessions.hostedView(s.sessionToken as string)).evidenceRetentionDays, days);
  }
});

t.test('the image pool (worker threads) behind the service', async (t) => {
  const { sessions } = await setup(t, { imageThreads: 1 });
  const s = (await sessions.create(SANDBOX_A, input({ sandbox: true }))).session;
  const d = await sessions.uploadDocument({ token: s.sessionToken as string }, { type: 'passport', side: 'front', final: true, file: IMG });
  t.match(d, { status: 'verified', checks: { width: 400, height: 300 } });
});
