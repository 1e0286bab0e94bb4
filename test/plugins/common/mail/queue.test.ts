import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Registry } from 'prom-client';
import t, { type Test } from 'tap';
import { freePortRange } from '../../../../node/devnet/ports.js';
import { openDatabase, type BinarySublevel } from '../../../../node/state/db.js';
import { Mailer, type MailerOptions, type QueuedMail } from '../../../../plugins/common/mail/index.js';
import { until } from '../webhooks/receiver.js';
import { recordingLogger, startSmtp } from './smtp.js';

/**
 * The send queue against a real SMTP server (smtp-server) that is down, refuses for good (550),
 * or asks to try later (451); on a real LevelDB for restarts, and a real process killed with
 * SIGKILL. Retry delays of a few hundred ms stand for the minutes and hours of the default.
 */

const FROM = 'Ledger relay <relay@ledger.test>';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mail = (n: number) => ({ to: `ops${n}@example.org`, subject: `[relay t1] event ${n}`, text: `event ${n}` });

async function memoryStore(t: Test): Promise<BinarySublevel> {
  const db = await openDatabase('memory');
  t.teardown(() => db.close());
  return db.pluginStore('relay');
}

async function tempDir(t: Test): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ledger-mail-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

function started(t: Test, opts: Omit<MailerOptions, 'from' | 'log'> & { log?: MailerOptions['log'] }): Mailer {
  const mailer = new Mailer({ from: FROM, log: recordingLogger().log, timeoutMs: 2000, ...opts });
  mailer.start();
  t.teardown(() => mailer.stop());
  return mailer;
}

async function record(mailer: Mailer, id: string): Promise<QueuedMail | undefined> {
  return (await mailer.queued({ limit: 1000 })).find((m) => m.id === id);
}

async function untilStatus(mailer: Mailer, id: string, status: QueuedMail['status'], ms = 5000): Promise<QueuedMail> {
  await until(async () => (await record(mailer, id))?.status === status, ms, `mail ${id} ${status}`);
  return (await record(mailer, id))!;
}

async function metric(registry: Registry, name: string, labels: Record<string, string>): Promise<number | undefined> {
  const values = (await registry.getSingleMetric(name)?.get())?.values ?? [];
  return values.find((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x))?.value;
}

t.test('a mail queued while the server is down goes out once it is up', async (t) => {
  const port = await freePortRange(1);
  const registry = new Registry();
  const mailer = started(t, { store: await memoryStore(t), smtpUrl: `smtp://127.0.0.1:${port}`, retryDelaysMs: Array(20).fill(300), metrics: { registry, plugin: 'relay' } });
  const queued = await mailer.queue(mail(1), { tag: 't1' });
  t.match(queued, { id: /^mail_[0-9a-f]{24}$/, via: 'smtp', status: 'pending' });
  t.match(await record(mailer, queued.id), { status: 'pending', tag: 't1', to: 'ops1@example.org', text: 'event 1' }, 'in the store when queue() returns');

  await until(async () => ((await record(mailer, queued.id))?.attempts ?? 0) >= 1, 5000, 'a first attempt');
  t.match(await record(mailer, queued.id), { status: 'pending', lastError: /ECONNREFUSED|ECONNECTION/, nextAttemptAt: /^\d{4}-/, settledAt: null });
  t.equal(await metric(registry, 'ledger_mail_pending', { plugin: 'relay' }), 1);

  const smtp = await startSmtp({ port });
  t.teardown(() => smtp.close());
  const got = await smtp.next(0);
  t.same(got.to, ['ops1@example.org']);
  t.match(got.raw, `Message-ID: <${queued.id}@ledger>`);
  const sent = await untilStatus(mailer, queued.id, 'sent');
  t.match(sent, { nextAttemptAt: null, settledAt: /^\d{4}-/, lastError: /ECONN/ });
  t.ok(sent.attempts >= 2, `${sent.attempts} attempts`);
  t.notOk('text' in sent, 'the body is dropped once sent');
  t.equal(await metric(registry, 'ledger_mail_total', { plugin: 'relay', result: 'sent' }), 1);
  t.equal(await metric(registry, 'ledger_mail_total', { plugin: 'relay', result: 'retried' }), sent.attempts - 1, 'each failed attempt counted');
  t.equal(await metric(registry, 'ledger_mail_total', { plugin: 'relay', result: 'failed' }), 0, 'every result starts at 0');
  t.equal(await metric(registry, 'ledger_mail_pending', { plugin: 'relay' }), 0);
  await sleep(400);
  t.equal(smtp.received.length, 1, 'sent once');
});

t.test('a 5xx refusal fails the mail at once, without a retry', async (t) => {
  const smtp = await startSmtp();
  t.teardown(() => smtp.close());
  smtp.reject = 550;
  const registry = new Registry();
  const { log, lines } = recordingLogger();
  const mailer = started(t, { store: await memoryStore(t), smtpUrl: smtp.url, log, retryDelaysMs: [50, 50, 50], metrics: { registry, plugin: 'relay' } });
  const queued = await mailer.queue(mail(2), { tag: 't1' });
  const failed = await untilStatus(mailer, queued.id, 'failed');
  t.match(failed, { attempts: 1, lastError: /550/, nextAttemptAt: null, settledAt: /^\d{4}-/, text: 'event 2' }, 'the body is kept, to pass on by hand');
  await sleep(300);
  t.equal(smtp.rcpts, 1, 'one attempt, none after it');
  t.equal(smtp.received.length, 0);
  t.ok(lines.some((l) => l.level === 50 && l.msg === 'a queued mail was refused for good' && l.permanent === true), 'logged as an error');
  t.equal(await metric(registry, 'ledger_mail_total', { plugin: 'relay', result: 'failed' }), 1);
  t.equal(await metric(registry, 'ledger_mail_total', { plugin: 'relay', result: 'retried' }), 0);
  t.same((await mailer.queued({ status: 'failed' })).map((m) => m.id), [queued.id], 'by status');
  t.same(await mailer.queued({ status: 'pending' }), []);
  t.same(await mailer.queued({ tag: 't2' }), [], 'by tag');
});

t.test('a 4xx is retried on the schedule until the server takes the mail', async (t) => {
  const smtp = await startSmtp();
  t.teardown(() => smtp.close());
  smtp.reject = 451;
  const registry = new Registry();
  const mailer = started(t, { store: await memoryStore(t), smtpUrl: smtp.url, retryDelaysMs: [150, 150, 150, 150, 150, 150], metrics: { registry, plugin: 'relay' } });
  const queued = await mailer.queue(mail(3));
  await until(() => smtp.rcpts >= 2, 5000, 'two attempts');
  t.match(await record(mailer, queued.id), { status: 'pending', lastError: /451/ });
  smtp.reject = null;
  await smtp.next(0);
  const sent = await untilStatus(mailer, queued.id, 'sent');
  t.equal(sent.attempts, smtp.rcpts, 'one attempt per RCPT the server saw');
  t.ok(sent.attempts >= 3);
  t.equal(await metric(registry, 'ledger_mail_total', { plugin: 'relay', result: 'retried' }), sent.attempts - 1);
});

t.test('a 4xx on every attempt fails the mail after the last one, no sooner than the delays', async (t) => {
  const smtp = await startSmtp();
  t.teardown(() => smtp.close());
  smtp.reject = 451;
  const { log, lines } = recordingLogger();
  const mailer = started(t, { store: await memoryStore(t), smtpUrl: smtp.url, log, retryDelaysMs: [100, 200] });
  const at = Date.now();
  const queued = await mailer.queue(mail(4));
  const failed = await untilStatus(mailer, queued.id, 'failed');
  t.ok(Date.now() - at >= 300, 'the delays were waited');
  t.match(failed, { attempts: 3, lastError: /451/ }, 'one attempt, then one after each delay');
  t.equal(smtp.rcpts, 3);
  t.equal(lines.filter((l) => l.msg === 'a queued mail could not be sent; it will be tried again').length, 2);
  t.ok(lines.some((l) => l.level === 50 && l.msg === 'a queued mail failed on its last attempt'));
});

t.test('pending mails survive a restart of the mailer on the same on-disk store', async (t) => {
  const dir = await tempDir(t);
  const port = await freePortRange(1);
  const url = `smtp://127.0.0.1:${port}`;
  const db1 = await openDatabase(dir);
  const first = new Mailer({ store: db1.pluginStore('relay'), smtpUrl: url, from: FROM, log: recordingLogger().log, retryDelaysMs: [300, 300] });
  first.start();
  const a = await first.queue(mail(5), { tag: 't1' });
  const b = await first.queue(mail(6), { tag: 't1' });
  await until(async () => (await first.queued({ status: 'pending' })).every((m) => m.attempts === 1), 5000, 'a failed first attempt each');
  await first.stop();
  await db1.close();

  const smtp = await startSmtp({ port });
  t.teardown(() => smtp.close());
  await sleep(400);
  t.equal(smtp.received.length, 0, 'a stopped mailer sends nothing, though the retries are due');

  const db2 = await openDatabase(dir);
  t.teardown(() => db2.close());
  const { log, lines } = recordingLogger();
  const second = new Mailer({ store: db2.pluginStore('relay'), smtpUrl: url, from: FROM, log, retryDelaysMs: [300, 300] });
  t.same((await second.queued({ status: 'pending' })).map((m) => m.id).sort(), [a.id, b.id].sort(), 'both on disk, pending');
  second.start();
  t.teardown(() => second.stop());
  await untilStatus(second, a.id, 'sent');
  const sentB = await untilStatus(second, b.id, 'sent');
  t.equal(sentB.attempts, 2);
  t.same(smtp.received.map((m) => m.to[0]).sort(), ['ops5@example.org', 'ops6@example.org']);
  t.ok(lines.some((l) => l.msg === 'queued mails carry on from the store' && l.pending === 2));
});

t.test('a process killed with SIGKILL loses no mail queue() returned', async (t) => {
  const dir = await tempDir(t);
  const port = await freePortRange(1);
  const url = `smtp://127.0.0.1:${port}`;
  const loader = fileURLToPath(new URL('../../../../node_modules/@isaacs/ts-node-temp-fork-for-pr-2009/import.mjs', import.meta.url));
  const writer = fileURLToPath(new URL('./queue-writer.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', pathToFileURL(loader).href, writer, dir, url], {
    env: { ...process.env, NODE_OPTIONS: '', TS_NODE_TRANSPILE_ONLY: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const ids: string[] = [];
  let kill: NodeJS.Timeout | undefined;
  createInterface({ input: child.stdout }).on('line', (line) => {
    const m = /^queued (mail_[0-9a-f]{24})$/.exec(line);
    if (!m) return;
    ids.push(m[1]!);
    kill ??= setTimeout(() => child.kill('SIGKILL'), 50 + Math.floor(Math.random() * 200));
  });
  const guard = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on('close', (_code, sig) => resolve(sig)));
  clearTimeout(guard);
  t.equal(signal, 'SIGKILL', `killed, not ended: ${stderr}`);
  t.ok(ids.length > 0, `${ids.length} mails queued before the kill`);

  const smtp = await startSmtp({ port });
  t.teardown(() => smtp.close());
  const db = await openDatabase(dir);
  t.teardown(() => db.close());
  const mailer = started(t, { store: db.pluginStore('relay'), smtpUrl: url, retryDelaysMs: [50] });
  await until(async () => (await mailer.queued({ status: 'pending' })).length === 0, 10_000, 'every pending mail sent');
  const sent = new Set((await mailer.queued({ status: 'sent', limit: 1000 })).map((m) => m.id));
  t.same(ids.filter((id) => !sent.has(id)), [], 'every mail queue() returned was sent after the restart');
  const delivered = new Set(smtp.received.map((m) => /Message-ID: <(mail_[0-9a-f]{24})@ledger>/i.exec(m.raw)?.[1]));
  t.same(ids.filter((id) => !delivered.has(id)), [], 'and reached the server');
});

t.test('the cap: a full queue refuses new mails, logs and counts them; a sent mail frees its place', async (t) => {
  const port = await freePortRange(1);
  const registry = new Registry();
  const { log, lines } = recordingLogger();
  const mailer = started(t, { store: await memoryStore(t), smtpUrl: `smtp://127.0.0.1:${port}`, log, maxPending: 2, retryDelaysMs: Array(20).fill(200), metrics: { registry, plugin: 'relay' } });
  const results = await Promise.allSettled([1, 2, 3, 4].map((n) => mailer.queue(mail(n))));
  t.equal(results.filter((r) => r.status === 'fulfilled').length, 2, 'two of four queued at once: the cap holds under concurrency');
  for (const r of results.filter((r) => r.status === 'rejected')) t.match((r as PromiseRejectedResult).reason, { code: 'MAIL_QUEUE_FULL', kind: 'limit', data: { maxPending: 2 } });
  t.equal(await metric(registry, 'ledger_mail_total', { plugin: 'relay', result: 'refused' }), 2);
  t.equal(await metric(registry, 'ledger_mail_pending', { plugin: 'relay' }), 2);
  t.equal(lines.filter((l) => l.level === 40 && l.msg === 'the mail queue is full; a mail was refused').length, 2);
  t.equal((await mailer.queued()).length, 2, 'nothing of the refused ones is kept');

  const smtp = await startSmtp({ port });
  t.teardown(() => smtp.close());
  await until(async () => (await mailer.queued({ status: 'sent' })).length === 2, 5000, 'the two sent');
  t.match(await mailer.queue(mail(5)), { status: 'pending' }, 'room again');
  await smtp.next(2);
});

t.test('sent and failed records go after 7 days; pending ones stay', async (t) => {
  const store = await memoryStore(t);
  const smtp = await startSmtp();
  t.teardown(() => smtp.close());
  smtp.reject = 550;
  const now = Date.now();
  const first = started(t, { store, smtpUrl: smtp.url, retryDelaysMs: [] });
  const refused = await first.queue(mail(7));
  await untilStatus(first, refused.id, 'failed');
  smtp.reject = 451;
  const waiting = await first.queue(mail(8));
  await until(async () => (await record(first, waiting.id))?.status === 'failed', 5000, 'no delays: one attempt');
  smtp.reject = null;
  await first.stop();

  const port = await freePortRange(1);
  const later = started(t, { store, smtpUrl: `smtp://127.0.0.1:${port}`, now: () => now + 8 * 86_400_000, retryDelaysMs: [60_000] });
  const pending = await later.queue(mail(9));
  await until(async () => (await later.queued()).length === 1, 5000, 'the pruned records gone');
  t.same((await later.queued()).map((m) => m.id), [pending.id], 'the pending mail stays');
});

t.test('without SMTP, queue() stores into the outbox; after stop() it is refused', async (t) => {
  const registry = new Registry();
  const mailer = new Mailer({ store: await memoryStore(t), from: FROM, log: recordingLogger().log, metrics: { registry, plugin: 'kyc' } });
  mailer.start();
  const stored = await mailer.queue(mail(10), { tag: 't1' });
  t.match(stored, { via: 'outbox', status: 'stored' });
  t.same((await mailer.outbox()).map((m) => m.id), [stored.id]);
  t.same(await mailer.queued(), [], 'nothing in the send queue');
  t.equal(await metric(registry, 'ledger_mail_total', { plugin: 'kyc', result: 'stored' }), 1);
  await mailer.stop();
  await t.rejects(mailer.queue(mail(11)), { code: 'MAIL_NOT_STARTED' });
  await t.rejects(mailer.queued({ status: 'lost' as never }), { code: 'MAIL_INVALID' });
});
