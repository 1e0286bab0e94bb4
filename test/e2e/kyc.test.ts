import t from 'tap';
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';
import * as OTPAuth from 'otpauth';
import { KycClient } from '../../bench/lib/kyc/client.js';
import { testJpeg } from '../../bench/lib/kyc/images.js';
import { WebhookReceiver } from '../../bench/lib/kyc/receiver.js';
import { OPERATOR_TOKEN, startKycNode, subjectOnChain } from './kyc/setup.js';

/**
 * The KYC service on a real node process: an organization registers, turns on TOTP, resets its
 * password by mail (a real SMTP server here), creates a sandbox key and a webhook endpoint, and
 * runs sessions to each sandbox outcome. A pass yields signed webhooks and a credential that the
 * node's JSON-RPC reports valid. A live session never passes by itself: the operator's review
 * queue decides it.
 */

async function smtpServer(t: { teardown(fn: () => unknown): void }): Promise<{ url: string; mails: string[] }> {
  const mails: string[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, done) {
      let text = '';
      stream.on('data', (c: Buffer) => (text += c.toString('utf8')));
      stream.on('end', () => {
        mails.push(text);
        done();
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  return { url: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`, mails };
}

const until = async <T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> => {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
};

t.test('accounts, sandbox outcomes, webhooks and a credential on chain', async (t) => {
  const smtp = await smtpServer(t);
  const n = await startKycNode(t, { email: { smtpUrl: smtp.url, from: 'KYC <kyc@example.org>' } });
  const receiver = new WebhookReceiver();
  const hookUrl = await receiver.start();
  t.teardown(() => receiver.close());
  const api = new KycClient(n.kyc);

  await t.test('register, me, password reset over SMTP, TOTP', async (t) => {
    const reg = await api.register('owner@example.org', 'correct horse battery staple', 'Ada Owner');
    t.match(reg.user, { id: /^usr_/, email: 'owner@example.org', name: 'Ada Owner', organizationId: /^org_/ });
    const me = await api.call('GET', '/v1/auth/me', { auth: 'jwt' });
    t.match(me.organization, { id: reg.user.organizationId, totpEnabled: false });

    const known = await api.call('POST', '/v1/auth/forgot-password', { body: { email: 'owner@example.org' } });
    const unknown = await api.call('POST', '/v1/auth/forgot-password', { body: { email: 'nobody@example.org' } });
    t.same(known, unknown, 'the same answer whether or not the account exists');
    const mail = await until('the reset mail', async () => smtp.mails.find((m) => m.includes('owner@example.org')));
    t.equal(smtp.mails.length, 1, 'one mail: none for the unknown address');
    const token = /token=([A-Za-z0-9_-]+)/.exec(mail.replace(/=\r?\n/g, '').replace(/=3D/g, '='))?.[1];
    t.ok(token, 'the mail carries the reset token');
    await api.call('POST', '/v1/auth/reset-password', { body: { token, password: 'a new long passphrase 2' } });
    const again = await fetch(`${n.kyc}/v1/auth/reset-password`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token, password: 'another passphrase 3' }) });
    t.equal(again.status, 400, 'a reset token works once');
    api.jwt = (await api.call('POST', '/v1/auth/login', { body: { email: 'owner@example.org', password: 'a new long passphrase 2' } })).token;
    const setup = await api.call('POST', '/v1/auth/totp/setup', { auth: 'jwt' });
    t.match(setup.qrCode, /^data:image\/png;base64,/);
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(setup.secret) });
    await api.call('POST', '/v1/auth/totp/enable', { auth: 'jwt', body: { secret: setup.secret, totpCode: totp.generate() } });
    t.same(await api.call('POST', '/v1/auth/login', { body: { email: 'owner@example.org', password: 'a new long passphrase 2' } }), { totpRequired: true });
    const next = totp.generate({ timestamp: Date.now() + 30_000 });
    const login = await api.call('POST', '/v1/auth/login', { body: { email: 'owner@example.org', password: 'a new long passphrase 2', totpCode: next } });
    t.ok(login.token, 'a code of the next step logs in');
    const replay = await fetch(`${n.kyc}/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'owner@example.org', password: 'a new long passphrase 2', totpCode: next }) });
    t.equal(replay.status, 401, 'the same code is refused the second time');
    api.jwt = login.token;
  });

  const subject = await subjectOnChain(n, 0);
  await api.createKey('sandbox');
  const hook = await api.addWebhook(hookUrl, ['verification.completed', 'verification.failed', 'verification.expired', 'credential.issued']);
  receiver.secret = hook.secret;

  await t.test('a sandbox pass: documents, liveness, webhooks, a credential valid on chain', async (t) => {
    const metadata = { orderId: 12345, vip: true, customer: 'c-1', tags: ['gold', 2, null], address: { zip: '10115', floor: 3.5 } };
    const { session, sessionUrl } = await api.createSession({ level: 2, sandbox: true, sandboxOutcome: 'pass', subjectDid: subject.did, metadata });
    t.match(session, { id: /^ver_/, status: 'pending', level: 2, sandbox: true, sessionToken: /^sess_tok_/ });
    t.same(session.metadata, metadata, 'metadata of any JSON values, as given');
    t.equal(sessionUrl, `${n.kyc}/v/s/${session.sessionToken}`);
    t.match(await api.uploadDocument(session.id, testJpeg(800, 500, 1), { type: 'passport', side: 'front', final: true }), { document: { id: /^doc_/, type: 'passport', side: 'front' } });
    t.match(await api.livenessChallenge(session.id), { challenge: { id: /^chl_/, type: 'head_turn' } });
    t.match(await api.liveness(session.id, [testJpeg(320, 240, 2), testJpeg(320, 240, 3), testJpeg(320, 240, 4)]), { liveness: { status: 'passed' } });

    const completed = await receiver.waitFor((e) => e.type === 'verification.completed' && e.data.verificationId === session.id);
    const issued = await receiver.waitFor((e) => e.type === 'credential.issued' && e.data.subjectDid === subject.did);
    t.match(completed.data, { verificationId: session.id, status: 'completed', outcome: 'pass', subjectDid: subject.did, level: 2, credentialId: /^urn:ledger:credential:/ });
    t.same(completed.data.metadata, metadata, 'the webhook carries the metadata as given');
    t.match(issued.data, { credentialId: completed.data.credentialId, type: ['VerifiableCredential', 'KYCCredential'], issuer: /^did:ledger:testnet:/, txHash: /^[0-9a-f]{64}$/ });
    t.ok(completed.at <= issued.at, 'verification.completed comes first');
    const verified = await n.rpc.credentialVerify(issued.data.credentialId as string);
    t.match(verified, { valid: true, revoked: false, credential: { subject_did: subject.did, kyc_level: 2 } });
    const full = (await api.getSession(session.id)).session;
    t.match(full, { status: 'completed', credentialId: issued.data.credentialId, liveness: { status: 'passed' } });
    t.notOk('sessionToken' in full, 'the token is shown at creation only');
    t.same(full.metadata, metadata, 'read back from the store as given');
    const listed = (await api.call('GET', '/v1/verifications?status=completed', { auth: 'key' })).sessions.find((s: { id: string }) => s.id === session.id);
    t.same(listed.metadata, metadata, 'and in the list');
  });

  await t.test('sandbox fail, document_rejected and timeout', async (t) => {
    const fail = (await api.createSession({ level: 1, sandbox: true, sandboxOutcome: 'fail', subjectDid: subject.did })).session;
    await api.uploadDocument(fail.id, testJpeg(800, 500, 5), { type: 'national_id', side: 'front', final: true });
    const failed = await receiver.waitFor((e) => e.type === 'verification.failed' && e.data.verificationId === fail.id);
    t.match(failed.data, { status: 'failed', outcome: 'fail', reason: /\w+/, message: /\w+/ });

    const rejected = (await api.createSession({ level: 1, sandbox: true, sandboxOutcome: 'document_rejected' })).session;
    await api.uploadDocument(rejected.id, testJpeg(800, 500, 6), { type: 'passport', side: 'front', final: true });
    const rej = await receiver.waitFor((e) => e.type === 'verification.failed' && e.data.verificationId === rejected.id);
    t.equal(rej.data.reason, 'document_rejected');

    const timeout = (await api.createSession({ level: 1, sandbox: true, sandboxOutcome: 'timeout' })).session;
    await api.uploadDocument(timeout.id, testJpeg(800, 500, 7), { type: 'passport', side: 'front', final: true });
    await receiver.waitFor((e) => e.type === 'verification.expired' && e.data.verificationId === timeout.id);
    t.equal((await api.getSession(timeout.id)).session.status, 'expired');

    const list = await api.call('GET', '/v1/verifications?status=failed', { auth: 'key' });
    t.equal(list.total, 2);
    t.same(new Set(list.sessions.map((s: { id: string }) => s.id)), new Set([fail.id, rejected.id]));
  });

  await t.test('a live session waits for the review queue; the operator decides', async (t) => {
    await api.createKey('live');
    const live = (await api.createSession({ level: 1, subjectDid: subject.did })).session;
    t.equal(live.sandbox, false);
    await api.uploadDocument(live.id, testJpeg(1000, 700, 8), { type: 'passport', side: 'front', final: true });
    await new Promise((r) => setTimeout(r, 1500));
    t.equal((await api.getSession(live.id)).session.status, 'processing', 'no decision without a reviewer');
    const op = { authorization: `Bearer ${OPERATOR_TOKEN}`, 'content-type': 'application/json' };
    const queue = (await (await fetch(`${n.kyc}/v1/review/sessions`, { headers: op })).json()) as { sessions: Array<{ id: string }> };
    t.ok(queue.sessions.some((s) => s.id === live.id), 'the session is in the review queue');
    const unopened = await fetch(`${n.kyc}/v1/review/sessions/${live.id}/approve`, { method: 'POST', headers: op });
    t.match(await unopened.json(), { status: 409, code: 'EVIDENCE_NOT_OPENED' }, 'no decision on evidence the reviewer was not shown');
    const evidence = (await (await fetch(`${n.kyc}/v1/review/sessions/${live.id}/evidence`, { headers: op })).json()) as { unopened: string[] };
    for (const id of evidence.unopened) {
      const image = await fetch(`${n.kyc}/v1/review/sessions/${live.id}/evidence/${id}`, { headers: op });
      t.equal(image.headers.get('content-type'), 'image/jpeg');
      await image.arrayBuffer();
    }
    const approve = await fetch(`${n.kyc}/v1/review/sessions/${live.id}/approve`, { method: 'POST', headers: op });
    t.equal(approve.status, 200);
    const completed = await receiver.waitFor((e) => e.type === 'verification.completed' && e.data.verificationId === live.id);
    const issued = await receiver.waitFor((e) => e.type === 'credential.issued' && e.data.credentialId === completed.data.credentialId);
    t.match(await n.rpc.credentialVerify(issued.data.credentialId as string), { valid: true, credential: { kyc_level: 1 } });

    // the owner's account reads the session's history and revokes the credential
    const ownerId = (await api.call('GET', '/v1/auth/me', { auth: 'jwt' })).user.id;
    const timeline = await api.call('GET', `/v1/verifications/${live.id}/timeline`, { auth: 'jwt' });
    t.same(timeline.timeline.map((e: { type: string }) => e.type), ['created', 'document_uploaded', 'processing', 'decided', 'completed', 'credential_issued']);
    t.match(timeline.timeline[3], { actor: { kind: 'operator' }, detail: { outcome: 'pass' } });
    t.same(timeline.events.map((e: { id: string }) => e.id), [completed.id, issued.id], 'the events the receiver got, by id');
    t.match(timeline.events[0].deliveries, [{ endpointId: hook.id, status: 'delivered', statusCode: 200 }]);
    const revoked = await api.call('POST', `/v1/verifications/${live.id}/revoke`, { auth: 'jwt', body: { reason: 'reported stolen' } });
    t.match(revoked, { credentialId: issued.data.credentialId, revoked: true, txHash: /^[0-9a-f]{64}$/ });
    t.match(await n.rpc.credentialVerify(issued.data.credentialId as string), { valid: false, revoked: true });
    const after = await api.call('GET', `/v1/verifications/${live.id}/timeline`, { auth: 'jwt' });
    t.match(after.timeline.at(-1), { type: 'credential_revoked', actor: { kind: 'user', userId: ownerId }, detail: { credentialId: issued.data.credentialId, reason: 'reported stolen' } });
    t.match(after.events.at(-1), { type: 'credential.revoked', deliveries: [] }, 'sent, to no endpoint: none subscribes to it');
    const listed = await api.call('GET', '/v1/credentials?mode=live', { auth: 'jwt' });
    t.match(listed, { total: 1, credentials: [{ credentialId: issued.data.credentialId, sessionId: live.id, level: 1, revoked: true, revocationReason: 'reported stolen' }] });
  });

  await t.test("the organization's owner reviews a live session with its face on the desk", async (t) => {
    const live = (await api.createSession({ level: 2 })).session;
    await api.uploadDocument(live.id, testJpeg(1000, 700, 9), { type: 'passport', side: 'front', final: true });
    await api.livenessChallenge(live.id);
    await api.liveness(live.id, [testJpeg(320, 320, 10), testJpeg(320, 320, 11)]);
    const desk = await api.call('GET', '/v1/review/sessions', { auth: 'jwt' });
    t.same(desk.sessions.map((s: { id: string }) => s.id), [live.id], "the organization's own session waiting for a decision");
    const path = `/v1/review/sessions/${live.id}`;
    const evidence = await api.call('GET', `${path}/evidence`, { auth: 'jwt' });
    t.equal(evidence.liveness.frames.length, 2, 'the liveness frames are evidence');
    const auth = { authorization: `Bearer ${api.jwt}` };
    for (const id of evidence.unopened.slice(0, -1)) await (await fetch(`${n.kyc}${path}/evidence/${id}`, { headers: auth })).arrayBuffer();
    const refused = await fetch(`${n.kyc}${path}/reject`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ reason: 'face_mismatch' }) });
    t.match(await refused.json(), { status: 409, code: 'EVIDENCE_NOT_OPENED', detail: /frame_1/ }, 'the last frame was not opened');
    const last = await fetch(`${n.kyc}${path}/evidence/frame_1`, { headers: auth });
    t.equal(last.headers.get('cache-control'), 'no-store');
    await last.arrayBuffer();
    const rejected = await api.call('POST', `${path}/reject`, { auth: 'jwt', body: { reason: 'face_mismatch', message: 'the face is not the passport photo' } });
    t.match(rejected.session.review, { outcome: 'fail', reason: 'face_mismatch', decidedBy: { kind: 'user', email: 'owner@example.org' } });
    const failed = await receiver.waitFor((e) => e.type === 'verification.failed' && e.data.verificationId === live.id);
    t.match(failed.data, { reason: 'face_mismatch', message: 'the face is not the passport photo' });
  });

  t.equal(receiver.rejected, 0, 'every delivery carried a valid signature');
});
