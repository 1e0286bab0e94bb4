import t from 'tap';
import type { SandboxOutcome } from '../../../../plugins/kyc/types.js';
import { currentStep, MAX_DOCUMENTS, transition, type SessionEvent, type StoredDocument, type StoredSession, type Transition, type UploadType } from '../../../../plugins/kyc/verification/states.js';
import { issued, LEDGER_DID, NETWORK } from './harness.js';

const AT = Date.parse('2025-06-01T12:00:00.000Z');
const rules = { at: AT, reviewTtlMs: 7_200_000, network: NETWORK };

function session(over: Partial<StoredSession> = {}): StoredSession {
  return {
    id: 'ver_1',
    organizationId: 'org_a',
    status: 'pending',
    level: 1,
    sandbox: false,
    metadata: {},
    createdAt: new Date(AT - 1000).toISOString(),
    expiresAt: new Date(AT + 3_600_000).toISOString(),
    documents: [],
    steps: { document: false, liveness: false, address: false },
    apiKeyId: 'key_1',
    tokenHash: 'h',
    ...over,
  };
}

let n = 0;
function doc(type: UploadType = 'passport', over: Partial<StoredDocument> = {}): StoredDocument {
  return {
    id: `doc_${++n}`,
    type,
    side: 'front',
    status: 'uploaded',
    extractedData: {},
    checks: { mediaType: 'image/jpeg', width: 800, height: 600, bytes: 1000, sha256: 'x' },
    createdAt: new Date(AT).toISOString(),
    ...over,
  };
}

const upload = (final: boolean, d = doc()): SessionEvent => ({ type: 'upload', document: d, final });
const liveness: SessionEvent = { type: 'liveness', liveness: { status: 'pending_review', score: null, completedAt: new Date(AT).toISOString(), frames: 3 } };

function ok(tr: Transition): Extract<Transition, { ok: true }> {
  if (!tr.ok) throw new Error(`refused: ${tr.code} ${tr.message}`);
  return tr;
}
const code = (tr: Transition) => (tr.ok ? 'ok' : tr.code);
const emitted = (tr: Transition) => (tr.ok ? tr.effects.map((e) => (e.type === 'emit' ? e.event : e.type)) : []);

t.test('level 1 live: a final document enters processing and awaits a decision', async (t) => {
  const a = ok(transition(session(), upload(false), rules));
  t.equal(a.session.status, 'pending');
  t.equal(currentStep(a.session), 'document');
  const b = ok(transition(a.session, upload(true), rules));
  t.equal(b.session.status, 'processing');
  t.equal(b.session.expiresAt, new Date(AT + 7_200_000).toISOString(), 'expiresAt moves to now + reviewTtl');
  t.equal(b.session.processingAt, new Date(AT).toISOString());
  t.same(emitted(b), ['await_decision'], 'live mode never passes by itself');
  t.equal(currentStep(b.session), null);
});

t.test('level 2: the final document first, then liveness enters processing; and the other order', async (t) => {
  const a = ok(transition(session({ level: 2 }), upload(true), rules));
  t.equal(a.session.status, 'pending');
  t.equal(currentStep(a.session), 'liveness');
  t.equal(ok(transition(a.session, liveness, rules)).session.status, 'processing');
  const c = ok(transition(session({ level: 2 }), liveness, rules));
  t.equal(c.session.status, 'pending');
  t.equal(currentStep(c.session), 'document');
  t.equal(ok(transition(c.session, upload(true), rules)).session.status, 'processing');
  t.equal(code(transition(ok(transition(a.session, liveness, rules)).session, liveness, rules)), 'SESSION_NOT_PENDING', 'processing takes no more liveness');
});

t.test('level 3 needs the address proof (front, level 3 only)', async (t) => {
  let s = ok(transition(session({ level: 3 }), upload(true), rules)).session;
  s = ok(transition(s, liveness, rules)).session;
  t.equal(s.status, 'pending');
  t.equal(currentStep(s), 'address');
  t.equal(code(transition(s, upload(false, doc('address_proof', { side: 'back' })), rules)), 'ADDRESS_PROOF_SIDE');
  const done = ok(transition(s, upload(true, doc('address_proof')), rules));
  t.equal(done.session.status, 'processing');
  t.equal(code(transition(session({ level: 2 }), upload(false, doc('address_proof')), rules)), 'ADDRESS_PROOF_NOT_IN_LEVEL');
  // an address proof does not complete the identity document step, final or not
  const only = ok(transition(session({ level: 3 }), upload(true, doc('address_proof')), rules)).session;
  t.same(only.steps, { document: false, liveness: false, address: true });
});

t.test('liveness rules', async (t) => {
  t.equal(code(transition(session(), liveness, rules)), 'LIVENESS_NOT_IN_LEVEL');
  const s = ok(transition(session({ level: 3 }), liveness, rules)).session;
  t.equal(code(transition(s, liveness, rules)), 'LIVENESS_ALREADY_SUBMITTED');
});

t.test('a live session with a rejected document fails on entering processing', async (t) => {
  const s = ok(transition(session(), upload(false, doc('passport', { status: 'rejected', reason: 'mrz_check_digit' })), rules)).session;
  const f = ok(transition(s, upload(true), rules));
  t.equal(f.session.status, 'failed');
  t.equal(f.session.reason, 'mrz_check_digit');
  t.same(emitted(f), ['verification.failed']);
  const data = (f.effects[0] as { data: Record<string, unknown> }).data;
  t.same(data, { verificationId: 'ver_1', status: 'failed', outcome: 'fail', subjectDid: null, reason: 'mrz_check_digit', message: f.session.message, metadata: {} });
});

t.test('sandbox outcomes on entering processing', async (t) => {
  const run = (outcome: SandboxOutcome | undefined, subjectDid?: string) => {
    const s = session({ sandbox: true, ...(outcome ? { sandboxOutcome: outcome } : {}), ...(subjectDid ? { subjectDid } : {}) });
    return ok(transition(s, upload(true), rules));
  };
  const pass = run(undefined);
  t.equal(pass.session.status, 'completed', 'default pass, no subject: completed at once');
  t.equal(pass.session.completedAt, new Date(AT).toISOString());
  t.equal(pass.session.documents[0]!.status, 'verified');
  t.same(emitted(pass), ['verification.completed']);
  t.same((pass.effects[0] as { data: unknown }).data, { verificationId: 'ver_1', status: 'completed', outcome: 'pass', subjectDid: null, level: 1, credentialId: null, metadata: {} });

  const withDid = run('pass', LEDGER_DID);
  t.equal(withDid.session.status, 'processing', 'a did:ledger subject waits for its credential');
  t.same(withDid.session.decision?.by, 'sandbox');
  t.same(emitted(withDid), ['request_credential']);

  const otherDid = run('pass', 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK');
  t.equal(otherDid.session.status, 'completed', 'another DID method completes without a credential');
  t.same(emitted(otherDid), ['verification.completed']);
  t.equal(run('pass', 'did:ledger:othernet:111').session.status, 'completed', 'a did:ledger of another network too');

  const fail = run('fail');
  t.equal(fail.session.status, 'failed');
  t.equal(fail.session.reason, 'face_mismatch');
  t.same(emitted(fail), ['verification.failed']);

  const timeout = run('timeout', LEDGER_DID);
  t.equal(timeout.session.status, 'expired');
  t.equal(timeout.session.reason, 'timeout');
  t.same(emitted(timeout), ['verification.expired']);
  t.same((timeout.effects[0] as { data: unknown }).data, { verificationId: 'ver_1', status: 'expired', subjectDid: LEDGER_DID, reason: 'timeout', metadata: {} });

  const rejected = run('document_rejected');
  t.equal(rejected.session.status, 'failed', 'fails at the final upload, before processing');
  t.equal(rejected.session.processingAt, undefined);
  t.equal(rejected.session.documents[0]!.status, 'rejected');
  t.equal(rejected.session.reason, 'document_rejected');
  // a non-final upload is not rejected
  const early = ok(transition(session({ sandbox: true, sandboxOutcome: 'document_rejected' }), upload(false), rules));
  t.equal(early.session.status, 'pending');
  t.equal(early.session.documents[0]!.status, 'uploaded');
});

t.test('decisions, then the credential', async (t) => {
  const processing = ok(transition(session({ level: 2, subjectDid: LEDGER_DID }), upload(true), rules)).session;
  const waiting = ok(transition(processing, liveness, rules)).session;
  t.equal(code(transition(session(), { type: 'decide', by: 'operator', outcome: 'pass' }, rules)), 'SESSION_NOT_IN_REVIEW');
  const passed = ok(transition(waiting, { type: 'decide', by: 'operator', outcome: 'pass' }, rules));
  t.equal(passed.session.status, 'processing');
  t.same(passed.session.liveness?.status, 'passed');
  t.equal(passed.session.liveness?.score, null, 'an operator pass invents no score');
  t.same(emitted(passed), ['request_credential']);
  t.equal(code(transition(passed.session, { type: 'decide', by: 'operator', outcome: 'pass' }, rules)), 'SESSION_NOT_IN_REVIEW', 'decided once');
  t.equal(code(transition(passed.session, { type: 'expire', reason: 'review_ttl' }, { ...rules, at: AT + 1e10 })), 'SESSION_DECIDED');
  t.equal(code(transition(passed.session, { type: 'credential', credential: issued('did:ledger:testnet:other') }, rules)), 'CREDENTIAL_SUBJECT_MISMATCH');
  const done = ok(transition(passed.session, { type: 'credential', credential: issued(LEDGER_DID) }, { ...rules, at: AT + 5000 }));
  t.equal(done.session.status, 'completed');
  t.equal(done.session.credentialId, issued(LEDGER_DID).credentialId);
  t.equal(done.session.credentialOfferUri, issued(LEDGER_DID).credentialOfferUri);
  t.equal(done.session.completedAt, new Date(AT + 5000).toISOString());
  t.same(emitted(done), ['verification.completed', 'credential.issued']);
  const { credentialOfferUri: _, ...issuedData } = issued(LEDGER_DID);
  t.same((done.effects[1] as { data: unknown }).data, issuedData);
  t.equal((done.effects[0] as { data: Record<string, unknown> }).data.credentialId, issuedData.credentialId);
  t.equal(code(transition(waiting, { type: 'credential', credential: issued(LEDGER_DID) }, rules)), 'CREDENTIAL_NOT_EXPECTED', 'no credential before a pass');

  const failed = ok(transition(waiting, { type: 'decide', by: 'provider', outcome: 'fail', reason: 'face_mismatch', message: 'no match', score: 0.2 }, rules));
  t.equal(failed.session.status, 'failed');
  t.same(failed.session.liveness?.status, 'failed');
  t.equal(failed.session.liveness?.score, 0.2);
});

t.test('expiry', async (t) => {
  const s = session();
  t.equal(code(transition(s, { type: 'expire', reason: 'session_ttl' }, rules)), 'NOT_DUE');
  const due = { ...rules, at: Date.parse(s.expiresAt) };
  const e = ok(transition(s, { type: 'expire', reason: 'session_ttl' }, due));
  t.equal(e.session.status, 'expired');
  t.equal(e.session.reason, 'session_ttl');
  t.same(emitted(e), ['verification.expired']);
  const p = ok(transition(s, upload(true), rules)).session;
  t.equal(code(transition(p, { type: 'expire', reason: 'review_ttl' }, { ...rules, at: AT + 7_199_999 })), 'NOT_DUE', 'processing moved the deadline');
  t.equal(ok(transition(p, { type: 'expire', reason: 'review_ttl' }, { ...rules, at: AT + 7_200_000 })).session.status, 'expired');
});

t.test('terminal states never change', async (t) => {
  for (const status of ['completed', 'failed', 'expired'] as const) {
    const s = session({ status });
    t.equal(code(transition(s, upload(true), rules)), 'SESSION_NOT_PENDING', status);
    t.equal(code(transition(s, liveness, rules)), 'SESSION_NOT_PENDING', status);
    t.equal(code(transition(s, { type: 'decide', by: 'operator', outcome: 'pass' }, rules)), 'SESSION_FINISHED', status);
    t.equal(code(transition(s, { type: 'expire', reason: 'timeout' }, rules)), 'SESSION_FINISHED', status);
    t.equal(code(transition(s, { type: 'credential', credential: issued(LEDGER_DID) }, rules)), 'SESSION_FINISHED', status);
  }
  t.equal(code(transition(session({ status: 'processing' }), upload(true), rules)), 'SESSION_NOT_PENDING');
});

t.test('a session takes a bounded number of documents', async (t) => {
  let s = session();
  for (let i = 0; i < MAX_DOCUMENTS; i++) s = ok(transition(s, upload(false), rules)).session;
  t.equal(code(transition(s, upload(true), rules)), 'DOCUMENT_LIMIT');
});
