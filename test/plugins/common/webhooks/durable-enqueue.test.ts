import t from 'tap';
import { createLogger } from '../../../../node/logging.js';
import { WebhookOutbox, type DeliveryRecord } from '../../../../plugins/common/webhooks/index.js';
import { syncedDisk, unsynced } from '../store/synced-batches.js';
import { receiver, until } from './receiver.js';

/**
 * `enqueue` resolves only once its delivery is on disk: on a real LevelDB directory whose synced
 * batches are recorded (synced-batches.ts), each delivery's record must be in a batch completed
 * with `sync: true` before its enqueue resolves, and concurrent enqueues share those batches.
 */

const log = createLogger({ level: 'silent' });
const endpoint = { id: 'ep_1', url: 'http://127.0.0.1:9/hook', secret: 'whsec_durable' };
const event = (i: number) => ({ id: `evt_durable_${i}`, type: 'message.queued', createdAt: '2026-01-01T00:00:00.000Z', data: { i } });
const resolved = (rec: DeliveryRecord) => ({ resolved: rec.id, key: `!plugin:hooks!!webhooks!d\0${rec.id}` });

const N = 50;

t.test('concurrent enqueues each resolve after a synced batch holding them, and share far fewer syncs', async (t) => {
  const { db, events, syncs } = await syncedDisk(t, 'webhook-outbox');
  // not started: nothing is attempted, so the only writes are the inserts
  const outbox = new WebhookOutbox({ store: db.pluginStore('hooks'), log });
  t.teardown(() => outbox.stop());
  await Promise.all(
    Array.from({ length: N }, async (_, i) => {
      events.push(resolved(await outbox.enqueue(endpoint, event(i), { tenant: 'default' })));
    }),
  );
  t.same(unsynced(events), [], 'no enqueue resolved before a synced batch held its delivery');
  t.ok(syncs() <= N / 10, `${N} concurrent enqueues in ${syncs()} synced batches`);
  t.equal(await outbox.count({ status: 'pending' }), N);
});

t.test('one enqueue at a time waits for a synced batch each', async (t) => {
  const { db, events, syncs } = await syncedDisk(t, 'webhook-outbox');
  const outbox = new WebhookOutbox({ store: db.pluginStore('hooks'), log });
  t.teardown(() => outbox.stop());
  for (let i = 0; i < 3; i++) events.push(resolved(await outbox.enqueue(endpoint, event(i))));
  t.same(unsynced(events), []);
  t.equal(syncs(), 3);
});

t.test('without sync the same check finds an enqueue that resolved ahead of any fsync', async (t) => {
  const { db, events, syncs } = await syncedDisk(t, 'webhook-outbox');
  const outbox = new WebhookOutbox({ store: db.pluginStore('hooks'), log, sync: false });
  t.teardown(() => outbox.stop());
  const rec = await outbox.enqueue(endpoint, event(1));
  events.push(resolved(rec));
  t.same(unsynced(events), [rec.id]);
  t.equal(syncs(), 0);
});

t.test('the outcome of an attempt and a test delivery are written without an fsync', async (t) => {
  const { db, syncs } = await syncedDisk(t, 'webhook-outbox');
  const server = await receiver(t, () => 200);
  const settled: DeliveryRecord[] = [];
  const outbox = new WebhookOutbox({ store: db.pluginStore('hooks'), log, onSettled: (d) => settled.push(d) });
  t.teardown(() => outbox.stop());
  await outbox.start();
  const target = { ...endpoint, url: server.url };
  const rec = await outbox.enqueue(target, event(1));
  await until(() => settled.length === 1, 5000, 'delivered');
  t.match(await outbox.get(rec.id), { status: 'delivered' });
  t.match(await outbox.sendNow(target, { ...event(2), id: 'evt_test_durable_2' }), { status: 'delivered' });
  t.equal(syncs(), 1, 'only the new delivery was synced: a lost "delivered" mark is a send again');
});

t.test('a synced write that fails refuses the enqueue with a stable code, and nothing is attempted', async (t) => {
  const { db } = await syncedDisk(t, 'webhook-outbox');
  const server = await receiver(t, () => 200);
  const outbox = new WebhookOutbox({ store: db.pluginStore('hooks'), log });
  t.teardown(() => outbox.stop());
  await outbox.start();
  await db.close();
  await t.rejects(outbox.enqueue({ ...endpoint, url: server.url }, event(1)), { code: 'WEBHOOK_OUTBOX_SYNC_FAILED', kind: 'unavailable', data: { retryAfterSeconds: 1 } });
  await new Promise((r) => setTimeout(r, 100));
  t.equal(server.received.length, 0);
});
