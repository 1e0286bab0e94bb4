import t from 'tap';
import { verifyWebhookSignature } from '../../../../plugins/common/webhooks/signature.js';
import { credentialIssued, verificationCompleted, verificationFailed } from '../../../../plugins/kyc/webhooks/payloads.js';
import { FAST, part, receiver, until } from './harness.js';

const ORG = 'org_a';
const metadata = { orderId: 12345, vip: true, note: null, tags: ['gold', 2], nested: { ratio: 0.25, deep: { ok: false } } };
const session = { id: 'ver_1', subjectDid: 'did:ledger:test:abc', level: 2, metadata };
const completed = () => verificationCompleted(session, 'urn:ledger:credential:1') as unknown as Record<string, unknown>;

t.test('one event, one id, to every enabled endpoint of the organization that subscribes to it', async (t) => {
  const p = await part(t);
  const rx = await receiver(t);
  const a = await p.webhooks.endpoints.create(ORG, { url: rx.url });
  const b = await p.webhooks.endpoints.create(ORG, { url: `${rx.url}?b`, events: ['verification.completed', 'verification.failed'] });
  const off = await p.webhooks.endpoints.create(ORG, { url: `${rx.url}?off` });
  await p.webhooks.endpoints.update(ORG, off.id, { enabled: false });
  await p.webhooks.endpoints.create(ORG, { url: `${rx.url}?failed-only`, events: ['verification.failed'] });
  const other = await p.webhooks.endpoints.create('org_b', { url: `${rx.url}?other` });
  rx.secrets.push(a.secret, b.secret, other.secret);

  const before = Date.now();
  await p.webhooks.emit(ORG, 'verification.completed', completed());
  await until(() => rx.received.length === 2, 5000, 'two deliveries');
  await new Promise((r) => setTimeout(r, 200));
  t.equal(rx.received.length, 2, 'not the disabled, the unsubscribed or the other organization');
  const [x, y] = rx.received;
  t.same(new Set(rx.received.map((r) => r.signedWith)), new Set([a.secret, b.secret]), 'each signed with its own endpoint secret');
  t.equal(x!.json.id, y!.json.id, 'the same event id at both endpoints');
  t.match(x!.json.id, /^evt_[0-9a-f]{24}$/);
  t.notMatch(x!.json.id, /^evt_test_/);
  t.same(Object.keys(x!.json), ['id', 'type', 'createdAt', 'data'], 'the envelope');
  t.equal(x!.json.type, 'verification.completed');
  t.ok(Date.parse(x!.json.createdAt) >= before - 5 && /Z$/.test(x!.json.createdAt), 'createdAt is ISO 8601');
  t.same(x!.json.data, { verificationId: 'ver_1', status: 'completed', outcome: 'pass', subjectDid: 'did:ledger:test:abc', level: 2, credentialId: 'urn:ledger:credential:1', metadata }, 'the metadata as given, through the outbox');
  t.equal(x!.headers['ledger-event-id'], x!.json.id);
  t.equal(x!.headers['ledger-event-type'], 'verification.completed');
  t.match(x!.headers['ledger-signature'], /^t=\d+,v1=[0-9a-f]{64}$/);
  t.equal(verifyWebhookSignature(x!.headers['ledger-signature'], x!.body, x!.signedWith!.slice(6)), false, 'the key is the whole secret, prefix included');
  const ofEvent = await p.webhooks.deliveriesOfEvent(ORG, x!.json.id);
  t.same(new Set(ofEvent.map((d) => d.endpointId)), new Set([a.id, b.id]), "the event's deliveries, one per endpoint it went to");
  t.ok(ofEvent.every((d) => d.eventId === x!.json.id && d.eventType === 'verification.completed'));
  t.same(await p.webhooks.deliveriesOfEvent('org_b', x!.json.id), [], "another organization's view of the event is empty");

  await p.webhooks.emit(ORG, 'credential.revoked', { credentialId: 'c', subjectDid: 'did:x:y', revokedBy: 'did:x:z', reason: 'r', txHash: 'ab' });
  await new Promise((r) => setTimeout(r, 200));
  t.equal(rx.received.length, 2, 'no endpoint subscribes to credential.revoked');
});

t.test('an event queued again with its identity keeps its id and time', async (t) => {
  const p = await part(t);
  const rx = await receiver(t);
  const a = await p.webhooks.endpoints.create(ORG, { url: rx.url });
  rx.secrets.push(a.secret);
  const identity = { id: 'evt_0123456789abcdef01234567', createdAt: '2026-03-01T10:00:00.000Z' };
  await p.webhooks.emit(ORG, 'verification.completed', completed(), identity);
  await p.webhooks.emit(ORG, 'verification.completed', completed(), identity);
  await until(() => rx.received.length === 2, 5000, 'two deliveries');
  t.same(rx.received.map((r) => [r.json.id, r.json.createdAt]), [[identity.id, identity.createdAt], [identity.id, identity.createdAt]]);
  t.equal(rx.received[0]!.body.toString('utf8'), rx.received[1]!.body.toString('utf8'), 'the same body: a receiver deduplicates it on the id');
});

t.test('data that is not the seed\'s fields for the type is refused', async (t) => {
  const p = await part(t);
  await t.rejects(p.webhooks.emit(ORG, 'verification.completed', { verificationId: 'ver_1' }), { code: 'KYC_EVENT_DATA_INVALID' });
  await t.rejects(p.webhooks.emit(ORG, 'verification.failed', { ...verificationFailed(session, 'x', 'y'), extra: 1 } as any), { code: 'KYC_EVENT_DATA_INVALID', message: /unknown extra/ });
  await t.rejects(p.webhooks.emit(ORG, 'nope' as any, {}), { code: 'KYC_EVENT_UNKNOWN' });
});

t.test('500 twice then 200: delivered on attempt 3, the same event id and body each time', async (t) => {
  const p = await part(t);
  const rx = await receiver(t, (n) => (n <= 2 ? 500 : 200));
  const ep = await p.webhooks.endpoints.create(ORG, { url: rx.url });
  rx.secrets.push(ep.secret);
  const t0 = Date.now();
  await p.webhooks.emit(ORG, 'verification.completed', completed());
  await until(() => rx.received.length === 1, 5000, 'first attempt');
  await until(async () => (await p.webhooks.deliveries(ep, { limit: 10, offset: 0 })).records[0]?.attemptNumber === 1, 2000, 'first outcome');
  const mid = (await p.webhooks.deliveries(ep, { limit: 10, offset: 0 })).records[0]!;
  t.match(mid, { status: 'pending', statusCode: 500, attemptNumber: 1 });
  t.ok(mid.nextRetryAt && Date.parse(mid.nextRetryAt) > Date.parse(mid.requestTimestamp!), 'a retry is planned');
  await until(async () => (await p.webhooks.deliveries(ep, { status: 'delivered', limit: 10, offset: 0 })).total === 1, 5000, 'delivered');
  t.equal(rx.received.length, 3);
  t.ok(rx.received.every((r) => r.signedWith === ep.secret), 'every attempt verifies');
  t.equal(new Set(rx.received.map((r) => r.json.id)).size, 1, 'one event id across retries');
  t.ok(rx.received[0]!.body.equals(rx.received[2]!.body), 'the same bytes');
  t.ok(rx.received[1]!.at - t0 >= FAST[1]! * 1000 - 5, 'the second attempt waits for its offset');
  const done = (await p.webhooks.deliveries(ep, { limit: 10, offset: 0 })).records[0]!;
  t.match(done, { status: 'delivered', statusCode: 200, attemptNumber: 3, nextRetryAt: null });
});

t.test('always 500: six attempts, then failed; a resend is a new delivery of the same event', async (t) => {
  const p = await part(t);
  let healthy = false;
  const rx = await receiver(t, () => (healthy ? 200 : 500));
  const ep = await p.webhooks.endpoints.create(ORG, { url: rx.url, events: ['verification.failed'] });
  rx.secrets.push(ep.secret);
  await p.webhooks.emit(ORG, 'verification.failed', verificationFailed(session, 'face_mismatch', 'faces differ') as any);
  await until(async () => (await p.webhooks.deliveries(ep, { status: 'failed', limit: 10, offset: 0 })).total === 1, 8000, 'failed');
  await new Promise((r) => setTimeout(r, 400));
  t.equal(rx.received.length, 6, 'six attempts, no seventh');
  const failed = (await p.webhooks.deliveries(ep, { limit: 10, offset: 0 })).records[0]!;
  t.match(failed, { status: 'failed', attemptNumber: 6, statusCode: 500, error: 'HTTP 500', nextRetryAt: null });

  healthy = true;
  const again = await p.webhooks.resend(ep, failed.id);
  t.not(again.id, failed.id);
  t.match(again, { eventId: failed.eventId, status: 'pending', resendOf: failed.id });
  await until(() => rx.received.length === 7, 5000, 'the resend');
  t.equal(rx.received[6]!.json.id, rx.received[0]!.json.id, 'the same event id');
  t.ok(rx.received[6]!.body.equals(rx.received[0]!.body), 'the same body');
  await until(async () => (await p.webhooks.delivery(ep, again.id))?.status === 'delivered', 2000, 'delivered');
  await t.rejects(p.webhooks.resend(ep, again.id), { code: 'WEBHOOK_DELIVERY_NOT_FAILED' });
  await t.rejects(p.webhooks.resend(ep, 'del_nope'), { code: 'WEBHOOK_DELIVERY_NOT_FOUND' });
  t.same((await p.webhooks.deliveriesOfEvent(ORG, failed.eventId)).map((d) => [d.id, d.status]), [[failed.id, 'failed'], [again.id, 'delivered']], 'the resend is listed with the event, after the original');
});

t.test('no answer within timeoutMs is a failed attempt', async (t) => {
  const p = await part(t, { timeoutMs: 150 });
  const rx = await receiver(t, (n) => (n === 1 ? 'hang' : 200));
  const ep = await p.webhooks.endpoints.create(ORG, { url: rx.url });
  rx.secrets.push(ep.secret);
  await p.webhooks.emit(ORG, 'verification.completed', completed());
  await until(async () => (await p.webhooks.deliveries(ep, { limit: 1, offset: 0 })).records[0]?.attemptNumber === 1, 3000, 'first outcome');
  const first = (await p.webhooks.deliveries(ep, { limit: 1, offset: 0 })).records[0]!;
  // the receiver never answers the first attempt: only the timeout can end it
  t.match(first, { status: 'pending', statusCode: null, error: 'no response within 150 ms' });
  await until(async () => (await p.webhooks.delivery(ep, first.id))?.status === 'delivered', 3000, 'delivered on the retry');
  t.equal(rx.received.length, 2);
});

t.test('rotating the secret: pending retries are signed with the new one, and the old one verifies nothing after', async (t) => {
  const p = await part(t, { retryOffsetsSeconds: [0, 0.5, 1] });
  const rx = await receiver(t, (n) => (n === 1 ? 500 : 200));
  const ep = await p.webhooks.endpoints.create(ORG, { url: rx.url });
  rx.secrets.push(ep.secret);
  await p.webhooks.emit(ORG, 'verification.completed', completed());
  await until(async () => (await p.webhooks.deliveries(ep, { limit: 1, offset: 0 })).records[0]?.attemptNumber === 1, 3000, 'first attempt failed');
  const rotated = (await p.webhooks.endpoints.rotateSecret(ORG, ep.id))!;
  t.match(rotated.secret, /^whsec_[A-Za-z0-9_-]{43}$/);
  t.not(rotated.secret, ep.secret);
  // The receiver now knows only the new secret.
  rx.secrets.splice(0, rx.secrets.length, rotated.secret);
  await until(() => rx.received.length === 2, 3000, 'the retry');
  const retry = rx.received[1]!;
  t.equal(retry.signedWith, rotated.secret, 'the pending retry is signed with the new secret');
  t.equal(verifyWebhookSignature(retry.headers['ledger-signature'], retry.body, ep.secret), false, 'the old secret does not verify it');
  t.equal(retry.json.id, rx.received[0]!.json.id, 'the same event');
  await until(async () => (await p.webhooks.deliveries(ep, { status: 'delivered', limit: 1, offset: 0 })).total === 1, 2000, 'delivered');
});

t.test('a restart during retries: the new instance carries on with the same event', async (t) => {
  const p = await part(t, { retryOffsetsSeconds: [0, 0.3, 0.6, 0.9, 1.2, 1.5] });
  let up = false;
  const rx = await receiver(t, () => (up ? 200 : 503));
  const ep = await p.webhooks.endpoints.create(ORG, { url: rx.url });
  rx.secrets.push(ep.secret);
  await p.webhooks.emit(ORG, 'credential.issued', credentialIssued({ credentialId: 'urn:ledger:credential:9', type: ['VerifiableCredential', 'KYCCredential'], issuer: 'did:ledger:test:iss', subjectDid: 'did:ledger:test:abc', issuanceDate: '2026-01-01T00:00:00.000Z', expirationDate: '2027-01-01T00:00:00.000Z', txHash: 'ab'.repeat(32) }) as any);
  await until(async () => (await p.webhooks.deliveries(ep, { limit: 1, offset: 0 })).records[0]?.attemptNumber === 1, 3000, 'first attempt failed');
  await p.webhooks.stop();
  await new Promise((r) => setTimeout(r, 700));
  t.equal(rx.received.length, 1, 'nothing is sent while stopped');
  const pending = (await p.webhooks.deliveries(ep, { limit: 1, offset: 0 })).records[0]!;
  t.match(pending, { status: 'pending', attemptNumber: 1 });
  up = true;
  const next = await p.restart();
  await until(async () => (await next.delivery(ep, pending.id))?.status === 'delivered', 3000, 'delivered after the restart');
  t.equal(rx.received.length, 2);
  t.equal(rx.received[1]!.json.id, rx.received[0]!.json.id, 'the same event id across the restart');
  t.equal(rx.received[1]!.signedWith, ep.secret);
  t.match(await next.delivery(ep, pending.id), { attemptNumber: 2, statusCode: 200 });
});

t.test('a deleted or disabled endpoint gets no further attempts; a resend waits for it to be enabled', async (t) => {
  const p = await part(t, { retryOffsetsSeconds: [0, 0.3, 0.6] });
  const rx = await receiver(t, () => 500);
  const gone = await p.webhooks.endpoints.create(ORG, { url: rx.url });
  const off = await p.webhooks.endpoints.create(ORG, { url: `${rx.url}?off` });
  rx.secrets.push(gone.secret, off.secret);
  await p.webhooks.emit(ORG, 'verification.completed', completed());
  await until(() => rx.received.length === 2, 3000, 'first attempts');
  await p.webhooks.endpoints.remove(ORG, gone.id);
  await p.webhooks.endpoints.update(ORG, off.id, { enabled: false });
  await until(async () => (await p.webhooks.delivery(off, (await p.webhooks.deliveries(off, { limit: 1, offset: 0 })).records[0]!.id))?.status === 'failed', 3000, 'failed');
  await new Promise((r) => setTimeout(r, 500));
  t.equal(rx.received.length, 2, 'no retry went out');
  const [failed] = (await p.webhooks.deliveries(off, { limit: 1, offset: 0 })).records;
  t.match(failed, { status: 'failed', attemptNumber: 1, error: 'the endpoint was deleted or disabled' });
  const goneRecords = (await p.webhooks.deliveries(gone, { limit: 1, offset: 0 })).records;
  t.match(goneRecords[0], { status: 'failed', error: 'the endpoint was deleted or disabled' });
  await t.rejects(p.webhooks.resend((await p.webhooks.endpoints.get(ORG, off.id))!, failed!.id), { code: 'WEBHOOK_ENDPOINT_DISABLED' });
  const enabled = (await p.webhooks.endpoints.update(ORG, off.id, { enabled: true }))!;
  const again = await p.webhooks.resend(enabled, failed!.id);
  t.equal(again.eventId, failed!.eventId);
  await until(() => rx.received.length === 3, 3000, 'the resend is attempted');
});

t.test('a test delivery: evt_test_ id, sample data of the type, one attempt, recorded', async (t) => {
  const p = await part(t);
  const rx = await receiver(t, () => 204);
  const ep = await p.webhooks.endpoints.create(ORG, { url: rx.url });
  rx.secrets.push(ep.secret);
  const result = await p.webhooks.sendTest(ep, 'credential.revoked');
  t.match(result, { eventId: /^evt_test_[0-9a-f]{24}$/, status: 'delivered', statusCode: 204, request: { url: rx.url } });
  t.equal(rx.received.length, 1);
  t.equal(rx.received[0]!.json.id, result.eventId);
  t.same(Object.keys(rx.received[0]!.json.data), ['credentialId', 'subjectDid', 'revokedBy', 'reason', 'txHash']);
  t.equal(rx.received[0]!.signedWith, ep.secret);
  t.match(await p.webhooks.delivery(ep, result.id), { eventId: result.eventId, status: 'delivered', attemptNumber: 1 });
});
