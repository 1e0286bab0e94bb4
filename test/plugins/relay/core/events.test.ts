import t from 'tap';
import { verifyWebhookSignature } from '../../../../plugins/common/webhooks/signature.js';
import { receiver } from '../../common/webhooks/receiver.js';
import { harness, TENANT_A } from '../operator/harness.js';

/**
 * What the relay emits, end to end: configured through PUT /v1/webhooks, signed by the shared
 * outbox, received by a real HTTP server. The retention sweeper and a revoke each fail messages.
 */

t.test('message.queued, message.delivered, delivery.failed on expiry and on revoke, each signed', async (t) => {
  let now = Date.now();
  const h = await harness(t, { now: () => now });
  const hook = await receiver(t);
  const token = await h.session(TENANT_A);
  const put = await h.req('PUT', '/v1/webhooks', { token, body: { url: hook.url, events: ['message.queued', 'message.delivered', 'delivery.failed'] } });
  t.equal(put.status, 201);
  const secret = put.body.secret as string;
  await h.req('PUT', '/v1/policies/retention', { token, body: { retentionSeconds: 60 } });

  const { mediation, keys } = await h.mediation(TENANT_A, { keys: 2 });
  const { delivery } = h.services;
  const first = await delivery.accept(mediation, keys[0]!, null, Buffer.from('{"ciphertext":"a"}'));
  const second = await delivery.accept(mediation, keys[1]!, null, Buffer.from('{"ciphertext":"b"}'));
  await delivery.delivered([first], 'delivered');
  now += 61_000;
  t.equal(await delivery.sweep(), 2, 'both pending messages expired, the delivered one too: it was never acknowledged');
  const third = await delivery.accept(mediation, keys[0]!, null, Buffer.from('{"ciphertext":"c"}'));
  await h.req('POST', `/v1/mediations/${mediation.id}/revoke`, { token });

  for (let i = 0; i < 100 && hook.received.length < 7; i++) await new Promise((r) => setTimeout(r, 20));
  const events = hook.received.map((r) => JSON.parse(r.body.toString()) as { type: string; data: { messageId: string; reason?: string } });
  t.same(
    events.map((e) => `${e.type}:${e.data.messageId}:${e.data.reason ?? ''}`).sort(),
    [
      `delivery.failed:${first.id}:expired`,
      `delivery.failed:${second.id}:expired`,
      `delivery.failed:${third.id}:the mediation was revoked`,
      `message.delivered:${first.id}:`,
      `message.queued:${first.id}:`,
      `message.queued:${second.id}:`,
      `message.queued:${third.id}:`,
    ].sort(),
  );
  for (const r of hook.received) t.ok(verifyWebhookSignature(r.headers['ledger-signature'], r.body, secret, { nowSeconds: Math.floor(Date.now() / 1000) }), 'signed with the tenant secret');
  t.match(await h.services.store.messages.get(third.id), { state: 'failed', reason: 'the mediation was revoked' });
  t.match(await h.services.store.messages.get(second.id), { state: 'expired' });
  await h.services.delivery.flushLog();
  const log = await h.req('GET', '/v1/delivery-log?limit=20', { token });
  t.ok(log.body.some((e: { message: string }) => e.message.startsWith(`expired ${second.id}`)), 'the delivery log says what happened');
});
