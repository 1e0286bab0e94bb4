import t from 'tap';
import { createLogger } from '../../../../node/logging.js';
import { openDatabase } from '../../../../node/state/db.js';
import { WebhookOutbox, type DeliveryRecord } from '../../../../plugins/common/webhooks/index.js';
import { receiver, until } from './receiver.js';

const log = createLogger({ level: 'silent' });

for (const maxConcurrent of [2, 3]) {
  t.test(`at most maxConcurrent (${maxConcurrent}) requests in flight; the rest wait and are all delivered`, async (t) => {
    const db = await openDatabase('memory');
    t.teardown(() => db.close());
    const server = await receiver(t, () => 200, { holdMs: 120 });
    const settled: DeliveryRecord[] = [];
    const outbox = new WebhookOutbox({ store: db.pluginStore('c'), log, maxConcurrent, onSettled: (d) => settled.push(d) });
    t.teardown(() => outbox.stop());
    await outbox.start();
    const endpoint = { id: 'ep', url: server.url, secret: 'whsec_c' };
    for (let i = 0; i < 8; i++) await outbox.enqueue(endpoint, { id: `evt_${i}`, type: 't', createdAt: '2025-01-01T00:00:00Z', data: i });
    await until(() => server.received.length >= 1, 5000, 'the first requests');
    await new Promise((r) => setTimeout(r, 30));
    t.equal(server.open(), maxConcurrent, 'the slots are full');
    t.ok((await outbox.list({ status: 'pending' })).length >= 8 - maxConcurrent, 'the others wait, pending');
    await until(() => settled.length === 8, 10_000, 'all delivered');
    t.equal(server.maxOpen(), maxConcurrent, 'never more than maxConcurrent at once');
    t.ok(settled.every((d) => d.status === 'delivered' && d.attemptNumber === 1));
    t.same(server.received.map((r) => r.headers['ledger-event-id']).sort(), Array.from({ length: 8 }, (_, i) => `evt_${i}`), 'each once');
  });
}
