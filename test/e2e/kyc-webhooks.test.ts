import t from 'tap';
import { KycClient } from '../../bench/lib/kyc/client.js';
import { testJpeg } from '../../bench/lib/kyc/images.js';
import { WebhookReceiver } from '../../bench/lib/kyc/receiver.js';
import { startKycNode } from './kyc/setup.js';

/**
 * Webhook retries across a kill -9: the receiver fails the first attempts, the node is killed
 * while the delivery waits for its next attempt, and after the restart the same event (same id)
 * arrives, signed, with its delivery record showing every attempt.
 */

t.test('retries go on after a kill -9, with the same event id', async (t) => {
  const n = await startKycNode(t, { webhooks: { retryOffsetsSeconds: [0, 3, 4, 5, 6, 7] } });
  const receiver = new WebhookReceiver();
  const url = await receiver.start();
  t.teardown(() => receiver.close());
  const api = new KycClient(n.kyc);
  await api.register('hooks@example.org', 'a long enough passphrase', 'Hook Owner');
  await api.createKey('sandbox');
  const hook = await api.addWebhook(url, ['verification.failed']);
  receiver.secret = hook.secret;

  const test = await api.call('POST', '/v1/webhooks/test', { auth: 'bearer-key', body: { webhookId: hook.id, eventType: 'verification.failed' } });
  t.match(test, { id: /^evt_test_/, status: 'delivered', statusCode: 200, request: { url } });

  receiver.fail(2);
  const session = (await api.createSession({ level: 1, sandbox: true, sandboxOutcome: 'fail' })).session;
  await api.uploadDocument(session.id, testJpeg(800, 500, 1), { type: 'passport', side: 'front', final: true });
  const firstFailure = Date.now() + 10_000;
  while (receiver.attempts < 2 && Date.now() < firstFailure) await new Promise((r) => setTimeout(r, 50));
  t.equal(receiver.attempts, 2, 'the test delivery and the first attempt arrived');
  // the kill comes once the node has written the first attempt's outcome: an attempt in flight at
  // a crash is sent again with its number (at least once), which this test does not measure
  const recorded = Date.now() + 10_000;
  const firstAttempt = async () => ((await api.call('GET', `/v1/webhooks/${hook.id}/deliveries`, { auth: 'bearer-key' })).data as Array<{ eventType: string; attemptNumber: number }>).find((d) => d.eventType === 'verification.failed');
  while ((await firstAttempt())?.attemptNumber !== 1 && Date.now() < recorded) await new Promise((r) => setTimeout(r, 20));
  t.match(await firstAttempt(), { status: 'pending', attemptNumber: 1 }, 'the first attempt\'s failure is recorded');
  await n.restart({ kill9: true });
  const api2 = new KycClient(n.kyc);
  api2.apiKey = api.apiKey;

  const event = await receiver.waitFor((e) => e.type === 'verification.failed' && e.data.verificationId === session.id, 30_000);
  t.match(event.id, /^evt_[0-9a-f]+$/);
  const deliveries = await api2.call('GET', `/v1/webhooks/${hook.id}/deliveries`, { auth: 'bearer-key' });
  const record = deliveries.data.find((d: { eventId: string }) => d.eventId === event.id);
  t.match(record, { id: /^del_/, eventType: 'verification.failed', status: 'delivered', statusCode: 200, attemptNumber: 3 });
  t.equal(receiver.events.filter((e) => e.id === event.id).length, 1, 'delivered once, after two failures');
  t.equal(receiver.rejected, 0);
});
