import t, { type Test } from 'tap';
import { HttpServer } from '../../../../../node/http/server.js';
import { noCredential, unauthorized } from '../../../../../plugins/common/http/problems.js';
import { verifyWebhookSignature } from '../../../../../plugins/common/webhooks/signature.js';
import type { KycCaller, KycLevel } from '../../../../../plugins/kyc/http/auth-levels.js';
import { createKycRouter } from '../../../../../plugins/kyc/http/router.js';
import { mountWebhooks } from '../../../../../plugins/kyc/http/routes/webhooks.js';
import { verificationCompleted } from '../../../../../plugins/kyc/webhooks/payloads.js';
import { part, receiver, silent, until, type Part } from '../../webhooks/harness.js';

/**
 * The webhook routes on a real HTTP server, over the real webhook part (in-memory LevelDB, real
 * outbox, a real receiver that verifies signatures). The authenticator is a small test one: a
 * fixed Bearer token per organization, as the real one maps a JWT or an API key to it.
 */

const ERRORS = 'https://errors.test/kyc';
const TOKENS: Record<string, KycCaller> = {
  'tok-a': { organizationId: 'org_a', via: 'jwt', userId: 'usr_a' },
  'tok-a-key': { organizationId: 'org_a', via: 'api-key', apiKey: { id: 'key_a', mode: 'sandbox' } },
  'tok-b': { organizationId: 'org_b', via: 'jwt', userId: 'usr_b' },
  'tok-a-reviewer': { organizationId: 'org_a', via: 'jwt', userId: 'usr_a2', role: 'reviewer' },
  'tok-a-developer': { organizationId: 'org_a', via: 'jwt', userId: 'usr_a3', role: 'developer' },
};

interface Res {
  status: number;
  headers: Headers;
  body: any;
}

async function api(t: Test, opts: Record<string, unknown> = {}) {
  const p: Part = await part(t, opts);
  const http = new HttpServer({ host: '127.0.0.1', port: 0, maxBodyBytes: 1 << 20 });
  const router = createKycRouter(
    http,
    {
      async require(ctx, level: Exclude<KycLevel, 'none'>) {
        if (level !== 'bearer') throw new Error(`unexpected level ${level}`);
        const h = ctx.req.headers.authorization;
        if (!h) throw noCredential('kyc', 'this route needs Authorization: Bearer <JWT or API key>');
        const caller = TOKENS[h.replace(/^Bearer /, '')];
        if (!caller) throw unauthorized('kyc', 'unknown token');
        return caller;
      },
    },
    { errorsBase: ERRORS, log: silent },
  );
  mountWebhooks(router, { webhooks: p.webhooks, log: silent });
  router.fallback('/v1');
  const { port } = await http.listen();
  t.teardown(() => http.close());
  const base = `http://127.0.0.1:${port}`;
  const req = async (method: string, path: string, o: { token?: string | null; body?: unknown; raw?: string } = {}): Promise<Res> => {
    const headers: Record<string, string> = {};
    const token = o.token === undefined ? 'tok-a' : o.token;
    if (token) headers.authorization = `Bearer ${token}`;
    let body: string | undefined;
    if (o.raw !== undefined || o.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = o.raw ?? JSON.stringify(o.body);
    }
    const res = await fetch(base + path, { method, headers, body });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
  };
  return { p, req };
}

t.test('create, list, read, update, delete; the secret is shown at creation only', async (t) => {
  const { req } = await api(t);
  const created = await req('POST', '/v1/webhooks', { body: { url: 'https://hooks.example.com/kyc', description: 'production' } });
  t.equal(created.status, 201);
  t.match(created.body, { id: /^wh_[0-9a-f]{24}$/, url: 'https://hooks.example.com/kyc', events: ['verification.completed', 'credential.issued'], description: 'production', enabled: true, status: 'active', secret: /^whsec_[A-Za-z0-9_-]{43}$/ });
  t.ok(created.body.createdAt && created.body.updatedAt);
  const id = created.body.id;

  const listed = await req('GET', '/v1/webhooks', { token: 'tok-a-key' });
  t.equal(listed.status, 200, 'an API key of the organization works as the bearer');
  t.equal(listed.body.endpoints.length, 1);
  t.notOk('secret' in listed.body.endpoints[0], 'no secret in a list');
  t.notOk('secret' in (await req('GET', `/v1/webhooks/${id}`)).body, 'nor in a read');

  const patched = await req('PATCH', `/v1/webhooks/${id}`, { body: { events: ['verification.failed', 'verification.failed', 'credential.revoked'] } });
  t.equal(patched.status, 200);
  t.match(patched.body, { url: 'https://hooks.example.com/kyc', description: 'production', events: ['verification.failed', 'credential.revoked'], enabled: true });
  t.notOk('secret' in patched.body);
  t.match((await req('PATCH', `/v1/webhooks/${id}`, { body: { status: 'disabled' } })).body, { enabled: false, status: 'disabled', events: ['verification.failed', 'credential.revoked'] });
  t.match((await req('PATCH', `/v1/webhooks/${id}`, { body: { enabled: true } })).body, { enabled: true, status: 'active' });
  t.match((await req('PATCH', `/v1/webhooks/${id}`, { body: { url: 'http://localhost:9/hook' } })).body, { url: 'http://localhost:9/hook', enabled: true });

  const deleted = await req('DELETE', `/v1/webhooks/${id}`);
  t.equal(deleted.status, 200);
  t.match(deleted.body, { message: /deleted/ });
  t.same((await req('GET', '/v1/webhooks')).body, { endpoints: [] });
  t.equal((await req('DELETE', `/v1/webhooks/${id}`)).status, 404);
});

t.test('roles: a developer manages webhooks, a reviewer gets 403 ROLE_FORBIDDEN on every route', async (t) => {
  const { req } = await api(t);
  const created = await req('POST', '/v1/webhooks', { token: 'tok-a-developer', body: { url: 'https://hooks.example.com/dev' } });
  t.equal(created.status, 201, 'a developer creates');
  const id = created.body.id;
  const routes: Array<[string, string, unknown?]> = [
    ['POST', '/v1/webhooks', { url: 'https://hooks.example.com/x' }],
    ['GET', '/v1/webhooks'],
    ['GET', `/v1/webhooks/${id}`],
    ['PATCH', `/v1/webhooks/${id}`, { enabled: false }],
    ['DELETE', `/v1/webhooks/${id}`],
    ['GET', `/v1/webhooks/${id}/deliveries`],
    ['GET', `/v1/webhooks/${id}/deliveries/dlv_x`],
    ['POST', `/v1/webhooks/${id}/deliveries/dlv_x/resend`],
    ['POST', `/v1/webhooks/${id}/rotate-secret`],
    ['POST', '/v1/webhooks/test', { webhookId: id, eventType: 'verification.completed' }],
  ];
  for (const [method, path, body] of routes) {
    const res = await req(method, path, { token: 'tok-a-reviewer', ...(body === undefined ? {} : { body }) });
    t.equal(res.status, 403, `${method} ${path}`);
    t.equal(res.body.code, 'ROLE_FORBIDDEN');
  }
  t.equal((await req('GET', `/v1/webhooks/${id}`, { token: 'tok-a-developer' })).body.enabled, true, 'nothing changed');
  t.equal((await req('GET', `/v1/webhooks/${id}`, { token: 'tok-a-key' })).status, 200, 'API keys keep working');
});

t.test('bad input: precise 400s; https only except localhost', async (t) => {
  const { req } = await api(t);
  const bad = async (method: string, path: string, body: unknown, field: string | undefined, detail: RegExp) => {
    const res = await req(method, path, { body });
    t.equal(res.status, 400, `${JSON.stringify(body)} → 400`);
    t.match(res.headers.get('content-type'), /^application\/problem\+json/);
    t.match(res.body, { type: `${ERRORS}/validation`, status: 400, detail, ...(field ? { field } : {}) });
    return res;
  };
  const http = await bad('POST', '/v1/webhooks', { url: 'http://hooks.example.com/kyc' }, 'url', /https/);
  t.equal(http.body.code, 'WEBHOOK_URL_INVALID');
  await bad('POST', '/v1/webhooks', { url: 'ftp://hooks.example.com/' }, 'url', /https/);
  await bad('POST', '/v1/webhooks', { url: 'https://user:pw@hooks.example.com/' }, 'url', /user name or password/);
  await bad('POST', '/v1/webhooks', {}, 'url', /url is required/);
  await bad('POST', '/v1/webhooks', { url: 'https://a.example/', events: [] }, 'events', /non-empty array/);
  await bad('POST', '/v1/webhooks', { url: 'https://a.example/', events: ['verification.done'] }, 'events[0]', /one of verification.completed/);
  await bad('POST', '/v1/webhooks', { url: 'https://a.example/', secret: 'mine' }, 'secret', /unknown field secret/);
  await bad('POST', '/v1/webhooks', { url: 'https://a.example/', description: 'x'.repeat(501) }, 'description', /at most 500/);
  for (const url of ['http://localhost:8080/h', 'http://127.0.0.1/h', 'http://[::1]:3000/h']) t.equal((await req('POST', '/v1/webhooks', { body: { url } })).status, 201, `${url} is allowed`);
  const id = (await req('GET', '/v1/webhooks')).body.endpoints[0].id;
  await bad('PATCH', `/v1/webhooks/${id}`, {}, undefined, /nothing to change/);
  await bad('PATCH', `/v1/webhooks/${id}`, { enabled: true, status: 'disabled' }, 'status', /disagree/);
  await bad('PATCH', `/v1/webhooks/${id}`, { status: 'paused' }, 'status', /active, disabled/);
  await bad('PATCH', `/v1/webhooks/${id}`, { url: 'http://example.com/' }, 'url', /https/);
  t.equal((await req('POST', '/v1/webhooks', { raw: '{"url":' })).status, 400, 'malformed JSON');
  t.equal((await req('GET', '/v1/webhooks', { token: null })).status, 401, 'no credential');
  t.equal((await req('GET', '/v1/webhooks', { token: 'nope' })).status, 401, 'a wrong credential');
});

t.test('organizations are isolated: another organization\'s endpoint is 404 on every route', async (t) => {
  const { req } = await api(t);
  const rx = await receiver(t);
  const created = await req('POST', '/v1/webhooks', { body: { url: rx.url } });
  const id = created.body.id;
  for (const [method, path, body] of [
    ['GET', `/v1/webhooks/${id}`],
    ['PATCH', `/v1/webhooks/${id}`, { enabled: false }],
    ['DELETE', `/v1/webhooks/${id}`],
    ['GET', `/v1/webhooks/${id}/deliveries`],
    ['POST', `/v1/webhooks/${id}/rotate-secret`],
    ['POST', '/v1/webhooks/test', { webhookId: id, eventType: 'verification.completed' }],
    ['POST', `/v1/webhooks/${id}/deliveries/del_00000000000000000000000000aa/resend`],
  ] as const) {
    const res = await req(method, path, { token: 'tok-b', body });
    t.equal(res.status, 404, `${method} ${path}`);
    t.match(res.body, { type: `${ERRORS}/not-found`, code: 'WEBHOOK_ENDPOINT_NOT_FOUND' });
  }
  t.same((await req('GET', '/v1/webhooks', { token: 'tok-b' })).body, { endpoints: [] });
  t.equal(rx.received.length, 0, 'org B sent nothing to org A\'s endpoint');
  t.match((await req('GET', `/v1/webhooks/${id}`)).body, { id, enabled: true }, 'and changed nothing');
});

t.test('test delivery: 200 with the outcome; evt_test_ id; verified by the receiver', async (t) => {
  const { req } = await api(t);
  const rx = await receiver(t, (n) => (n === 1 ? 200 : 500));
  const created = await req('POST', '/v1/webhooks', { body: { url: rx.url } });
  rx.secrets.push(created.body.secret);
  const res = await req('POST', '/v1/webhooks/test', { body: { webhookId: created.body.id, eventType: 'verification.failed' } });
  t.equal(res.status, 200);
  t.match(res.body, { id: /^evt_test_[0-9a-f]{24}$/, deliveryId: /^del_/, status: 'delivered', statusCode: 200, duration: Number, request: { url: rx.url, headers: { 'Ledger-Signature': /^t=\d+,v1=[0-9a-f]{64}$/, 'Ledger-Event-Id': res.body.id } } });
  t.equal(rx.received[0]!.signedWith, created.body.secret);
  t.same(rx.received[0]!.json.data, { verificationId: 'ver_test_0000000000000000', status: 'failed', outcome: 'fail', subjectDid: 'did:example:test-subject', reason: 'face_mismatch', message: rx.received[0]!.json.data.message, metadata: { orderId: 'sample-order' } });
  const failed = await req('POST', '/v1/webhooks/test', { body: { webhookId: created.body.id, eventType: 'credential.issued' } });
  t.match(failed.body, { status: 'failed', statusCode: 500, error: 'HTTP 500' });
  const list = await req('GET', `/v1/webhooks/${created.body.id}/deliveries`);
  t.same(list.body.data.map((d: any) => d.eventId), [failed.body.id, res.body.id], 'test deliveries are recorded, newest first');
  t.equal((await req('POST', `/v1/webhooks/${created.body.id}/deliveries/${failed.body.deliveryId}/resend`)).status, 409, 'a test delivery is not resent');
  const bad = await req('POST', '/v1/webhooks/test', { body: { webhookId: created.body.id, eventType: 'ping' } });
  t.match(bad, { status: 400, body: { field: 'eventType' } });
  t.match(await req('POST', '/v1/webhooks/test', { body: { eventType: 'credential.issued' } }), { status: 400, body: { field: 'webhookId' } });
});

t.test('rotate-secret: the new secret is shown once, and the old one fails verification at once', async (t) => {
  const { p, req } = await api(t, { retryOffsetsSeconds: [0, 0.4, 0.8] });
  const rx = await receiver(t, (n) => (n === 1 ? 500 : 200));
  const created = await req('POST', '/v1/webhooks', { body: { url: rx.url } });
  const old = created.body.secret;
  rx.secrets.push(old);
  await p.webhooks.emit('org_a', 'verification.completed', verificationCompleted({ id: 'ver_9', level: 1, metadata: {} }, 'urn:ledger:credential:9') as any);
  await until(() => rx.received.length === 1, 3000, 'first attempt');
  const rotated = await req('POST', `/v1/webhooks/${created.body.id}/rotate-secret`);
  t.equal(rotated.status, 200);
  t.match(rotated.body, { id: created.body.id, secret: /^whsec_/, rotatedAt: String });
  t.same(Object.keys(rotated.body).sort(), ['id', 'rotatedAt', 'secret']);
  t.not(rotated.body.secret, old);
  rx.secrets.splice(0, 1, rotated.body.secret);
  await until(() => rx.received.length === 2, 3000, 'the pending retry');
  const retry = rx.received[1]!;
  t.equal(retry.signedWith, rotated.body.secret, 'the pending retry is signed with the new secret');
  t.notOk(verifyWebhookSignature(retry.headers['ledger-signature'], retry.body, old), 'the old secret does not verify it');
  const test = await req('POST', '/v1/webhooks/test', { body: { webhookId: created.body.id, eventType: 'credential.issued' } });
  t.notOk(verifyWebhookSignature(test.body.request.headers['Ledger-Signature'], rx.received[2]!.body, old), 'nor a new delivery');
  t.equal(rx.received[2]!.signedWith, rotated.body.secret);
  t.notOk('secret' in (await req('GET', `/v1/webhooks/${created.body.id}`)).body);
});

t.test('deliveries: the primary shape, the wrapper, paging and the status filter; resend of a failed one', async (t) => {
  const { p, req } = await api(t, { retryOffsetsSeconds: [0, 0.1] });
  let healthy = false;
  const rx = await receiver(t, () => (healthy ? 200 : 500));
  const created = await req('POST', '/v1/webhooks', { body: { url: rx.url, events: ['verification.completed'] } });
  rx.secrets.push(created.body.secret);
  const id = created.body.id;
  const path = `/v1/webhooks/${id}/deliveries`;
  for (let i = 0; i < 3; i++) await p.webhooks.emit('org_a', 'verification.completed', verificationCompleted({ id: `ver_${i}`, level: 1, metadata: {} }, `urn:ledger:credential:${i}`) as any);
  await until(async () => (await req('GET', `${path}?status=failed`)).body.pagination.total === 3, 5000, 'three failed');
  healthy = true;
  for (let i = 3; i < 30; i++) await p.webhooks.emit('org_a', 'verification.completed', verificationCompleted({ id: `ver_${i}`, level: 1, metadata: {} }, `urn:ledger:credential:${i}`) as any);
  await until(async () => (await req('GET', `${path}?status=success`)).body.pagination.total === 27, 5000, 'twenty-seven delivered');

  const first = await req('GET', path);
  t.equal(first.status, 200);
  t.same(first.body.pagination, { total: 30, page: 1, perPage: 25 }, 'page size 25 by default');
  t.equal(first.body.data.length, 25);
  const d = first.body.data[0];
  t.same(Object.keys(d), ['id', 'eventId', 'eventType', 'status', 'statusCode', 'attemptNumber', 'requestTimestamp', 'responseTimestamp', 'duration', 'createdAt'], 'the primary shape; no nextRetryAt once settled');
  t.match(d, { id: /^del_/, eventId: /^evt_/, eventType: 'verification.completed', status: 'delivered', statusCode: 200, attemptNumber: 1, duration: Number });
  const second = await req('GET', `${path}?page=2`);
  t.same(second.body.pagination, { total: 30, page: 2, perPage: 25 });
  t.equal(second.body.data.length, 5);
  t.same(new Set([...first.body.data, ...second.body.data].map((x: any) => x.id)).size, 30, 'pages do not overlap');
  t.same((await req('GET', `${path}?limit=10&offset=20`)).body.pagination, { total: 30, page: 3, perPage: 10 });
  const failed = await req('GET', `${path}?status=failed&limit=100`);
  t.equal(failed.body.data.length, 3);
  t.ok(failed.body.data.every((x: any) => x.status === 'failed' && x.attemptNumber === 2 && x.statusCode === 500 && !('nextRetryAt' in x)));
  t.equal((await req('GET', `${path}?status=delivered`)).body.pagination.total, 27, 'delivered is success');
  t.equal((await req('GET', `${path}?status=pending`)).body.pagination.total, 0);
  for (const q of ['limit=0', 'limit=101', 'offset=-1', 'status=ok', 'page=0', 'offset=1&page=2', 'sort=asc']) t.equal((await req('GET', `${path}?${q}`)).status, 400, q);

  const target = failed.body.data[0];
  const one = await req('GET', `${path}/${target.id}`);
  t.same(one.body, target);
  const resent = await req('POST', `${path}/${target.id}/resend`);
  t.equal(resent.status, 202);
  t.match(resent.body, { id: /^del_/, eventId: target.eventId, status: 'pending', attemptNumber: 0, resendOf: target.id });
  t.not(resent.body.id, target.id);
  await until(async () => (await req('GET', `${path}/${resent.body.id}`)).body.status === 'delivered', 3000, 'the resend is delivered');
  const arrivals = rx.received.filter((r) => r.json.id === target.eventId);
  t.ok(arrivals.length === 3 && arrivals.every((r) => r.body.equals(arrivals[0]!.body)), 'the same event and body as the failed attempts');
  t.equal((await req('POST', `${path}/${resent.body.id}/resend`)).status, 409, 'only a failed delivery');
  t.equal((await req('POST', `${path}/del_nope/resend`)).status, 404);
  t.equal((await req('GET', `${path}/del_nope`)).status, 404);
});

t.test('a pending delivery shows nextRetryAt', async (t) => {
  const { p, req } = await api(t, { retryOffsetsSeconds: [0, 30] });
  const rx = await receiver(t, () => 500);
  const created = await req('POST', '/v1/webhooks', { body: { url: rx.url } });
  rx.secrets.push(created.body.secret);
  await p.webhooks.emit('org_a', 'verification.completed', verificationCompleted({ id: 'ver_1', level: 1, metadata: {} }, 'urn:ledger:credential:1') as any);
  const path = `/v1/webhooks/${created.body.id}/deliveries?status=pending`;
  await until(async () => (await req('GET', path)).body.data[0]?.attemptNumber === 1, 3000, 'first attempt');
  const d = (await req('GET', path)).body.data[0];
  t.match(d, { status: 'pending', statusCode: 500, attemptNumber: 1, nextRetryAt: String, error: 'HTTP 500' });
  t.ok(Date.parse(d.nextRetryAt) - Date.parse(d.requestTimestamp) >= 29_000, 'due 30 s after the first attempt');
});
