import t from 'tap';
import { jpegImage, liveSession, serve } from '../../verification/harness.js';
import { EvidenceRetention } from '../../../../../plugins/kyc/verification/retention.js';

t.test("the organization's evidence routes: the API key and any member; a member's fetch opens it for the review desk", async (t) => {
  const h = await serve(t);
  const frames = [jpegImage(96, 96), jpegImage(100, 100)];
  const s = await liveSession(h, 'sk_live_a', { level: 2, frames });
  const base = `/v1/verifications/${s.id}/evidence`;

  const byKey = await h.req('GET', base, { key: 'sk_live_a' });
  t.equal(byKey.status, 200);
  t.match(byKey.body, { sessionId: s.id, documents: [{ evidenceId: s.documentIds[0] }, { evidenceId: s.documentIds[1] }], liveness: { frames: [{ evidenceId: 'frame_0' }, { evidenceId: 'frame_1' }] } });
  t.notOk('unopened' in byKey.body, 'an API key is no reviewer: nothing is marked');
  t.notOk('opened' in byKey.body.documents[0]);
  const frame = await h.bytes(`${base}/frame_1`, { key: 'sk_live_a' });
  t.same(frame.bytes, frames[1]);
  t.equal(frame.headers.get('cache-control'), 'no-store');
  t.equal(frame.headers.get('x-content-type-options'), 'nosniff');

  t.same((await h.req('GET', base, { jwt: 'jwt_developer_a' })).body.unopened, [...s.documentIds, 'frame_0', 'frame_1'], 'a developer reads the evidence too');
  for (const id of [...s.documentIds, 'frame_0', 'frame_1']) t.equal((await h.bytes(`${base}/${id}`, { jwt: 'jwt_reviewer_a' })).status, 200, id);
  t.same((await h.req('GET', `/v1/review/sessions/${s.id}/evidence`, { jwt: 'jwt_reviewer_a' })).body.unopened, [], 'what the reviewer opened here counts on the desk');
  t.equal((await h.req('POST', `/v1/review/sessions/${s.id}/approve`, { jwt: 'jwt_reviewer_a' })).status, 200);

  t.equal((await h.req('GET', base, { key: 'sk_live_b' })).status, 404);
  t.equal((await h.bytes(`${base}/frame_0`, { jwt: 'jwt_reviewer_b' })).status, 404);
  t.match(await h.req('GET', base, { operator: true }), { status: 403, body: { code: 'ROLE_FORBIDDEN' } }, 'the operator uses the review desk');
  t.equal((await h.req('GET', base)).status, 401);
  t.match(await h.req('GET', `${base}?x=1`, { key: 'sk_live_a' }), { status: 400, body: { field: 'x' } });
  const level1 = await liveSession(h, 'sk_live_a');
  t.match((await h.req('GET', `/v1/verifications/${level1.id}/evidence`, { key: 'sk_live_a' })).body, { documents: [{ evidenceId: level1.documentIds[0] }], liveness: null });
});

t.test('after the retention: 410 EVIDENCE_DELETED with the time, on every evidence route; still 404 for another organization', async (t) => {
  const h = await serve(t, { config: { evidenceRetentionDays: 1 } });
  const s = await liveSession(h, 'sk_live_a', { level: 2 });
  await h.sessions.decide(s.id, { outcome: 'fail', reason: 'face_mismatch', message: 'the faces differ' });
  h.clock.now += 86_400_000;
  t.equal(await new EvidenceRetention(h.sessions.store, { retentionDays: 1 }).purgeDue(h.clock.now), 1);
  const at = new Date(h.clock.now).toISOString();
  const paths = [
    [`/v1/verifications/${s.id}/evidence/${s.documentIds[0]}`, { key: 'sk_live_a' }],
    [`/v1/verifications/${s.id}/evidence/frame_0`, { jwt: 'jwt_developer_a' }],
    [`/v1/review/sessions/${s.id}/evidence/frame_0`, { jwt: 'jwt_reviewer_a' }],
    [`/v1/review/sessions/${s.id}/documents/${s.documentIds[1]}`, { operator: true }],
  ] as const;
  for (const [path, as] of paths) {
    const res = await h.req('GET', path, as);
    t.match(res, { status: 410, body: { status: 410, title: 'Gone', code: 'EVIDENCE_DELETED', detail: `the images of this session were deleted at ${at}, after the retention period; the record and the checks are kept` } }, path);
    t.equal(res.headers.get('x-evidence-deleted-at'), at);
    t.match(res.headers.get('content-type'), /^application\/problem\+json/);
  }
  t.equal((await h.req('GET', `/v1/verifications/${s.id}/evidence/frame_0`, { key: 'sk_live_b' })).status, 404, 'another organization learns nothing');
  const list = await h.req('GET', `/v1/review/sessions/${s.id}/evidence`, { jwt: 'jwt_reviewer_a' });
  t.match(list.body, { status: 'failed', evidenceDeletedAt: at, documents: [{ deletedAt: at }, { deletedAt: at }], liveness: { frames: [{ evidenceId: 'frame_0', deletedAt: at, bytes: null }] } });
});
