import t from 'tap';
import { recordingEvents } from '../../../../../plugins/kyc/verification/history.js';
import { receiver, until } from '../../webhooks/harness.js';
import { docForm, issued, jpegImage, LEDGER_DID, liveSession, ORG_A, serve } from '../../verification/harness.js';

const path = (id: string) => `/v1/verifications/${id}/timeline`;

t.test("a session's timeline: every change with its time and actor, and the events sent for it with their deliveries", async (t) => {
  const h = await serve(t);
  const rx = await receiver(t);
  const ep = await h.webhooks.endpoints.create(ORG_A, { url: rx.url, events: ['verification.completed', 'credential.issued', 'credential.revoked'] });
  rx.secrets.push(ep.secret);

  const created = h.clock.now;
  const s = await liveSession(h, 'sk_live_a', { level: 2, subjectDid: LEDGER_DID });
  h.clock.now += 60_000;
  const desk = `/v1/review/sessions/${s.id}`;
  for (const id of [...s.documentIds, 'frame_0']) await h.bytes(`${desk}/evidence/${id}`, { jwt: 'jwt_reviewer_a' });
  t.equal((await h.req('POST', `${desk}/approve`, { jwt: 'jwt_reviewer_a' })).status, 200);
  h.clock.now += 60_000;
  await h.sessions.credentialIssued(s.id, issued(LEDGER_DID));

  const res = await h.req('GET', path(s.id), { jwt: 'jwt_developer_a' });
  t.equal(res.status, 200, 'any member reads it');
  const { timeline, events } = res.body;
  t.same(
    timeline.map((e: { type: string; actor: { kind: string } }) => [e.type, e.actor.kind]),
    [
      ['created', 'api-key'],
      ['document_uploaded', 'subject'],
      ['document_uploaded', 'subject'],
      ['liveness_submitted', 'subject'],
      ['processing', 'subject'],
      ['decided', 'user'],
      ['completed', 'system'],
      ['credential_issued', 'system'],
    ],
    'in the order they happened',
  );
  t.same(timeline[0], { at: new Date(created).toISOString(), type: 'created', actor: { kind: 'api-key', keyId: 'key_live_a' }, detail: { level: 2, mode: 'live' } });
  t.match(timeline[1], { detail: { documentId: s.documentIds[0], documentType: 'national_id', side: 'front', status: 'uploaded' } });
  t.match(timeline[3], { detail: { frames: 1 } });
  t.same(timeline[5], { at: new Date(created + 60_000).toISOString(), type: 'decided', actor: { kind: 'user', userId: 'usr_reviewer_a', email: 'reviewer_a@example.test' }, detail: { outcome: 'pass', reason: null } });
  t.match(timeline[7], { at: new Date(created + 120_000).toISOString(), detail: { credentialId: issued(LEDGER_DID).credentialId } });

  t.same(events.map((e: { type: string }) => e.type), ['verification.completed', 'credential.issued']);
  await until(() => rx.received.length === 2, 5000, 'both deliveries');
  const delivered = (await h.req('GET', path(s.id), { key: 'sk_live_a' })).body.events;
  for (const e of delivered) {
    t.equal(e.id, rx.received.find((r) => r.json.type === e.type)!.json.id, `${e.type}: the id the receiver got`);
    t.match(e, { createdAt: /Z$/, deliveries: [{ id: /^del_/, endpointId: ep.id, status: 'delivered', statusCode: 200, attemptNumber: 1 }] });
  }

  // a revocation, sent by the issuer outside the session's changes, is recorded with the session
  const revoked = { credentialId: issued(LEDGER_DID).credentialId, subjectDid: LEDGER_DID, revokedBy: 'did:ledger:testnet:issuer', reason: 'stolen', txHash: 'ab'.repeat(32) };
  await recordingEvents(h.webhooks, h.sessions, async (id) => (id === revoked.credentialId ? s.id : undefined)).emit(ORG_A, 'credential.revoked', revoked);
  await until(() => rx.received.length === 3, 5000, 'the revocation delivered');
  const after = (await h.req('GET', path(s.id), { key: 'sk_live_a' })).body.events;
  t.equal(after.length, 3);
  t.match(after[2], { id: rx.received[2]!.json.id, type: 'credential.revoked', deliveries: [{ endpointId: ep.id }] });

  t.match(await h.req('GET', path(s.id), { jwt: 'jwt_reviewer_b' }), { status: 404, body: { code: 'SESSION_NOT_FOUND' } }, "another organization's member");
  t.equal((await h.req('GET', path(s.id), { key: 'sk_live_b' })).status, 404);
  t.match(await h.req('GET', path(s.id), { operator: true }), { status: 403, body: { code: 'ROLE_FORBIDDEN' } });
  t.equal((await h.req('GET', path(s.id))).status, 401);
  t.match(await h.req('GET', `${path(s.id)}?x=1`, { key: 'sk_live_a' }), { status: 400, body: { field: 'x' } });
});

t.test('sandbox decisions, rejections and expiry are on the timeline with their actor', async (t) => {
  const h = await serve(t);
  const sandbox = (await h.req('POST', '/v1/verifications', { key: 'sk_sandbox_a', body: { level: 1, sandbox: true, sandboxOutcome: 'fail' } })).body.session;
  await h.req('POST', `/v1/verifications/${sandbox.id}/documents`, { key: 'sk_sandbox_a', form: docForm(jpegImage(400, 300), { type: 'passport', side: 'front', final: 'true' }) });
  const tl = (await h.req('GET', path(sandbox.id), { key: 'sk_sandbox_a' })).body.timeline;
  t.same(tl.map((e: { type: string; actor: { kind: string } }) => [e.type, e.actor.kind]), [['created', 'api-key'], ['document_uploaded', 'api-key'], ['processing', 'api-key'], ['decided', 'api-key'], ['failed', 'api-key']]);
  t.match(tl[4], { detail: { reason: 'face_mismatch' } });
  t.match((await h.req('GET', `/v1/verifications/${sandbox.id}`, { key: 'sk_sandbox_a' })).body.session.review, { outcome: 'fail', reason: 'face_mismatch', decidedBy: { kind: 'sandbox' } });

  const pending = (await h.req('POST', '/v1/verifications', { key: 'sk_live_a', body: { level: 1 } })).body.session;
  h.clock.now += 3600_000;
  await h.sessions.expireDue(h.clock.now);
  const expired = (await h.req('GET', path(pending.id), { jwt: 'jwt_owner_a' })).body.timeline;
  t.same(expired.map((e: { type: string; actor: { kind: string } }) => [e.type, e.actor.kind]), [['created', 'api-key'], ['expired', 'system']]);
  t.match(expired[1], { detail: { reason: 'session_ttl' } });
});
