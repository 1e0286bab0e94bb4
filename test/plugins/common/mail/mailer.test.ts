import t, { type Test } from 'tap';
import { openDatabase } from '../../../../node/state/db.js';
import { Mailer, MAX_OUTBOX } from '../../../../plugins/common/mail/index.js';
import { recordingLogger, startSmtp } from './smtp.js';

const FROM = 'Ledger KYC <no-reply@ledger.test>';

async function store(t: Test) {
  const db = await openDatabase('memory');
  t.teardown(() => db.close());
  return db.pluginStore('kyc');
}

t.test('over SMTP: the mail reaches the server with its headers and body', async (t) => {
  const smtp = await startSmtp();
  t.teardown(() => smtp.close());
  const { log, lines } = recordingLogger();
  const mailer = new Mailer({ store: await store(t), smtpUrl: smtp.url, from: FROM, log });
  mailer.start();
  t.teardown(() => mailer.stop());
  t.equal(mailer.via, 'smtp');
  t.notOk(lines.some((l) => l.level === 40), 'no outbox warning with SMTP configured');

  const sent = await mailer.send({ to: 'alice@example.org', subject: 'Hello there', text: 'line one\nhttp://x.test/a?token=abc\n' });
  t.equal(sent.via, 'smtp');
  t.match(sent.id, /^mail_[0-9a-f]{24}$/);
  const got = await smtp.next(0);
  t.same(got.to, ['alice@example.org']);
  t.equal(got.from, 'no-reply@ledger.test');
  t.equal(got.subject, 'Hello there');
  t.match(got.text, 'http://x.test/a?token=abc');
  t.match(got.raw, `Message-ID: <${sent.id}@ledger>`);
  t.same(await mailer.outbox(), [], 'nothing is kept in the outbox');
});

t.test('a refused mail is a typed error, logged', async (t) => {
  const smtp = await startSmtp();
  t.teardown(() => smtp.close());
  smtp.refuse = true;
  const { log, lines } = recordingLogger();
  const mailer = new Mailer({ store: await store(t), smtpUrl: smtp.url, from: FROM, log });
  mailer.start();
  t.teardown(() => mailer.stop());
  await t.rejects(mailer.send({ to: 'bob@example.org', subject: 'x', text: 'y' }), { code: 'MAIL_SEND_FAILED', message: /bob@example\.org.*550/, data: { permanent: true } });
  smtp.reject = 451;
  await t.rejects(mailer.send({ to: 'bob@example.org', subject: 'x', text: 'y' }), { code: 'MAIL_SEND_FAILED', message: /451/, data: { permanent: false } }, 'a 4xx: another attempt could do better');
  t.ok(lines.some((l) => l.level === 50 && l.msg === 'mail send failed'), 'the failure is logged');
  t.equal(smtp.received.length, 0);
});

t.test('an unreachable server is a typed error', async (t) => {
  const smtp = await startSmtp();
  const url = smtp.url;
  await smtp.close();
  const { log } = recordingLogger();
  const mailer = new Mailer({ store: await store(t), smtpUrl: url, from: FROM, log, timeoutMs: 2000 });
  mailer.start();
  t.teardown(() => mailer.stop());
  await t.rejects(mailer.send({ to: 'bob@example.org', subject: 'x', text: 'y' }), { code: 'MAIL_SEND_FAILED', message: /ECONNREFUSED|ECONNECTION/, data: { permanent: false } });
});

t.test('without SMTP: the outbox, newest first, and one warning at start', async (t) => {
  const { log, lines } = recordingLogger();
  let now = Date.parse('2030-01-01T00:00:00Z');
  const mailer = new Mailer({ store: await store(t), from: FROM, log, now: () => now });
  mailer.start();
  mailer.start();
  t.equal(mailer.via, 'outbox');
  const warnings = lines.filter((l) => l.level === 40);
  t.equal(warnings.length, 1, 'warned once');
  t.equal(warnings[0]?.msg, 'no SMTP configured; mail goes to the outbox at GET /v1/operator/mail');

  const a = await mailer.send({ to: 'a@example.org', subject: 'first', text: 'one' });
  now += 1000;
  const b = await mailer.send({ to: 'b@example.org', subject: 'second', text: 'two', html: '<p>two</p>' });
  t.same([a.via, b.via], ['outbox', 'outbox']);
  const box = await mailer.outbox();
  t.same(box.map((m) => m.id), [b.id, a.id]);
  t.same(box[0], { id: b.id, from: FROM, to: 'b@example.org', subject: 'second', text: 'two', html: '<p>two</p>', createdAt: '2030-01-01T00:00:01.000Z' });
  t.same((await mailer.outbox(1)).map((m) => m.id), [b.id], 'limit');
  t.equal(MAX_OUTBOX, 1000);
});

t.test('the outbox survives a restart of the mailer', async (t) => {
  const s = await store(t);
  const { log } = recordingLogger();
  const one = new Mailer({ store: s, from: FROM, log });
  one.start();
  const sent = await one.send({ to: 'a@example.org', subject: 's', text: 't' });
  await one.stop();
  const two = new Mailer({ store: s, from: FROM, log });
  two.start();
  t.same((await two.outbox()).map((m) => m.id), [sent.id]);
});

t.test('bad mails are refused before sending', async (t) => {
  const { log } = recordingLogger();
  const mailer = new Mailer({ store: await store(t), from: FROM, log });
  await t.rejects(mailer.send({ to: 'a@example.org', subject: 's', text: 't' }), { code: 'MAIL_NOT_STARTED' });
  mailer.start();
  await t.rejects(mailer.send({ to: 'not an address', subject: 's', text: 't' }), { code: 'MAIL_INVALID' });
  await t.rejects(mailer.send({ to: 'a@example.org, b@example.org', subject: 's', text: 't' }), { code: 'MAIL_INVALID' });
  await t.rejects(mailer.send({ to: 'a@example.org', subject: 'two\r\nBcc: x@evil.test', text: 't' }), { code: 'MAIL_INVALID', message: /one non-empty line/ });
  await t.rejects(mailer.send({ to: 'a@example.org', subject: 's', text: '' }), { code: 'MAIL_INVALID' });
  t.same(await mailer.outbox(), []);
});
