import t, { type Test } from 'tap';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { createLogger } from '../../../../node/logging.js';
import { openDatabase } from '../../../../node/state/db.js';
import { WebhookOutbox, verifyWebhookSignature, type DeliveryRecord, type WebhookOutboxOptions } from '../../../../plugins/common/webhooks/index.js';
import { freePortRange } from '../../../../node/devnet/ports.js';
import { receiver, until, type Answer } from './receiver.js';

const silent = createLogger({ level: 'silent' });
const secret = 'whsec_delivery-test';
const event = (n = 1) => ({ id: `evt_${n}`, type: 'credential.issued', createdAt: '2025-03-01T12:00:00.000Z', data: { n, amount: 2n ** 64n, name: 'Zoë' } });

async function setup(t: Test, answer: Answer, opts: Partial<WebhookOutboxOptions> = {}, rx: { holdMs?: number } = {}) {
  const db = await openDatabase('memory');
  const server = await receiver(t, answer, rx);
  const settled: DeliveryRecord[] = [];
  const outbox = new WebhookOutbox({ store: db.pluginStore('test'), log: silent, onSettled: (d) => settled.push(d), ...opts });
  await outbox.start();
  t.teardown(async () => {
    await outbox.stop();
    await db.close();
  });
  const endpoint = { id: 'ep_1', url: server.url, secret };
  return { db, server, outbox, settled, endpoint };
}

t.test('a delivery to a real server: headers, a signature the receiver verifies, the exact body', async (t) => {
  const { db, server, outbox, settled, endpoint } = await setup(t, () => 200, { userAgent: 'LedgerTest/9' });
  const before = Math.floor(Date.now() / 1000);
  const rec = await outbox.enqueue(endpoint, event(), { tenant: 'acme' });
  t.match(rec, { id: /^del_[0-9a-f]{28}$/, endpointId: 'ep_1', tenant: 'acme', eventId: 'evt_1', eventType: 'credential.issued', url: server.url, status: 'pending', attemptNumber: 0 });
  await until(() => settled.length === 1, 5000, 'settled');
  t.equal(server.received.length, 1);
  const got = server.received[0]!;
  const text = '{"id":"evt_1","type":"credential.issued","createdAt":"2025-03-01T12:00:00.000Z","data":{"n":1,"amount":18446744073709551616,"name":"Zoë"}}';
  t.equal(got.body.toString('utf8'), text, 'the envelope, bigint-safe, in this key order');
  t.equal(got.headers['content-type'], 'application/json');
  t.equal(got.headers['user-agent'], 'LedgerTest/9');
  t.equal(got.headers['ledger-event-id'], 'evt_1');
  t.equal(got.headers['ledger-event-type'], 'credential.issued');
  const sig = got.headers['ledger-signature'] as string;
  t.match(sig, /^t=\d+,v1=[0-9a-f]{64}$/);
  const ts = Number(/^t=(\d+)/.exec(sig)![1]);
  t.ok(ts >= before && ts <= Math.floor(Date.now() / 1000), 't is the time of sending');
  t.equal(verifyWebhookSignature(sig, got.body, secret), true, 'verifies over the raw bytes');
  t.equal(verifyWebhookSignature(sig, got.body, 'whsec_wrong'), false);
  t.equal(got.headers['ledger-timestamp'], undefined, 'no separate timestamp header');
  const done = await outbox.get(rec.id);
  t.match(done, { status: 'delivered', attemptNumber: 1, statusCode: 200, nextRetryAt: null, createdAt: rec.createdAt });
  t.notOk(done && 'error' in done);
  t.ok(done!.requestTimestamp && done!.responseTimestamp && done!.duration !== null && done!.duration >= 0);
  t.same(settled[0], done, 'onSettled gets the record');
  const stored: string[] = [];
  for await (const v of db.pluginStore('test').values()) stored.push(new TextDecoder().decode(v));
  t.ok(stored.length > 0);
  t.notOk(stored.some((v) => v.includes(secret)), 'a settled delivery keeps neither secret nor body');
});

t.test('500 twice then 200: delivered on attempt 3, same body each time, on the schedule', async (t) => {
  // as attempt n arrives, the record still shows the time planned for it: read it before answering
  const seen: Record<number, DeliveryRecord | undefined> = {};
  let id = '';
  const answer: Answer = (n) => (res) =>
    void outbox.get(id).then((r) => {
      seen[n] = r;
      res.writeHead(n <= 2 ? 500 : 200).end('ok');
    });
  const { server, outbox, settled, endpoint } = await setup(t, answer, { schedule: [0, 0.1, 0.2] });
  const rec = await outbox.enqueue(endpoint, event());
  id = rec.id;
  await until(() => settled.length === 1, 5000, 'settled');
  t.match(settled[0], { id: rec.id, status: 'delivered', attemptNumber: 3, statusCode: 200, nextRetryAt: null });
  t.notOk('error' in settled[0]!, 'the error of an earlier attempt is gone');
  t.equal(server.received.length, 3);
  const [a, b, c] = server.received;
  t.ok(a!.body.equals(b!.body) && a!.body.equals(c!.body), 'byte-identical body on every attempt');
  for (const r of server.received) t.ok(verifyWebhookSignature(r.headers['ledger-signature'], r.body, secret), `attempt ${r.n} is signed`);
  const [second, third] = [seen[2]!, seen[3]!];
  t.match(second, { status: 'pending', attemptNumber: 1, statusCode: 500, error: 'HTTP 500' });
  // the schedule counts from the first attempt's sending, and never plans a retry before the last answer
  const firstAt = Date.parse(second.requestTimestamp!);
  const planned = (after: number, answeredAt: string) => new Date(Math.max(Date.parse(answeredAt), firstAt + after)).toISOString();
  t.equal(second.nextRetryAt, planned(100, second.responseTimestamp!), 'the second attempt is planned 0.1 s after the first');
  t.match(third, { status: 'pending', attemptNumber: 2, statusCode: 500 });
  t.equal(third.nextRetryAt, planned(200, third.responseTimestamp!), 'the third 0.2 s after the first');
});

t.test('always 500: failed after the schedule length, warned, not tried again', async (t) => {
  const lines: Array<{ level: number; msg: string }> = [];
  const sink = new Writable({ write: (chunk, _e, cb) => (lines.push(JSON.parse(String(chunk))), cb()) });
  const { server, outbox, settled, endpoint } = await setup(t, () => 500, { schedule: [0, 0.05, 0.1], log: pino({ level: 'warn' }, sink) });
  const rec = await outbox.enqueue(endpoint, event());
  await until(() => settled.length === 1, 5000, 'settled');
  t.match(settled[0], { id: rec.id, status: 'failed', attemptNumber: 3, statusCode: 500, error: 'HTTP 500', nextRetryAt: null });
  await new Promise((r) => setTimeout(r, 300));
  t.equal(server.received.length, 3, 'exactly as many attempts as the schedule has');
  t.same(await outbox.list({ status: 'failed' }), [settled[0]]);
  t.same(await outbox.list({ status: 'pending' }), []);
  t.same(lines.filter((l) => l.level === 40).map((l) => l.msg), ['webhook delivery attempt failed', 'webhook delivery attempt failed', 'webhook delivery failed']);
});

t.test('a server that never answers is a failure after timeoutMs', async (t) => {
  const { server, outbox, settled, endpoint } = await setup(t, () => 'hang', { schedule: [0, 0.05], timeoutMs: 200 });
  await outbox.enqueue(endpoint, event());
  await until(() => settled.length === 1, 5000, 'settled');
  // the server never answers: only the timeout can end an attempt
  t.match(settled[0], { status: 'failed', attemptNumber: 2, statusCode: null, error: 'no response within 200 ms' });
  t.equal(server.received.length, 2);
});

t.test('a redirect is a failure and is not followed; a refused connection is a failure', async (t) => {
  const { server, outbox, settled, endpoint } = await setup(t, () => (res) => res.writeHead(302, { location: '/elsewhere' }).end(), { schedule: [0] });
  await outbox.enqueue(endpoint, event());
  await until(() => settled.length === 1, 5000, 'settled');
  t.match(settled[0], { status: 'failed', statusCode: 302, error: /redirect/ });
  t.equal(server.received.length, 1, 'not followed');
  await outbox.enqueue({ ...endpoint, url: `http://127.0.0.1:${await freePortRange(1)}/hook` }, event(2));
  await until(() => settled.length === 2, 5000, 'settled');
  t.match(settled[1], { status: 'failed', statusCode: null, error: /ECONNREFUSED/ });
});

t.test('sendNow: one attempt, recorded, never retried', async (t) => {
  let status = 200;
  const { server, outbox, settled, endpoint } = await setup(t, () => status, { schedule: [0, 0.05, 0.1] });
  const ok = await outbox.sendNow(endpoint, { ...event(), id: 'evt_test_1' });
  t.match(ok, { id: /^del_/, status: 'delivered', statusCode: 200, request: { url: server.url, headers: { 'Ledger-Event-Id': 'evt_test_1', 'Ledger-Signature': /^t=\d+,v1=/ } } });
  t.ok(ok.duration >= 0);
  t.match(await outbox.get(ok.id), { status: 'delivered', attemptNumber: 1, eventId: 'evt_test_1' });
  status = 503;
  const bad = await outbox.sendNow(endpoint, { ...event(), id: 'evt_test_2' });
  t.match(bad, { status: 'failed', statusCode: 503, error: 'HTTP 503' });
  await new Promise((r) => setTimeout(r, 250));
  t.equal(server.received.length, 2, 'the failed one is not retried');
  t.match(await outbox.get(bad.id), { status: 'failed', attemptNumber: 1, nextRetryAt: null });
  t.equal(settled.length, 2);
});

t.test('list: newest first, by endpoint, tenant and status, with limit and offset; get', async (t) => {
  const { outbox, settled, endpoint } = await setup(t, (_n, r) => (r.headers['ledger-event-id'] === 'evt_3' ? 500 : 200), { schedule: [0] });
  const other = { ...endpoint, id: 'ep_2' };
  const ids: string[] = [];
  for (let i = 1; i <= 5; i++) ids.push((await outbox.enqueue(i % 2 ? endpoint : other, event(i), { tenant: i <= 2 ? 'a' : 'b' })).id);
  await until(() => settled.length === 5, 5000, 'settled');
  const idsOf = (rs: DeliveryRecord[]) => rs.map((r) => r.id);
  t.same(idsOf(await outbox.list()), [...ids].reverse());
  t.same(idsOf(await outbox.list({ endpointId: 'ep_1' })), [ids[4], ids[2], ids[0]]);
  t.same(idsOf(await outbox.list({ endpointId: 'ep_2' })), [ids[3], ids[1]]);
  t.same(idsOf(await outbox.list({ tenant: 'a' })), [ids[1], ids[0]]);
  t.same(idsOf(await outbox.list({ status: 'failed' })), [ids[2]]);
  t.same(idsOf(await outbox.list({ status: 'delivered', endpointId: 'ep_1' })), [ids[4], ids[0]]);
  t.same(idsOf(await outbox.list({ tenant: 'b', status: 'delivered' })), [ids[4], ids[3]]);
  t.same(idsOf(await outbox.list({ limit: 2, offset: 1 })), [ids[3], ids[2]]);
  t.same(idsOf(await outbox.list({ endpointId: 'ep_1', limit: 1, offset: 1 })), [ids[2]]);
  t.same(await outbox.list({ endpointId: 'ep_' }), [], 'an endpoint id that is a prefix of another matches nothing');
  t.equal((await outbox.get(ids[0]!))?.eventId, 'evt_1');
  t.equal(await outbox.get('del_nope'), undefined);
  await t.rejects(outbox.list({ limit: 0 }), { code: 'WEBHOOK_LIST_INVALID' });
  await t.rejects(outbox.list({ status: 'lost' as 'failed' }), { code: 'WEBHOOK_LIST_INVALID' });
});

t.test('bad input is refused before anything is stored', async (t) => {
  const { server, outbox, endpoint } = await setup(t, () => 200);
  await t.rejects(outbox.enqueue({ ...endpoint, url: 'http://example.com/hook' }, event()), { name: 'LedgerError', code: 'WEBHOOK_URL_INVALID', kind: 'invalid' });
  await t.rejects(outbox.enqueue(endpoint, { ...event(), id: 'ev_1' }), { code: 'WEBHOOK_EVENT_INVALID' });
  await t.rejects(outbox.enqueue(endpoint, { ...event(), type: 'a\r\nX-Injected: 1' }), { code: 'WEBHOOK_EVENT_INVALID' });
  await t.rejects(outbox.enqueue(endpoint, { ...event(), createdAt: 'yesterday' }), { code: 'WEBHOOK_EVENT_INVALID' });
  await t.rejects(outbox.enqueue({ ...endpoint, secret: '' }, event()), { code: 'WEBHOOK_ENDPOINT_INVALID' });
  await t.rejects(outbox.enqueue({ ...endpoint, id: 'a\0b' }, event()), { code: 'WEBHOOK_ENDPOINT_INVALID' });
  await t.rejects(outbox.enqueue(endpoint, event(), { tenant: '' }), { code: 'WEBHOOK_TENANT_INVALID' });
  await t.rejects(outbox.enqueue(endpoint, { ...event(), data: 'x'.repeat(1024 * 1024) }), { code: 'WEBHOOK_BODY_TOO_LARGE', kind: 'limit' });
  await t.rejects(outbox.sendNow({ ...endpoint, url: 'ftp://x/' }, event()), { code: 'WEBHOOK_URL_INVALID' });
  t.same(await outbox.list(), []);
  t.equal(server.received.length, 0);
  t.throws(() => new WebhookOutbox({ store: {} as never, log: silent, schedule: [5, 10] }), { code: 'WEBHOOK_SCHEDULE_INVALID' });
  t.throws(() => new WebhookOutbox({ store: {} as never, log: silent, schedule: [0, 10, 5] }), { code: 'WEBHOOK_SCHEDULE_INVALID' });
  t.throws(() => new WebhookOutbox({ store: {} as never, log: silent, maxConcurrent: 0 }), { code: 'WEBHOOK_OPTIONS_INVALID' });
  t.throws(() => new WebhookOutbox({ store: {} as never, log: silent, timeoutMs: 1.5 }), { code: 'WEBHOOK_OPTIONS_INVALID' });
});

t.test('an onSettled that throws does not break the outbox', async (t) => {
  const { outbox, endpoint, server } = await setup(t, () => 200, {
    onSettled: () => {
      throw new Error('listener bug');
    },
  });
  const a = await outbox.enqueue(endpoint, event(1));
  const b = await outbox.enqueue(endpoint, event(2));
  await until(async () => (await outbox.list({ status: 'delivered' })).length === 2, 5000, 'both delivered');
  t.equal(server.received.length, 2);
  t.equal((await outbox.get(a.id))?.status, 'delivered');
  t.equal((await outbox.get(b.id))?.status, 'delivered');
});
