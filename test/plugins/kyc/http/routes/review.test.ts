import t from 'tap';
import { docForm, jpegImage, LEDGER_DID, liveSession, pngImage, serve } from '../../verification/harness.js';

const IMG = jpegImage(400, 300);

t.test('the operator review queue decides live sessions once the evidence is opened', async (t) => {
  const h = await serve(t);
  const open = async (key: string, body: Record<string, unknown>) => {
    const { session } = (await h.req('POST', '/v1/verifications', { key, body })).body;
    const doc = await h.req('POST', `/v1/verifications/s/${session.sessionToken}/documents`, { form: docForm(IMG, { type: 'national_id', side: 'front', final: 'true' }) });
    return { id: session.id as string, documentId: doc.body.document.id as string };
  };
  const a = await open('sk_live_a', { level: 1, subjectDid: LEDGER_DID });
  h.clock.now += 1000;
  const b = await open('sk_live_b', { level: 1 });
  h.clock.now += 1000;
  const c = await open('sk_live_a', { level: 1 });
  await open('sk_sandbox_a', { level: 1, sandbox: true }); // decided at once: never in the queue
  t.same(h.events.types(), ['verification.completed'], 'only the sandbox session is decided');

  t.equal((await h.req('GET', '/v1/review/sessions')).status, 401);
  t.match(await h.req('GET', '/v1/review/sessions', { key: 'sk_live_a' }), { status: 403, body: { code: 'ROLE_FORBIDDEN' } }, 'an API key is not a reviewer');
  const queue = await h.req('GET', '/v1/review/sessions', { operator: true });
  t.equal(queue.status, 200);
  t.equal(queue.body.total, 3);
  t.same(queue.body.sessions.map((s: { id: string }) => s.id), [a.id, b.id, c.id], 'oldest first, across organizations');
  t.match(queue.body.sessions[0], { status: 'processing', organizationId: 'org_a', processingAt: /Z$/ });
  t.same((await h.req('GET', '/v1/review/sessions?organizationId=org_b', { operator: true })).body.sessions.map((s: { id: string }) => s.id), [b.id]);
  t.same((await h.req('GET', '/v1/review/sessions?limit=1&offset=1', { operator: true })).body.sessions.map((s: { id: string }) => s.id), [b.id]);

  t.match(await h.req('POST', `/v1/review/sessions/${a.id}/approve`, { operator: true }), { status: 409, body: { code: 'EVIDENCE_NOT_OPENED', detail: new RegExp(a.documentId) } }, 'nothing opened yet');
  const image = await h.req('GET', `/v1/review/sessions/${a.id}/documents/${a.documentId}`, { operator: true });
  t.same(Buffer.from(image.body.image.data, 'base64'), IMG);
  t.equal(image.body.image.mediaType, 'image/jpeg');

  const approved = await h.req('POST', `/v1/review/sessions/${a.id}/approve`, { operator: true });
  t.equal(approved.status, 200, 'the base64 route opens the document too');
  t.equal(approved.body.session.status, 'processing', 'a did:ledger subject waits for its credential');
  t.match(approved.body.session.review, { outcome: 'pass', decidedBy: { kind: 'operator' }, decidedAt: new Date(h.clock.now).toISOString() });
  t.same(h.issuance.requests.map((s) => s.id), [a.id]);
  const twice = await h.req('POST', `/v1/review/sessions/${a.id}/approve`, { operator: true });
  t.match(twice, { status: 409, body: { code: 'SESSION_NOT_IN_REVIEW' } });
  t.match(await h.req('POST', `/v1/review/sessions/${b.id}/approve`, { operator: true, body: { note: 'x' } }), { status: 400, body: { field: 'note' } });

  t.equal((await h.bytes(`/v1/review/sessions/${b.id}/evidence/${b.documentId}`, { operator: true })).status, 200);
  const approvedB = await h.req('POST', `/v1/review/sessions/${b.id}/approve`, { operator: true });
  t.match(approvedB.body.session, { status: 'completed', documents: [{ status: 'verified' }] });

  t.match(await h.req('POST', `/v1/review/sessions/${c.id}/reject`, { operator: true, body: { message: 'x' } }), { status: 400, body: { field: 'reason' } });
  t.match(await h.req('POST', `/v1/review/sessions/${c.id}/reject`, { operator: true, body: { reason: 'Face Mismatch' } }), { status: 400, body: { field: 'reason' } });
  t.match(await h.req('POST', `/v1/review/sessions/${c.id}/reject`, { operator: true, body: { reason: 'face_mismatch' } }), { status: 409, body: { code: 'EVIDENCE_NOT_OPENED' } }, 'a rejection needs the evidence opened too');
  await h.bytes(`/v1/review/sessions/${c.id}/evidence/${c.documentId}`, { operator: true });
  const rejected = await h.req('POST', `/v1/review/sessions/${c.id}/reject`, { operator: true, body: { reason: 'face_mismatch', message: 'the selfie is of someone else' } });
  t.match(rejected.body.session, { status: 'failed', reason: 'face_mismatch', message: 'the selfie is of someone else', review: { outcome: 'fail', reason: 'face_mismatch', message: 'the selfie is of someone else', decidedBy: { kind: 'operator' } } });
  t.same(h.events.events.map((e) => [e.organizationId, e.type]), [['org_a', 'verification.completed'], ['org_b', 'verification.completed'], ['org_a', 'verification.failed']]);
  t.match(h.events.events[2]!.data, { verificationId: c.id, status: 'failed', outcome: 'fail', reason: 'face_mismatch', message: 'the selfie is of someone else' });
  t.equal((await h.req('GET', '/v1/review/sessions', { operator: true })).body.total, 0);
  t.equal((await h.req('POST', '/v1/review/sessions/ver_nope/approve', { operator: true })).status, 404);
  t.match(await h.req('GET', `/v1/review/sessions/${a.id}/documents/doc_nope`, { operator: true }), { status: 404, body: { code: 'DOCUMENT_NOT_FOUND' } });
  t.match(await h.req('GET', `/v1/review/sessions/${a.id}/documents/frame_0`, { operator: true }), { status: 404, body: { code: 'DOCUMENT_NOT_FOUND' } }, 'the base64 route serves documents only');
});

t.test("a member's review desk: its organization only, every document and frame opened by the same reviewer", async (t) => {
  const h = await serve(t);
  const frames = [jpegImage(96, 96), pngImage(100, 80)];
  const s = await liveSession(h, 'sk_live_a', { level: 2, frames });
  h.clock.now += 1000;
  const other = await liveSession(h, 'sk_live_b');
  h.clock.now += 1000;
  const later = await liveSession(h, 'sk_live_a');
  const review = `/v1/review/sessions/${s.id}`;

  const list = await h.req('GET', '/v1/review/sessions?organizationId=org_b', { jwt: 'jwt_reviewer_a' });
  t.same(list.body.sessions.map((x: { id: string }) => x.id), [s.id, later.id], "the organization's own, oldest first, whatever organizationId says");
  t.equal(list.body.total, 2);
  t.same((await h.req('GET', '/v1/review/sessions', { jwt: 'jwt_legacy_a' })).body.total, 2, 'an account without a role is its organization\'s owner');
  t.same((await h.req('GET', '/v1/review/sessions', { jwt: 'jwt_reviewer_b' })).body.sessions.map((x: { id: string }) => x.id), [other.id]);
  t.match(await h.req('GET', '/v1/review/sessions', { jwt: 'jwt_developer_a' }), { status: 403, body: { code: 'ROLE_FORBIDDEN' } });
  t.match(await h.req('POST', `${review}/approve`, { jwt: 'jwt_developer_a' }), { status: 403, body: { code: 'ROLE_FORBIDDEN' } }, 'a developer cannot decide');
  t.match(await h.req('POST', `${review}/reject`, { jwt: 'jwt_developer_a', body: { reason: 'face_mismatch' } }), { status: 403, body: { code: 'ROLE_FORBIDDEN' } });

  // another organization's session is unknown to the reviewer
  t.match(await h.req('GET', `/v1/review/sessions/${other.id}/evidence`, { jwt: 'jwt_reviewer_a' }), { status: 404, body: { code: 'SESSION_NOT_FOUND' } });
  t.equal((await h.bytes(`/v1/review/sessions/${other.id}/evidence/${other.documentIds[0]}`, { jwt: 'jwt_reviewer_a' })).status, 404);
  t.match(await h.req('POST', `/v1/review/sessions/${other.id}/approve`, { jwt: 'jwt_reviewer_a' }), { status: 404, body: { code: 'SESSION_NOT_FOUND' } });
  t.match(await h.req('POST', `/v1/review/sessions/${other.id}/reject`, { jwt: 'jwt_reviewer_a', body: { reason: 'face_mismatch' } }), { status: 404 });

  const evidence = await h.req('GET', `${review}/evidence`, { jwt: 'jwt_reviewer_a' });
  t.equal(evidence.status, 200);
  t.match(evidence.body, {
    sessionId: s.id,
    status: 'processing',
    documents: [
      { evidenceId: s.documentIds[0], type: 'national_id', side: 'front', status: 'uploaded', extractedData: {}, checks: { mediaType: 'image/jpeg', width: 400, height: 300 }, opened: false },
      { evidenceId: s.documentIds[1], side: 'back', opened: false },
    ],
    liveness: { status: 'pending_review', score: null, frames: [{ evidenceId: 'frame_0', index: 0, mediaType: 'image/jpeg', opened: false }, { evidenceId: 'frame_1', index: 1, mediaType: 'image/png', opened: false }] },
  });
  const all = [...s.documentIds, 'frame_0', 'frame_1'];
  t.same(evidence.body.unopened, all);

  const refused = await h.req('POST', `${review}/approve`, { jwt: 'jwt_reviewer_a' });
  t.match(refused, { status: 409, body: { code: 'EVIDENCE_NOT_OPENED' } });
  for (const id of all) t.match(refused.body.detail, id, `the detail names ${id}`);

  const frame = await h.bytes(`${review}/evidence/frame_1`, { jwt: 'jwt_reviewer_a' });
  t.equal(frame.status, 200);
  t.equal(frame.headers.get('content-type'), 'image/png');
  t.equal(frame.headers.get('cache-control'), 'no-store');
  t.same(frame.bytes, frames[1], "the frame's bytes as submitted");
  const doc = await h.bytes(`${review}/evidence/${s.documentIds[0]}`, { jwt: 'jwt_reviewer_a' });
  t.equal(doc.headers.get('content-type'), 'image/jpeg');
  t.same(doc.bytes, jpegImage(400, 300));
  t.match(await h.req('GET', `${review}/evidence/frame_7`, { jwt: 'jwt_reviewer_a' }), { status: 404, body: { code: 'EVIDENCE_NOT_FOUND' } });
  t.match(await h.req('GET', `${review}/evidence/doc_nope`, { jwt: 'jwt_reviewer_a' }), { status: 404, body: { code: 'EVIDENCE_NOT_FOUND' } });

  // what another reviewer opens counts for them only
  await h.bytes(`${review}/evidence/${s.documentIds[1]}`, { jwt: 'jwt_reviewer2_a' });
  await h.bytes(`${review}/evidence/frame_0`, { jwt: 'jwt_reviewer2_a' });
  const still = await h.req('POST', `${review}/approve`, { jwt: 'jwt_reviewer_a' });
  t.match(still, { status: 409, body: { code: 'EVIDENCE_NOT_OPENED' } });
  t.notMatch(still.body.detail, s.documentIds[0], 'the opened front is not named');
  t.match(still.body.detail, s.documentIds[1]);
  t.match(still.body.detail, 'frame_0');
  t.same((await h.req('GET', `${review}/evidence`, { jwt: 'jwt_reviewer_a' })).body.unopened, [s.documentIds[1], 'frame_0']);
  t.match(await h.req('POST', `${review}/approve`, { jwt: 'jwt_reviewer2_a' }), { status: 409, body: { code: 'EVIDENCE_NOT_OPENED' } }, 'the second reviewer has not opened everything either');
  t.same(h.events.events, [], 'nothing decided');

  await h.bytes(`${review}/evidence/${s.documentIds[1]}`, { jwt: 'jwt_reviewer_a' });
  await h.bytes(`${review}/evidence/frame_0`, { jwt: 'jwt_reviewer_a' });
  h.clock.now += 5000;
  const approved = await h.req('POST', `${review}/approve`, { jwt: 'jwt_reviewer_a' });
  t.equal(approved.status, 200);
  t.same(approved.body.session.review, { outcome: 'pass', decidedBy: { kind: 'user', userId: 'usr_reviewer_a', email: 'reviewer_a@example.test' }, decidedAt: new Date(h.clock.now).toISOString() });
  t.match(approved.body.session, { status: 'completed', liveness: { status: 'passed' } });
  t.same((await h.req('GET', `/v1/verifications/${s.id}`, { key: 'sk_live_a' })).body.session.review, approved.body.session.review, "the session's full view shows the decision");

  // a rejection by an admin
  await h.bytes(`/v1/review/sessions/${later.id}/evidence/${later.documentIds[0]}`, { jwt: 'jwt_admin_a' });
  const rejected = await h.req('POST', `/v1/review/sessions/${later.id}/reject`, { jwt: 'jwt_admin_a', body: { reason: 'document_forged', message: 'the photo was replaced' } });
  t.match(rejected.body.session, { status: 'failed', reason: 'document_forged', review: { outcome: 'fail', reason: 'document_forged', message: 'the photo was replaced', decidedBy: { kind: 'user', userId: 'usr_admin_a' } } });
  t.same(h.events.events.map((e) => e.type), ['verification.completed', 'verification.failed']);
  t.same((await h.req('GET', '/v1/review/sessions', { jwt: 'jwt_reviewer_a' })).body.total, 0);
  t.same((await h.req('GET', '/v1/review/sessions', { operator: true })).body.sessions.map((x: { id: string }) => x.id), [other.id], 'the operator still sees every organization');
});
