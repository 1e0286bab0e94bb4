import t from 'tap';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../../../../node/logging.js';
import { openDatabase, type Database } from '../../../../node/state/db.js';
import { WebhookOutbox, verifyWebhookSignature, type DeliveryRecord } from '../../../../plugins/common/webhooks/index.js';
import { freePortRange } from '../../../../node/devnet/ports.js';
import { receiver, until } from './receiver.js';

const log = createLogger({ level: 'silent' });
const secret = 'whsec_durable';
const event = { id: 'evt_durable_1', type: 'kyc.verified', createdAt: '2025-05-05T05:05:05.000Z', data: { subject: 'did:ledger:dev:abc' } };
const envelope = JSON.stringify(event);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

t.test('on disk: enqueued while the receiver is down, stopped, reopened, delivered by the new outbox', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'ledger-webhooks-'));
  const open: Database[] = [];
  t.teardown(async () => {
    for (const db of open) await db.close().catch(() => {});
    await rm(dir, { recursive: true, force: true });
  });
  const port = await freePortRange(1);
  const endpoint = { id: 'ep_kyc', url: `http://127.0.0.1:${port}/hook`, secret };

  const db1 = await openDatabase(dir);
  open.push(db1);
  const first = new WebhookOutbox({ store: db1.pluginStore('kyc'), log, schedule: [0, 0.3, 0.6] });
  await first.start();
  const rec = await first.enqueue(endpoint, event, { tenant: 'org_1' });
  await until(async () => (await first.get(rec.id))?.attemptNumber === 1, 5000, 'the first attempt');
  t.match(await first.get(rec.id), { status: 'pending', statusCode: null, error: /ECONNREFUSED/ });
  await first.stop();
  await db1.close();

  const server = await receiver(t, () => 200, { port });
  await sleep(400);
  t.equal(server.received.length, 0, 'a stopped outbox sends nothing, though attempt 2 is now due');

  const db2 = await openDatabase(dir);
  open.push(db2);
  const settled: DeliveryRecord[] = [];
  const second = new WebhookOutbox({ store: db2.pluginStore('kyc'), log, schedule: [0, 0.3, 0.6], onSettled: (d) => settled.push(d) });
  t.teardown(() => second.stop());
  t.match(await second.get(rec.id), { status: 'pending', attemptNumber: 1 }, 'the record was on disk');
  await second.start();
  await until(() => settled.length === 1, 5000, 'delivered after the restart');
  t.match(settled[0], { id: rec.id, status: 'delivered', attemptNumber: 2, statusCode: 200, tenant: 'org_1', createdAt: rec.createdAt });
  t.equal(server.received.length, 1);
  const got = server.received[0]!;
  t.equal(got.body.toString(), envelope, 'the stored body, byte for byte');
  t.equal(got.headers['ledger-event-id'], 'evt_durable_1');
  t.ok(verifyWebhookSignature(got.headers['ledger-signature'], got.body, secret), 'signed with the stored secret');
  await second.stop();
  await db2.close();
});

t.test('a delivery in flight when the outbox stops is aborted at once and sent again by the next one', async (t) => {
  const db = await openDatabase('memory');
  t.teardown(() => db.close());
  const server = await receiver(t, (n) => (n === 1 ? 'hang' : 200));
  const endpoint = { id: 'ep', url: server.url, secret };
  // a request timeout far beyond the test's own: waiting it out would fail the test, only the abort ends it
  const first = new WebhookOutbox({ store: db.pluginStore('relay'), log, timeoutMs: 600_000 });
  await first.start();
  const rec = await first.enqueue(endpoint, event);
  await until(() => server.received.length === 1, 5000, 'the first request');
  await first.stop();
  t.match(await first.get(rec.id), { status: 'pending', attemptNumber: 0 }, 'an aborted attempt is not an outcome');

  const settled: DeliveryRecord[] = [];
  const second = new WebhookOutbox({ store: db.pluginStore('relay'), log, onSettled: (d) => settled.push(d) });
  t.teardown(() => second.stop());
  await second.start();
  await until(() => settled.length === 1, 5000, 'delivered');
  t.match(settled[0], { id: rec.id, status: 'delivered', attemptNumber: 1 });
  t.equal(server.received.length, 2, 'at least once: the receiver saw it twice');
  t.same(server.received.map((r) => r.headers['ledger-event-id']), ['evt_durable_1', 'evt_durable_1'], 'with the same event id to deduplicate on');
  t.ok(server.received[0]!.body.equals(server.received[1]!.body));
});

t.test('after a restart a retry waits for its nextRetryAt', async (t) => {
  const db = await openDatabase('memory');
  t.teardown(() => db.close());
  const server = await receiver(t, (n) => (n === 1 ? 500 : 200));
  const endpoint = { id: 'ep', url: server.url, secret };
  const first = new WebhookOutbox({ store: db.pluginStore('wallet'), log, schedule: [0, 0.8] });
  await first.start();
  const rec = await first.enqueue(endpoint, event);
  await until(async () => (await first.get(rec.id))?.attemptNumber === 1, 5000, 'attempt 1');
  await first.stop();
  const mid = (await first.get(rec.id))!;
  const due = Date.parse(mid.nextRetryAt!);
  t.equal(due, Math.max(Date.parse(mid.responseTimestamp!), Date.parse(mid.requestTimestamp!) + 800), 'due 0.8 s after the first attempt was sent');
  const second = new WebhookOutbox({ store: db.pluginStore('wallet'), log, schedule: [0, 0.8] });
  t.teardown(() => second.stop());
  await second.start();
  await until(() => server.received.length === 2, 5000, 'attempt 2');
  t.ok(server.received[1]!.at >= due - 3, `sent ${server.received[1]!.at - due} ms after it was due`);
  await until(async () => (await second.get(rec.id))?.status === 'delivered', 5000, 'delivered');
});

t.test('enqueue before start() waits in the store; start() sends it', async (t) => {
  const db = await openDatabase('memory');
  t.teardown(() => db.close());
  const server = await receiver(t);
  const outbox = new WebhookOutbox({ store: db.pluginStore('x'), log });
  t.teardown(() => outbox.stop());
  const rec = await outbox.enqueue({ id: 'ep', url: server.url, secret }, event);
  await sleep(150);
  t.equal(server.received.length, 0);
  await outbox.start();
  await until(async () => (await outbox.get(rec.id))?.status === 'delivered', 5000, 'delivered');
  t.equal(server.received.length, 1);
  await outbox.stop();
  await t.rejects(outbox.start(), { code: 'WEBHOOK_OUTBOX_STATE' });
  await t.rejects(outbox.sendNow({ id: 'ep', url: server.url, secret }, event), { code: 'WEBHOOK_OUTBOX_STOPPED' });
});

t.test('settled records older than the retention are pruned at start and periodically; pending ones stay', async (t) => {
  const db = await openDatabase('memory');
  t.teardown(() => db.close());
  const server = await receiver(t, (_n, r) => (r.headers['ledger-event-id'] === 'evt_fail' ? 500 : 200));
  const endpoint = { id: 'ep', url: server.url, secret };
  const day = 24 * 3600 * 1000;
  let clock = Date.now() - 8 * day;
  const old = new WebhookOutbox({ store: db.pluginStore('p'), log, now: () => clock });
  const oldDelivered = (await old.sendNow(endpoint, { ...event, id: 'evt_ok' }, { tenant: 'a' })).id;
  const oldFailed = (await old.sendNow(endpoint, { ...event, id: 'evt_fail' })).id;
  const oldPending = (await old.enqueue(endpoint, { ...event, id: 'evt_pending' })).id;
  clock = Date.now();
  const recent = (await old.sendNow(endpoint, { ...event, id: 'evt_recent' }, { tenant: 'a' })).id;
  t.equal((await old.list()).length, 4);

  const outbox = new WebhookOutbox({ store: db.pluginStore('p'), log, now: () => clock, pruneIntervalMs: 50 });
  t.teardown(() => outbox.stop());
  await outbox.start();
  t.equal(await outbox.get(oldDelivered), undefined, 'old delivered: pruned');
  t.equal(await outbox.get(oldFailed), undefined, 'old failed: pruned');
  t.ok(await outbox.get(oldPending), 'old pending: kept, it is still owed');
  t.ok(await outbox.get(recent), 'recent: kept');
  t.same((await outbox.list({ tenant: 'a' })).map((r) => r.id), [recent], 'index entries went too');
  t.same((await outbox.list({ status: 'failed' })).map((r) => r.id), []);
  // No key of a pruned delivery is left behind (an index entry would be filtered out on read,
  // so only the raw keys show a leak).
  const keyIds = new Set<string>();
  for await (const k of db.pluginStore('p').keys()) keyIds.add(/del_[0-9a-f]{28}$/.exec(new TextDecoder().decode(k))![0]);
  t.same([...keyIds].sort(), [oldPending, recent].sort(), 'only the kept deliveries have keys');
  await until(async () => (await outbox.get(oldPending))?.status === 'delivered', 5000, 'the old pending one delivered');

  clock += 8 * day;
  await until(async () => (await outbox.list()).length === 0, 2000, 'the periodic prune');
  t.equal(await outbox.get(recent), undefined);
});
