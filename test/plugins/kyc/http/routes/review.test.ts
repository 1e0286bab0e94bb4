import t from 'tap';
import { docForm, jpegImage, LEDGER_DID, serve } from '../../verification/harness.js';

const IMG = jpegImage(400, 300);

t.test('the operator review queue decides live sessions', async (t) => {
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
  t.equal((await h.req('GET', '/v1/review/sessions', { key: 'sk_live_a' })).status, 401, 'an API key is not the operator');
  const queue = await h.req('GET', '/v1/review/sessions', { operator: true });
  t.equal(queue.status, 200);
  t.equal(queue.body.total, 3);
  t.same(queue.body.sessions.map((s: { id: string }) => s.id), [a.id, b.id, c.id], 'oldest first, across organizations');
  t.match(queue.body.sessions[0], { status: 'processing', organizationId: 'org_a', processingAt: /Z$/ });
  t.same((await h.req('GET', '/v1/review/sessions?organizationId=org_b', { operator: true })).body.sessions.map((s: { id: string }) => s.id), [b.id]);
  t.same((await h.req('GET', '/v1/review/sessions?limit=1&offset=1', { operator: true })).body.sessions.map((s: { id: string }) => s.id), [b.id]);
  const image = await h.req('GET', `/v1/review/sessions/${a.id}/documents/${a.documentId}`, { operator: true });
  t.same(Buffer.from(image.body.image.data, 'base64'), IMG);
  t.equal(image.body.image.mediaType, 'image/jpeg');

  const approved = await h.req('POST', `/v1/review/sessions/${a.id}/approve`, { operator: true });
  t.equal(approved.status, 200);
  t.equal(approved.body.session.status, 'processing', 'a did:ledger subject waits for its credential');
  t.same(h.issuance.requests.map((s) => s.id), [a.id]);
  const twice = await h.req('POST', `/v1/review/sessions/${a.id}/approve`, { operator: true });
  t.match(twice, { status: 409, body: { code: 'SESSION_NOT_IN_REVIEW' } });
  t.match(await h.req('POST', `/v1/review/sessions/${b.id}/approve`, { operator: true, body: { note: 'x' } }), { status: 400, body: { field: 'note' } });

  const approvedB = await h.req('POST', `/v1/review/sessions/${b.id}/approve`, { operator: true });
  t.match(approvedB.body.session, { status: 'completed', documents: [{ status: 'verified' }] });

  t.match(await h.req('POST', `/v1/review/sessions/${c.id}/reject`, { operator: true, body: { message: 'x' } }), { status: 400, body: { field: 'reason' } });
  t.match(await h.req('POST', `/v1/review/sessions/${c.id}/reject`, { operator: true, body: { reason: 'Face Mismatch' } }), { status: 400, body: { field: 'reason' } });
  const rejected = await h.req('POST', `/v1/review/sessions/${c.id}/reject`, { operator: true, body: { reason: 'face_mismatch', message: 'the selfie is of someone else' } });
  t.match(rejected.body.session, { status: 'failed', reason: 'face_mismatch', message: 'the selfie is of someone else' });
  t.same(h.events.events.map((e) => [e.organizationId, e.type]), [['org_a', 'verification.completed'], ['org_b', 'verification.completed'], ['org_a', 'verification.failed']]);
  t.match(h.events.events[2]!.data, { verificationId: c.id, status: 'failed', outcome: 'fail', reason: 'face_mismatch', message: 'the selfie is of someone else' });
  t.equal((await h.req('GET', '/v1/review/sessions', { operator: true })).body.total, 0);
  t.equal((await h.req('POST', '/v1/review/sessions/ver_nope/approve', { operator: true })).status, 404);
  t.equal((await h.req('GET', `/v1/review/sessions/${a.id}/documents/doc_nope`, { operator: true })).status, 404);
});
