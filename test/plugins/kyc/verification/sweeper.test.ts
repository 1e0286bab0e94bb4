import t from 'tap';
import { createLogger } from '../../../../node/logging.js';
import { Sweeper } from '../../../../plugins/kyc/verification/sweeper.js';
import { EvidenceRetention } from '../../../../plugins/kyc/verification/retention.js';
import { finished, jpegImage, setup } from './harness.js';

t.test('the sweeper expires due sessions on its interval and stops cleanly', async (t) => {
  const { sessions, clock, events } = await setup(t, { config: { sweepIntervalMs: 100 } });
  const caller = { organizationId: 'org_a', apiKey: { id: 'k', mode: 'live' as const } };
  const a = (await sessions.create(caller, { level: 1, sandbox: false, metadata: {} })).session;
  const b = (await sessions.create(caller, { level: 1, sandbox: false, metadata: {} })).session;
  await sessions.uploadDocument({ token: b.sessionToken as string }, { type: 'passport', side: 'front', final: true, file: jpegImage(300, 300) });
  const sweeper = new Sweeper(sessions, { intervalMs: 100, now: () => clock.now, log: createLogger({ level: 'silent' }) });
  sweeper.start();
  t.teardown(() => sweeper.stop());
  await new Promise((r) => setTimeout(r, 250));
  t.equal((await sessions.get('org_a', a.id as string)).status, 'pending', 'nothing due yet');
  clock.now += 3600_000;
  const deadline = Date.now() + 3000;
  while ((await sessions.get('org_a', a.id as string)).status !== 'expired' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  t.equal((await sessions.get('org_a', a.id as string)).status, 'expired');
  t.equal((await sessions.get('org_a', b.id as string)).status, 'processing', 'processing has its own, later deadline');
  await sweeper.stop();
  clock.now += 7200_000;
  await new Promise((r) => setTimeout(r, 250));
  t.equal((await sessions.get('org_a', b.id as string)).status, 'processing', 'a stopped sweeper does nothing');
  await sweeper.sweep();
  t.equal((await sessions.get('org_a', b.id as string)).status, 'expired', 'one explicit pass');
  t.same(events.types(), ['verification.expired', 'verification.expired']);
});

t.test('a failing pass is logged and the next one runs', async (t) => {
  let calls = 0;
  const warnings: unknown[] = [];
  const sweeper = new Sweeper(
    { expireDue: async () => (++calls === 1 ? Promise.reject(new Error('disk')) : 0) },
    { intervalMs: 100, now: () => 0, log: { info: () => {}, warn: (o: unknown) => warnings.push(o) } as never },
  );
  await sweeper.sweep();
  await sweeper.sweep();
  t.equal(calls, 2);
  t.equal(warnings.length, 1);
  // concurrent calls join one pass
  await Promise.all([sweeper.sweep(), sweeper.sweep()]);
  t.equal(calls, 3);
  await sweeper.stop();
});

t.test('after expiring, a pass deletes the images of final sessions past the retention', async (t) => {
  const h = await setup(t, { config: { evidenceRetentionDays: 1 } });
  const id = await finished(h);
  const retention = new EvidenceRetention(h.sessions.store, { retentionDays: h.base.config.evidenceRetentionDays });
  const sweeper = new Sweeper(h.sessions, { intervalMs: 60_000, now: () => h.clock.now, log: createLogger({ level: 'silent' }) }, retention);
  t.teardown(() => sweeper.stop());
  await sweeper.sweep();
  t.equal((await h.sessions.store.get(id))!.evidenceDeletedAt, undefined);
  h.clock.now += 86_400_000;
  await sweeper.sweep();
  t.equal((await h.sessions.store.get(id))!.evidenceDeletedAt, new Date(h.clock.now).toISOString());
});
