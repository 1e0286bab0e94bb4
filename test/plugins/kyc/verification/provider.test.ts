import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { verifyWebhookSignature } from '../../../../plugins/common/webhooks/signature.js';
import { HttpVerificationProvider, parseProviderAnswer } from '../../../../plugins/kyc/verification/provider.js';
import { jpegImage, LEDGER_DID, pngImage, setup } from './harness.js';

const SECRET = 'provider-secret-0123456789';
const IMG = jpegImage(320, 320);
const FRAMES = [jpegImage(100, 100), pngImage(120, 90), jpegImage(90, 110)];

/** A provider endpoint: checks the signature, records the request, answers what `answer` says. */
async function providerServer(t: Test, answer: () => { status: number; body: string }) {
  const seen: Array<{ ok: boolean; body: any }> = [];
  const server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    seen.push({ ok: verifyWebhookSignature(req.headers['ledger-signature'], raw, SECRET), body: JSON.parse(raw.toString('utf8')) });
    const a = answer();
    res.writeHead(a.status, { 'content-type': 'application/json' }).end(a.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/decide`, seen };
}

t.test('answers are read strictly', async (t) => {
  t.same(parseProviderAnswer({ outcome: 'review' }), 'review');
  t.same(parseProviderAnswer({ outcome: 'pass', score: 0.93 }), { outcome: 'pass', score: 0.93 });
  t.same(parseProviderAnswer({ outcome: 'fail', reason: 'face_mismatch', message: 'no' }), { outcome: 'fail', reason: 'face_mismatch', message: 'no' });
  for (const bad of [null, [], { outcome: 'yes' }, { outcome: 'fail' }, { outcome: 'pass', score: 2 }, { outcome: 'pass', extra: 1 }, { outcome: 'fail', reason: 'Bad Reason' }]) {
    t.throws(() => parseProviderAnswer(bad), { code: 'PROVIDER_ANSWER_INVALID' }, JSON.stringify(bad));
  }
});

t.test('a configured provider decides live sessions; errors leave them in review', async (t) => {
  let next = { status: 200, body: JSON.stringify({ outcome: 'pass', score: 0.91 }) };
  const endpoint = await providerServer(t, () => next);
  const provider = new HttpVerificationProvider({ url: endpoint.url, secret: SECRET });
  const { sessions, review, events, issuance } = await setup(t, { provider });
  const caller = { organizationId: 'org_a', apiKey: { id: 'k', mode: 'live' as const } };
  const run = async (level: 1 | 2, subjectDid?: string) => {
    const s = (await sessions.create(caller, { level, sandbox: false, metadata: { ref: 'x' }, ...(subjectDid ? { subjectDid } : {}) })).session;
    const ref = { token: s.sessionToken as string };
    await sessions.uploadDocument(ref, { type: 'passport', side: 'front', final: true, file: IMG });
    if (level === 2) {
      await sessions.livenessChallenge(ref);
      await sessions.submitLiveness(ref, FRAMES);
    }
    await sessions.idle();
    return sessions.get('org_a', s.id as string);
  };

  const passed = await run(2, LEDGER_DID);
  t.equal(passed.status, 'processing', 'passed, waiting for the credential');
  t.match(passed.liveness, { status: 'passed', score: 0.91 });
  t.match(passed.review, { outcome: 'pass', decidedBy: { kind: 'provider' }, decidedAt: /Z$/ }, 'the decision says the provider made it');
  t.same(issuance.requests.map((s) => s.id), [passed.id]);
  t.equal(endpoint.seen.length, 1);
  t.ok(endpoint.seen[0]!.ok, 'the request is signed with the provider secret');
  t.match(endpoint.seen[0]!.body, { session: { id: passed.id, level: 2, subjectDid: LEDGER_DID, metadata: { ref: 'x' } }, documents: [{ type: 'passport', side: 'front', mediaType: 'image/jpeg' }] });
  t.same(Buffer.from(endpoint.seen[0]!.body.documents[0].data, 'base64'), IMG, 'with the image bytes');
  const liveness = endpoint.seen[0]!.body.liveness;
  t.match(liveness, { status: 'pending_review', score: null, completedAt: /Z$/ });
  t.same(liveness.frames.map((f: { index: number; mediaType: string }) => [f.index, f.mediaType]), [[0, 'image/jpeg'], [1, 'image/png'], [2, 'image/jpeg']], 'every frame, in order, typed by its bytes');
  liveness.frames.forEach((f: { data: string }, i: number) => t.same(Buffer.from(f.data, 'base64'), FRAMES[i], `frame ${i}'s bytes`));

  next = { status: 200, body: JSON.stringify({ outcome: 'fail', reason: 'document_forged', message: 'tampered' }) };
  t.match(await run(1), { status: 'failed', reason: 'document_forged', message: 'tampered' });
  t.equal(endpoint.seen[1]!.body.liveness, null, 'a level 1 session has no liveness');
  t.match(events.events.at(-1), { type: 'verification.failed', data: { reason: 'document_forged' } });

  for (const answer of [{ status: 200, body: JSON.stringify({ outcome: 'review' }) }, { status: 500, body: '{}' }, { status: 200, body: 'not json' }, { status: 200, body: JSON.stringify({ outcome: 'maybe' }) }]) {
    next = answer;
    t.equal((await run(1)).status, 'processing', `${answer.status} ${answer.body}: stays for review`);
  }
  t.equal((await review.list({ kind: 'operator' }, { limit: 20, offset: 0 })).total, 4);
});
