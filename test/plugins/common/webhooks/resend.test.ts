import t, { type Test } from 'tap';
import { createLogger } from '../../../../node/logging.js';
import { openDatabase } from '../../../../node/state/db.js';
import { WebhookOutbox, verifyWebhookSignature, type DeliveryRecord, type WebhookOutboxOptions } from '../../../../plugins/common/webhooks/index.js';
import { receiver, until, type Answer } from './receiver.js';

/** The outbox's additions for the KYC plugin: resolveEndpoint, resend of a failed delivery, count. */

const silent = createLogger({ level: 'silent' });
const event = (n = 1) => ({ id: `evt_${n}`, type: 'verification.completed', createdAt: '2025-03-01T12:00:00.000Z', data: { n } });

async function setup(t: Test, answer: Answer, opts: Partial<WebhookOutboxOptions> = {}) {
  const db = await openDatabase('memory');
  const server = await receiver(t, answer);
  const settled: DeliveryRecord[] = [];
  const outbox = new WebhookOutbox({ store: db.pluginStore('test'), log: silent, onSettled: (d) => settled.push(d), ...opts });
  await outbox.start();
  t.teardown(async () => {
    await outbox.stop();
    await db.close();
  });
  const stored = async (): Promise<string> => {
    const out: string[] = [];
    for await (const v of db.pluginStore('test').values()) out.push(new TextDecoder().decode(v));
    return out.join('\n');
  };
  return { server, outbox, settled, stored };
}

t.test('resolveEndpoint: each attempt uses the current secret and URL; the secret is never stored', async (t) => {
  const current = { url: '', secret: 'whsec_first' };
  let gone = false;
  const { server, outbox, settled, stored } = await setup(t, (n) => (n === 1 ? 500 : 200), {
    schedule: [0, 0.2],
    resolveEndpoint: async (id, tenant) => (gone || id !== 'ep' || tenant !== 'org' ? null : { ...current }),
  });
  current.url = server.url;
  const rec = await outbox.enqueue({ id: 'ep', url: server.url, secret: 'whsec_first' }, event(), { tenant: 'org' });
  await until(() => server.received.length === 1, 3000, 'first attempt');
  t.notMatch(await stored(), /whsec_first/, 'no secret in the store while pending');
  current.secret = 'whsec_second';
  current.url = `${server.url}?moved`;
  await until(() => settled.length === 1, 3000, 'settled');
  const [first, second] = server.received;
  t.ok(verifyWebhookSignature(first!.headers['ledger-signature'], first!.body, 'whsec_first'));
  t.ok(verifyWebhookSignature(second!.headers['ledger-signature'], second!.body, 'whsec_second'), 'the retry is signed with the current secret');
  t.notOk(verifyWebhookSignature(second!.headers['ledger-signature'], second!.body, 'whsec_first'));
  t.match(settled[0], { id: rec.id, status: 'delivered', attemptNumber: 2, url: `${server.url}?moved` }, 'sent to the current URL');

  gone = true;
  const dropped = await outbox.enqueue({ id: 'ep', url: server.url, secret: 'whsec_second' }, event(2), { tenant: 'org' });
  await until(() => settled.length === 2, 3000, 'settled');
  t.match(settled[1], { id: dropped.id, status: 'failed', attemptNumber: 0, error: 'the endpoint was deleted or disabled', nextRetryAt: null });
  t.equal(server.received.length, 2, 'no attempt to an endpoint that is gone');
});

t.test('resend: a failed delivery again, as a new delivery with the same event id and body', async (t) => {
  let healthy = false;
  const { server, outbox, settled, stored } = await setup(t, () => (healthy ? 200 : 500), { schedule: [0, 0.05] });
  const endpoint = { id: 'ep', url: server.url, secret: 'whsec_resend' };
  const rec = await outbox.enqueue(endpoint, event(), { tenant: 'org' });
  await until(() => settled.length === 1, 3000, 'failed');
  t.equal(settled[0]!.status, 'failed');
  t.notMatch(await stored(), /whsec_resend/, 'a failed delivery keeps its body but not the secret');
  await t.rejects(outbox.resend(rec.id, { ...endpoint, id: 'other' }), { code: 'WEBHOOK_DELIVERY_NOT_FOUND', kind: 'not_found' });
  await t.rejects(outbox.resend('del_0000000000000000000000000000', endpoint), { code: 'WEBHOOK_DELIVERY_NOT_FOUND' });
  await t.rejects(outbox.resend(rec.id, { ...endpoint, url: 'http://example.com/' }), { code: 'WEBHOOK_URL_INVALID' });
  healthy = true;
  const again = await outbox.resend(rec.id, { ...endpoint, secret: 'whsec_new' });
  t.match(again, { eventId: 'evt_1', tenant: 'org', status: 'pending', attemptNumber: 0, resendOf: rec.id });
  t.not(again.id, rec.id);
  await until(() => settled.length === 2, 3000, 'delivered');
  t.match(settled[1], { id: again.id, status: 'delivered', resendOf: rec.id });
  const last = server.received.at(-1)!;
  t.ok(last.body.equals(server.received[0]!.body), 'the same bytes');
  t.ok(verifyWebhookSignature(last.headers['ledger-signature'], last.body, 'whsec_new'), 'signed with the secret given to resend');
  await t.rejects(outbox.resend(again.id, endpoint), { code: 'WEBHOOK_DELIVERY_NOT_FAILED', kind: 'conflict' });
  t.equal((await outbox.get(rec.id))?.status, 'failed', 'the old record stays as it was');
  healthy = false;
  const failedTest = await outbox.sendNow(endpoint, { ...event(10), id: 'evt_test_10' });
  t.equal(failedTest.status, 'failed');
  await t.rejects(outbox.resend(failedTest.id, endpoint), { code: 'WEBHOOK_DELIVERY_BODY_GONE' }, 'a test delivery keeps no body');
});

t.test('count: by endpoint, tenant and status, alone or together', async (t) => {
  const { server, outbox, settled } = await setup(t, (_n, r) => (r.headers['ledger-event-id'] === 'evt_3' ? 500 : 200), { schedule: [0] });
  t.equal(await outbox.count(), 0);
  const ep = (id: string) => ({ id, url: server.url, secret: 'whsec_c' });
  for (let i = 1; i <= 5; i++) await outbox.enqueue(ep(i % 2 ? 'ep_1' : 'ep_2'), event(i), { tenant: i <= 2 ? 'a' : 'b' });
  await until(() => settled.length === 5, 5000, 'settled');
  t.equal(await outbox.count(), 5);
  t.equal(await outbox.count({ endpointId: 'ep_1' }), 3);
  t.equal(await outbox.count({ tenant: 'a' }), 2);
  t.equal(await outbox.count({ status: 'failed' }), 1);
  t.equal(await outbox.count({ endpointId: 'ep_1', status: 'delivered' }), 2);
  t.equal(await outbox.count({ endpointId: 'ep_1', status: 'failed', tenant: 'b' }), 1);
  t.equal(await outbox.count({ endpointId: 'ep_1', tenant: 'a' }), 1);
  t.equal(await outbox.count({ endpointId: 'ep_' }), 0, 'a prefix of an endpoint id matches nothing');
  await t.rejects(outbox.count({ status: 'lost' as 'failed' }), { code: 'WEBHOOK_LIST_INVALID' });
});
