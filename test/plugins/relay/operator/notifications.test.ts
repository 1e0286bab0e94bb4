import t from 'tap';
import { createLogger } from '../../../../node/logging.js';
import { WebhookOutbox } from '../../../../plugins/common/webhooks/outbox.js';
import { verifyWebhookSignature } from '../../../../plugins/common/webhooks/signature.js';
import { RELAY_EVENTS } from '../../../../plugins/relay/core/events.js';
import { startSmtp } from '../../common/mail/smtp.js';
import { receiver, until, type Received } from '../../common/webhooks/receiver.js';
import { TENANT_A, TENANT_B, harness, isProblem } from './harness.js';

/**
 * Notification channels against real receivers: an SMTP server (smtp-server) for email, real
 * HTTP servers for chat and paging whose requests must carry a valid Ledger-Signature.
 */

const body = (r: Received) => JSON.parse(r.body.toString('utf8'));

t.test('read, change one flag, write back; test actions; events reach every enabled channel', async (t) => {
  const smtp = await startSmtp();
  t.teardown(() => smtp.close());
  const h = await harness(t, { config: { email: { smtpUrl: smtp.url, from: 'Relay <relay@example.org>' } } });
  const token = await h.session(TENANT_A);
  const chat = await receiver(t);
  const paging = await receiver(t, (n) => (n === 1 ? 500 : 200));

  const empty = await h.req('GET', '/v1/notifications', { token });
  t.same(empty.body.channels.email, { enabled: false, target: null, events: [...RELAY_EVENTS] });
  t.same(empty.body.delivery, { email: 'smtp', webhook: 'signed-webhook', chat: 'signed-webhook', paging: 'signed-webhook' });
  t.match(empty.body.note, /over SMTP/);

  const set = await h.req('PUT', '/v1/notifications', {
    token,
    body: { channels: { email: { enabled: true, target: 'ops@example.org' }, chat: { enabled: true, target: chat.url }, paging: { enabled: true, target: paging.url, events: ['delivery.failed', 'mediation.granted'] } } },
  });
  t.equal(set.status, 200, JSON.stringify(set.body));
  t.match(set.body.secrets, { chat: /^whsec_/, paging: /^whsec_/ }, 'a secret per hook channel, shown once');
  t.notOk('email' in set.body.secrets);
  t.same(set.body.channels.paging.events, ['mediation.granted', 'delivery.failed'], 'events in the canonical order');
  const secrets = set.body.secrets as { chat: string; paging: string };

  // the read-modify-write round trip: the whole GET answer, one flag changed
  const read = await h.req('GET', '/v1/notifications', { token });
  t.notMatch(JSON.stringify(read.body), /whsec_/, 'GET never shows a secret');
  read.body.channels.email.enabled = false;
  const written = await h.req('PUT', '/v1/notifications', { token, body: read.body });
  t.equal(written.status, 200, JSON.stringify(written.body));
  t.same(written.body.channels, { ...read.body.channels, email: { ...read.body.channels.email, enabled: false } });
  t.notOk('secrets' in written.body, 'no new secret for an unchanged target');
  read.body.channels.email.enabled = true;
  t.equal((await h.req('PUT', '/v1/notifications', { token, body: read.body })).status, 200, 'and back');

  // test actions: a real mail, real signed requests, and what happened
  const mailTest = await h.req('POST', '/v1/notifications/email/test', { token });
  t.equal(mailTest.status, 200, JSON.stringify(mailTest.body));
  t.match(mailTest.body, { channel: 'email', status: 'delivered', delivered: true, via: 'smtp', target: 'ops@example.org', eventId: /^evt_test_/, event: 'mediation.granted' });
  const mail = await smtp.next(0);
  t.same(mail.to, ['ops@example.org']);
  t.equal(mail.subject, '[relay default] mediation.granted');
  t.match(mail.text, mailTest.body.eventId);

  const chatTest = await h.req('POST', '/v1/notifications/chat/test', { token, body: { event: 'gate.blocked' } });
  t.match(chatTest.body, { channel: 'chat', status: 'delivered', delivered: true, statusCode: 200, event: 'gate.blocked' });
  t.equal(chat.received.length, 1);
  t.ok(verifyWebhookSignature(chat.received[0]!.headers['ledger-signature'], chat.received[0]!.body, secrets.chat), 'chat: signed with its secret');
  t.notOk(verifyWebhookSignature(chat.received[0]!.headers['ledger-signature'], chat.received[0]!.body, secrets.paging), 'and not with the other channel’s');
  t.match(body(chat.received[0]!), { id: chatTest.body.eventId, type: 'gate.blocked', data: { test: true } });

  const pageFail = await h.req('POST', '/v1/notifications/paging/test', { token });
  t.match(pageFail.body, { channel: 'paging', status: 'failed', delivered: false, statusCode: 500 }, 'the receiver’s 500 is told');
  t.ok(verifyWebhookSignature(paging.received[0]!.headers['ledger-signature'], paging.received[0]!.body, secrets.paging), 'paging: signed with its secret');
  t.same((await h.req('GET', '/v1/webhooks', { token })).body.deliveries, [], 'the webhook list keeps to the webhook');

  // a live event: an operator grants a mediation
  const { mediation } = await h.mediation(TENANT_A, { state: 'requested' });
  t.equal((await h.req('POST', `/v1/mediations/${mediation.id}/grant`, { token })).status, 200);
  await until(() => chat.received.length === 2 && paging.received.length === 2 && smtp.received.length === 2, 5000, 'the grant on every channel');
  for (const [r, secret] of [[chat.received[1]!, secrets.chat], [paging.received[1]!, secrets.paging]] as const) {
    t.ok(verifyWebhookSignature(r.headers['ledger-signature'], r.body, secret), 'the live event is signed');
    t.match(body(r), { type: 'mediation.granted', data: { mediationId: mediation.id, recipientDid: mediation.recipientDid, by: 'operator' } });
  }
  t.equal(body(chat.received[1]!).id, body(paging.received[1]!).id, 'one event id on every channel');
  t.match(smtp.received[1]!.text, mediation.id);
  const queued = await h.outbox.list({ tenant: TENANT_A, endpointId: 'notify-chat' });
  t.ok(queued.some((d) => d.eventType === 'mediation.granted' && d.status === 'delivered'), 'chat went through the durable outbox');

  // paging lists two events only: a queued message does not page, it does post to chat
  const { mediation: m2, keys } = await h.mediation(TENANT_A);
  await h.services.delivery.accept(m2, keys[0]!, null, new Uint8Array(3));
  await until(() => chat.received.length === 3, 5000, 'message.queued on chat');
  t.equal(body(chat.received[2]!).type, 'message.queued');
  t.equal(paging.received.length, 2, 'paging does not list message.queued');

  // another tenant has its own channels: nothing configured
  const b = await h.session(TENANT_B);
  isProblem(t, await h.req('POST', '/v1/notifications/chat/test', { token: b }), 409, 'conflict', 'no chat target in B');
});

t.test('validation: targets, the paging key form, read-only fields, unknown channels', async (t) => {
  const h = await harness(t);
  const token = await h.session(TENANT_A);
  for (const [put, field, detail] of [
    [{ channels: { email: { enabled: true, target: 'not-an-email' } } }, 'channels.email.target', /email address/],
    [{ channels: { chat: { target: 'http://chat.example/x' } } }, 'channels.chat.target', /https/],
    [{ channels: { paging: { target: 'routing_key_123' } } }, 'channels.paging.target', /routing keys are not accepted/],
    [{ channels: { paging: { enabled: true, target: null } } }, 'channels.paging.target', /without a target/],
    [{ channels: { sms: { enabled: true } } }, 'channels.sms', /unknown channel/],
    [{ channels: { email: { enabled: 'yes' } } }, 'channels.email.enabled', /true or false/],
    [{ channels: { email: { events: ['mediation.exploded'] } } }, 'channels.email.events[0]', /one of/],
    [{ channels: { email: { secret: 'x' } } }, 'channels.email.secret', /unknown field/],
    [{ channels: { webhook: { enabled: true, target: 'https://x.example' } } }, 'channels', /changes nothing/],
    [{ channels: {} }, 'channels', /changes nothing/],
    [{ email: {} }, 'email', /./],
  ] as const) {
    const res = await h.req('PUT', '/v1/notifications', { token, body: put });
    isProblem(t, res, 400, 'validation', JSON.stringify(put));
    t.equal(res.body.field, field);
    t.match(res.body.detail, detail);
  }
  // the read-only parts of an answer are ignored, whatever they say
  const res = await h.req('PUT', '/v1/notifications', { token, body: { channels: { webhook: { enabled: true, target: 'https://x.example' }, chat: { target: 'https://chat.example/hooks/x' } }, delivery: { email: 'carrier pigeon' }, note: 'mine' } });
  t.equal(res.status, 200, JSON.stringify(res.body));
  t.match(res.body, { channels: { webhook: { enabled: false, target: null }, chat: { enabled: false, target: 'https://chat.example/hooks/x' } }, delivery: { email: 'outbox' } });
  isProblem(t, await h.req('POST', '/v1/notifications/sms/test', { token }), 400, 'validation', 'unknown channel');
  isProblem(t, await h.req('POST', '/v1/notifications/email/test', { token }), 409, 'conflict', 'no email target');
  const read = await h.apiKey(TENANT_A, 'read');
  isProblem(t, await h.req('POST', '/v1/notifications/chat/test', { token: read.key }), 403, 'forbidden', 'a read key cannot send tests');
});

t.test('channels stored before they were sent: no secret, a paging routing key', async (t) => {
  const h = await harness(t);
  const token = await h.session(TENANT_A);
  const hook = await receiver(t);
  await h.services.store.documents.put(TENANT_A, 'notifications', 'channels', { chat: { enabled: true, target: hook.url }, paging: { enabled: true, target: 'routing_key_123' } });
  await h.services.events.emit(TENANT_A, 'mediation.granted', { mediationId: 'med_x' });
  t.same(await h.outbox.list({ tenant: TENANT_A }), [], 'nothing is queued without a secret');
  const chatTest = await h.req('POST', '/v1/notifications/chat/test', { token });
  isProblem(t, chatTest, 409, 'conflict', 'chat without a secret');
  t.match(chatTest.body.detail, /save it again/);
  isProblem(t, await h.req('POST', '/v1/notifications/paging/test', { token }), 409, 'conflict', 'paging with a key');
  // the console's write back: the routing key is refused, with what to do
  const read = (await h.req('GET', '/v1/notifications', { token })).body;
  const back = await h.req('PUT', '/v1/notifications', { token, body: read });
  isProblem(t, back, 400, 'validation', 'the stored routing key');
  t.equal(back.body.field, 'channels.paging.target');
  read.channels.paging = { enabled: false, target: null };
  const saved = await h.req('PUT', '/v1/notifications', { token, body: read });
  t.match(saved.body.secrets, { chat: /^whsec_/ }, 'saving the chat channel again makes its secret');
  t.match((await h.req('POST', '/v1/notifications/chat/test', { token })).body, { status: 'delivered' });
  t.ok(verifyWebhookSignature(hook.received[0]!.headers['ledger-signature'], hook.received[0]!.body, saved.body.secrets.chat));
});

t.test('chat and paging notifications queued while the outbox is down are sent after a restart', async (t) => {
  const h = await harness(t);
  const token = await h.session(TENANT_A);
  const chat = await receiver(t);
  const set = await h.req('PUT', '/v1/notifications', { token, body: { channels: { chat: { enabled: true, target: chat.url, events: ['delivery.failed'] } } } });
  await h.outbox.stop();
  await h.services.events.emit(TENANT_A, 'delivery.failed', { messageId: 'msg_1', recipient: 'did:example:r', reason: 'expired' });
  const pending = await h.outbox.list({ tenant: TENANT_A, endpointId: 'notify-chat' });
  t.match(pending, [{ eventType: 'delivery.failed', status: 'pending' }], 'written to the store before emit returned');
  t.equal(chat.received.length, 0);
  const restarted = new WebhookOutbox({ store: h.ns, log: createLogger({ level: 'silent' }), timeoutMs: 3000 });
  t.teardown(() => restarted.stop());
  await restarted.start();
  await until(() => chat.received.length === 1, 5000, 'the delivery after the restart');
  t.ok(verifyWebhookSignature(chat.received[0]!.headers['ledger-signature'], chat.received[0]!.body, set.body.secrets.chat), 'signed');
  t.match(body(chat.received[0]!), { type: 'delivery.failed', data: { messageId: 'msg_1' } });
});

t.test('without SMTP: mail goes to the outbox, and health and the answer say so', async (t) => {
  const h = await harness(t);
  const token = await h.session(TENANT_A);
  t.equal((await h.req('PUT', '/v1/notifications', { token, body: { channels: { email: { enabled: true, target: 'ops@example.org' } } } })).status, 200);
  const n = await h.req('GET', '/v1/notifications', { token });
  t.equal(n.body.delivery.email, 'outbox');
  t.match(n.body.note, /mail outbox/);
  t.match((await h.req('GET', '/v1/health')).body.notifications, { email: 'outbox' });
  const test = await h.req('POST', '/v1/notifications/email/test', { token });
  t.match(test.body, { channel: 'email', status: 'stored', delivered: false, via: 'outbox' });
  await h.services.events.emit(TENANT_A, 'resolution.failed', { did: 'did:example:x', error: 'not found' });
  await until(async () => (await h.req('GET', '/v1/notifications/email/outbox', { token })).body.items.length === 2, 5000, 'two mails in the outbox');
  const outbox = (await h.req('GET', '/v1/notifications/email/outbox', { token })).body;
  t.equal(outbox.via, 'outbox');
  t.same(outbox.items.map((m: { subject: string }) => m.subject), ['[relay default] resolution.failed', '[relay default] mediation.granted']);
  t.same((await h.req('GET', '/v1/notifications/email/outbox', { token: await h.session(TENANT_B) })).body.items, [], 'another tenant sees none of them');
});

t.test('email notifications go through the send queue; the outbox route shows each mail’s state', async (t) => {
  const smtp = await startSmtp();
  t.teardown(() => smtp.close());
  const h = await harness(t, { config: { email: { smtpUrl: smtp.url, from: 'Relay <relay@example.org>' } } });
  const token = await h.session(TENANT_A);
  const box = async (query = '', who = token) => (await h.req('GET', `/v1/notifications/email/outbox${query}`, { token: who })).body;
  t.equal((await h.req('PUT', '/v1/notifications', { token, body: { channels: { email: { enabled: true, target: 'ops@example.org' } } } })).status, 200);

  await h.services.events.emit(TENANT_A, 'resolution.failed', { did: 'did:example:x', error: 'not found' });
  t.equal((await box()).queue.length, 1, 'queued before emit returned');
  await until(async () => (await box()).queue[0]?.status === 'sent', 5000, 'sent');
  t.match((await box()).queue[0], { subject: '[relay default] resolution.failed', to: 'ops@example.org', status: 'sent', attempts: 1, text: null, nextAttemptAt: null, settledAt: /^\d{4}-/ });
  t.equal(smtp.received.length, 1);

  smtp.reject = 550;
  await h.services.events.emit(TENANT_A, 'delivery.failed', { messageId: 'msg_1', recipient: 'did:example:r', reason: 'expired' });
  await until(async () => (await box()).queue[0]?.status === 'failed', 5000, 'refused for good');
  t.match((await box()).queue[0], { subject: '[relay default] delivery.failed', attempts: 1, lastError: /550/, text: /msg_1/ });

  smtp.reject = 451;
  await h.services.events.emit(TENANT_A, 'gate.blocked', { did: 'did:example:y' });
  await until(async () => (await box()).queue[0]?.attempts === 1, 5000, 'a first attempt');
  const waiting = (await box()).queue[0];
  t.match(waiting, { subject: '[relay default] gate.blocked', status: 'pending', lastError: /451/ });
  const wait = Date.parse(waiting.nextAttemptAt) - Date.parse(waiting.createdAt);
  t.ok(wait >= 30_000 && wait < 40_000, `the next attempt 30 s on (${wait} ms)`);

  t.same((await box('?status=failed')).queue.map((m: { subject: string }) => m.subject), ['[relay default] delivery.failed'], 'by status');
  t.same((await box('?limit=1')).queue.length, 1);
  t.same((await box('', await h.session(TENANT_B))).queue, [], 'another tenant sees none of them');
  isProblem(t, await h.req('GET', '/v1/notifications/email/outbox?status=lost', { token }), 400, 'validation', 'an unknown status');
});
