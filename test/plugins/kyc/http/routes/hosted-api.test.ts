import t from 'tap';
import { docForm, framesForm, issued, jpegImage, LEDGER_DID, serve } from '../../verification/harness.js';

const IMG = jpegImage(400, 300);
const FRAME = jpegImage(96, 96);

t.test('a level 3 sandbox session through the session-token routes', async (t) => {
  const h = await serve(t);
  const { session } = (await h.req('POST', '/v1/verifications', { key: 'sk_sandbox_a', body: { level: 3, sandbox: true, subjectDid: LEDGER_DID, redirectUrl: 'https://shop.test/back' } })).body;
  const base = `/v1/verifications/s/${session.sessionToken}`;
  const view = await h.req('GET', base);
  t.equal(view.status, 200);
  t.same(view.body.session, { id: session.id, status: 'pending', level: 3, organizationName: 'Acme Bank', organization: { name: 'Acme Bank' }, steps: ['document', 'liveness', 'address'], currentStep: 'document', completedSteps: [], expiresAt: session.expiresAt, redirectUrl: 'https://shop.test/back', evidenceRetentionDays: 30 });
  t.equal((await h.req('POST', `${base}/documents`, { form: docForm(IMG, { type: 'passport', side: 'front', final: 'true' }) })).status, 201);
  t.equal((await h.req('GET', base)).body.session.currentStep, 'liveness');
  const ch = await h.req('GET', `${base}/liveness-challenge`);
  t.equal(ch.status, 200);
  t.same((await h.req('POST', `${base}/liveness`, { form: framesForm([FRAME, FRAME, FRAME]) })).body, { liveness: { status: 'passed', score: 0.99 } });
  t.equal((await h.req('GET', base)).body.session.currentStep, 'address');
  const addr = await h.req('POST', `${base}/documents`, { form: docForm(IMG, { type: 'address_proof', side: 'front', final: 'true' }) });
  t.equal(addr.status, 201);
  // passed with a did:ledger subject: processing until the issuer reports the credential
  t.match((await h.req('GET', base)).body.session, { status: 'processing', currentStep: null });
  t.same(h.issuance.requests.map((s) => s.id), [session.id]);
  await h.sessions.credentialIssued(session.id, issued(LEDGER_DID));
  const done = (await h.req('GET', base)).body.session;
  t.match(done, { status: 'completed', credentialOfferUri: issued(LEDGER_DID).credentialOfferUri, redirectUrl: 'https://shop.test/back' });
  t.notOk('credentialId' in done, 'the hosted view is not the full session');
  t.same(h.events.types(), ['verification.completed', 'credential.issued']);
  const late = await h.req('POST', `${base}/documents`, { form: docForm(IMG, { type: 'passport', side: 'front' }) });
  t.match(late, { status: 409, body: { code: 'SESSION_NOT_PENDING' } });
});

t.test('unknown tokens are 404; the failed view carries the reason', async (t) => {
  const h = await serve(t);
  for (const token of ['sess_tok_' + 'A'.repeat(43), 'nope']) {
    for (const [method, suffix, form] of [['GET', ''], ['GET', '/liveness-challenge'], ['POST', '/documents', docForm(IMG, { type: 'passport', side: 'front' })], ['POST', '/liveness', framesForm([FRAME])]] as Array<[string, string, FormData?]>) {
      const r = await h.req(method, `/v1/verifications/s/${token}${suffix}`, form ? { form } : {});
      t.equal(r.status, 404, `${method} ${suffix} ${token.slice(0, 12)}`);
    }
  }
  const { session } = (await h.req('POST', '/v1/verifications', { key: 'sk_sandbox_a', body: { level: 1, sandbox: true, sandboxOutcome: 'fail' } })).body;
  const base = `/v1/verifications/s/${session.sessionToken}`;
  t.match((await h.req('GET', `${base}/liveness-challenge`)).body, { status: 409, code: 'LIVENESS_NOT_IN_LEVEL' });
  await h.req('POST', `${base}/documents`, { form: docForm(IMG, { type: 'passport', side: 'front', final: 'true' }) });
  const failed = (await h.req('GET', base)).body.session;
  t.match(failed, { status: 'failed', reason: 'face_mismatch', message: 'the document could not be verified (sandbox outcome fail)' }, 'the code is kept');
  t.notMatch(failed.message, /liveness|face/, 'a level-1 session had no liveness step to speak of');
  t.same(h.events.events.map((e) => [e.type, e.data.reason]), [['verification.failed', 'face_mismatch']]);
});
