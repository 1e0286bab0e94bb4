import t from 'tap';
import { Registry } from 'prom-client';
import { KycClient } from '../../../bench/lib/kyc/client.js';
import { testJpeg } from '../../../bench/lib/kyc/images.js';
import { createLogger } from '../../../node/logging.js';
import { HeadSignal } from '../../../node/plugins/block-stream.js';
import { PluginHost } from '../../../node/plugins/host.js';
import { openDatabase } from '../../../node/state/db.js';
import { HttpProblem, validation } from '../../../plugins/common/http/problems.js';
import { ACCOUNT_ERRORS } from '../../../plugins/kyc/accounts/errors.js';
import { createKyc } from '../../../plugins/kyc/index.js';
import { KycMetrics } from '../../../plugins/kyc/metrics.js';
import type { CredentialIssuance, EventSink, IssuedCredential, SessionOutcomes } from '../../../plugins/kyc/services.js';
import type { KycEvent, VerificationSession } from '../../../plugins/kyc/types.js';
import type { Caller, CreateInput } from '../../../plugins/kyc/verification/sessions.js';
import { CHAIN, setup } from '../../rpc/ledger/harness.js';

/**
 * The KYC metrics on a real prom-client Registry: each wrapper around a small in-test part, then
 * the whole plugin through the real plugin host (started twice on one registry, as a restart in
 * one process does), read from the registry's text exposition, which is what `GET /metrics` on
 * the node's RPC port serves.
 */

/** the value of one sample in the text exposition, or undefined when it is not there */
async function sample(registry: Registry, series: string): Promise<number | undefined> {
  const text = await registry.metrics();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const CALLER: Caller = { organizationId: 'org_a', apiKey: { id: 'key_a', mode: 'live' } };
const INPUT: CreateInput = { level: 1, sandbox: false, metadata: {} };

const credential = (n: number): IssuedCredential => ({
  credentialId: `urn:ledger:credential:${n}`,
  type: ['VerifiableCredential', 'KYCCredential'],
  issuer: 'did:ledger:testnet:issuer',
  subjectDid: 'did:ledger:testnet:subject',
  issuanceDate: '2025-01-01T00:00:00.000Z',
  expirationDate: '2026-01-01T00:00:00.000Z',
  txHash: `0x${'ab'.repeat(32)}`,
  credentialOfferUri: 'openid-credential-offer://?credential_offer_uri=x',
});
const session = (id: string, decidedAt?: number): VerificationSession => ({ id, ...(decidedAt === undefined ? {} : { decision: { outcome: 'pass', by: 'operator', at: new Date(decidedAt).toISOString() } }) }) as unknown as VerificationSession;

t.test('registered once per registry, every label value at 0 from the start', async (t) => {
  const registry = new Registry();
  const a = new KycMetrics(registry);
  const b = new KycMetrics(registry);
  t.equal(b.sessionsCreated, a.sessionsCreated, 'a second start reuses the counters');
  t.equal(b.credentialIssue, a.credentialIssue, 'and the histogram');
  t.equal(await sample(registry, 'ledger_kyc_sessions_created_total{mode="live"}'), 0);
  t.equal(await sample(registry, 'ledger_kyc_sessions_created_total{mode="sandbox"}'), 0);
  for (const status of ['completed', 'failed', 'expired']) t.equal(await sample(registry, `ledger_kyc_session_outcomes_total{status="${status}"}`), 0, status);
  for (const type of ['verification.completed', 'verification.failed', 'verification.expired', 'credential.issued', 'credential.revoked']) t.equal(await sample(registry, `ledger_kyc_events_total{type="${type}"}`), 0, type);
  for (const reason of ['credentials', 'totp', 'throttled']) t.equal(await sample(registry, `ledger_kyc_login_failures_total{reason="${reason}"}`), 0, reason);
  t.equal(await sample(registry, 'ledger_kyc_credential_issue_seconds_count'), 0);
});

t.test('the event sink counts events by type and final statuses', async (t) => {
  const registry = new Registry();
  const m = new KycMetrics(registry);
  const seen: KycEvent[] = [];
  let failing = false;
  const sink: EventSink = {
    async emit(_org, type) {
      if (failing) throw new Error('store down');
      seen.push(type);
    },
  };
  const events = m.countEvents(sink);
  for (const type of ['verification.completed', 'credential.issued', 'verification.failed', 'verification.failed', 'verification.expired', 'credential.revoked'] as const) await events.emit('org_a', type, { verificationId: 'ver_1' });
  t.same(seen, ['verification.completed', 'credential.issued', 'verification.failed', 'verification.failed', 'verification.expired', 'credential.revoked'], 'every event reaches the sink');
  t.equal(await sample(registry, 'ledger_kyc_events_total{type="verification.failed"}'), 2);
  t.equal(await sample(registry, 'ledger_kyc_events_total{type="credential.issued"}'), 1);
  t.equal(await sample(registry, 'ledger_kyc_events_total{type="credential.revoked"}'), 1);
  t.equal(await sample(registry, 'ledger_kyc_session_outcomes_total{status="completed"}'), 1);
  t.equal(await sample(registry, 'ledger_kyc_session_outcomes_total{status="failed"}'), 2);
  t.equal(await sample(registry, 'ledger_kyc_session_outcomes_total{status="expired"}'), 1);

  failing = true;
  await t.rejects(events.emit('org_a', 'verification.expired', {}), /store down/, 'the sink error reaches the caller');
  t.equal(await sample(registry, 'ledger_kyc_events_total{type="verification.expired"}'), 1, 'an event not recorded is not counted');
  t.equal(await sample(registry, 'ledger_kyc_session_outcomes_total{status="expired"}'), 2, 'the session did expire: counted');
});

t.test('session creation counted by mode, once stored', async (t) => {
  const registry = new Registry();
  const m = new KycMetrics(registry);
  class Sessions {
    readonly created: CreateInput[] = [];
    private refuse = false;
    async create(_caller: Caller, input: CreateInput): Promise<{ session: Record<string, unknown>; sessionUrl: string }> {
      if (this.refuse) throw new HttpProblem('forbidden', 'no');
      this.created.push(input);
      return { session: { id: `ver_${this.created.length}` }, sessionUrl: 'https://kyc.test/v/s/x' };
    }
    count(): number {
      return this.created.length;
    }
    refuseNext(): void {
      this.refuse = true;
    }
  }
  const inner = new Sessions();
  const wrapped = m.countCreated(inner);
  t.same(await wrapped.create(CALLER, INPUT), { session: { id: 'ver_1' }, sessionUrl: 'https://kyc.test/v/s/x' }, 'the answer passes through');
  await wrapped.create(CALLER, { ...INPUT, sandbox: true });
  await wrapped.create(CALLER, { ...INPUT, sandbox: true, sandboxOutcome: 'fail' });
  t.equal(wrapped.count(), 3, 'other methods run on the real object');
  t.equal(wrapped.created, inner.created, 'and properties are its own');
  wrapped.refuseNext();
  await t.rejects(wrapped.create(CALLER, INPUT));
  t.equal(await sample(registry, 'ledger_kyc_sessions_created_total{mode="live"}'), 1, 'a refused creation is not counted');
  t.equal(await sample(registry, 'ledger_kyc_sessions_created_total{mode="sandbox"}'), 2);
});

t.test('refused logins counted by reason', async (t) => {
  const registry = new Registry();
  const m = new KycMetrics(registry);
  const answers: Array<() => unknown> = [
    () => ({ token: 'jwt' }),
    () => ({ totpRequired: true }),
    () => {
      throw new HttpProblem('unauthorized', 'wrong email or password', { code: ACCOUNT_ERRORS.INVALID_CREDENTIALS });
    },
    () => {
      throw new HttpProblem('unauthorized', 'wrong code', { code: ACCOUNT_ERRORS.TOTP_INVALID });
    },
    () => {
      throw new HttpProblem('unauthorized', 'used code', { code: ACCOUNT_ERRORS.TOTP_REPLAYED });
    },
    () => {
      throw new HttpProblem('rate-limited', 'slow down', { code: ACCOUNT_ERRORS.LOGIN_THROTTLED });
    },
    () => {
      throw validation('bad email', 'email');
    },
    () => {
      throw new Error('database closed');
    },
  ];
  const accounts = {
    async login(_input: { email: string; password: string; totpCode?: string }, _address: string): Promise<unknown> {
      return answers.shift()!();
    },
  };
  const wrapped = m.countLoginFailures(accounts);
  const input = { email: 'a@example.org', password: 'pw' };
  t.same(await wrapped.login(input, '127.0.0.1'), { token: 'jwt' });
  t.same(await wrapped.login(input, '127.0.0.1'), { totpRequired: true }, 'asking for the TOTP code is not a failure');
  for (let i = 0; i < 6; i++) await t.rejects(wrapped.login(input, '127.0.0.1'), 'the error reaches the route');
  t.equal(await sample(registry, 'ledger_kyc_login_failures_total{reason="credentials"}'), 1);
  t.equal(await sample(registry, 'ledger_kyc_login_failures_total{reason="totp"}'), 2);
  t.equal(await sample(registry, 'ledger_kyc_login_failures_total{reason="throttled"}'), 1);
});

t.test('credential issue time: from the pass decision, else the request, to the report', async (t) => {
  const registry = new Registry();
  const m = new KycMetrics(registry);
  const clock = { now: 1_000_000 };
  const timer = m.issuanceTimer(() => clock.now);
  const requested: string[] = [];
  const reported: string[] = [];
  const issuance = timer.issuance({
    async requestCredential(s) {
      if (s.id === 'ver_bad') throw new Error('no subjectDid');
      requested.push(s.id);
    },
  } satisfies CredentialIssuance);
  let refuseReport = true;
  const outcomes = timer.outcomes({
    async credentialIssued(id) {
      if (id === 'ver_late' && refuseReport) throw new Error('refused');
      reported.push(id);
    },
  } satisfies SessionOutcomes);

  await issuance.requestCredential(session('ver_decided', clock.now - 4000));
  await issuance.requestCredential(session('ver_plain'));
  await t.rejects(issuance.requestCredential(session('ver_bad')));
  clock.now += 1000;
  await issuance.requestCredential(session('ver_plain')); // asked again (a restart): keeps the first time
  await issuance.requestCredential(session('ver_late'));
  clock.now += 2000;
  await outcomes.credentialIssued('ver_decided', credential(1));
  await outcomes.credentialIssued('ver_decided', credential(1)); // reported twice: observed once
  await outcomes.credentialIssued('ver_plain', credential(2));
  await t.rejects(outcomes.credentialIssued('ver_late', credential(3)));
  await outcomes.credentialIssued('ver_bad', credential(4)); // never requested here: not timed
  t.same(requested, ['ver_decided', 'ver_plain', 'ver_plain', 'ver_late']);
  t.same(reported, ['ver_decided', 'ver_decided', 'ver_plain', 'ver_bad']);
  t.equal(await sample(registry, 'ledger_kyc_credential_issue_seconds_count'), 2);
  t.equal(await sample(registry, 'ledger_kyc_credential_issue_seconds_sum'), 7 + 3, 'decided 7 s before the report; the plain one requested 3 s before');
  t.equal(await sample(registry, 'ledger_kyc_credential_issue_seconds_bucket{le="5"}'), 1);
  t.equal(await sample(registry, 'ledger_kyc_credential_issue_seconds_bucket{le="10"}'), 2);

  refuseReport = false;
  clock.now += 1000;
  await outcomes.credentialIssued('ver_late', credential(3));
  t.equal(await sample(registry, 'ledger_kyc_credential_issue_seconds_count'), 3, 'a report that failed is timed when it succeeds');
  t.equal(await sample(registry, 'ledger_kyc_credential_issue_seconds_sum'), 7 + 3 + 3);
});

t.test('gauges read at scrape time, the issuer status cached', async (t) => {
  const registry = new Registry();
  const m = new KycMetrics(registry);
  const clock = { now: 0 };
  let reads = 0;
  let pending = 3;
  let status: { balance: string; funded: boolean; didActive: boolean } | Error = { balance: '12.5', funded: true, didActive: false };
  const sources = {
    pendingJobs: async () => pending,
    issuerStatus: async () => {
      reads++;
      if (status instanceof Error) throw status;
      return status;
    },
  };
  const stop = m.collect(sources, { cacheMs: 5000, now: () => clock.now });
  t.equal(await sample(registry, 'ledger_kyc_issuance_pending'), 3);
  t.equal(await sample(registry, 'ledger_kyc_issuer_balance_tokens'), 12.5);
  t.equal(await sample(registry, 'ledger_kyc_issuer_ready'), 0, 'funded but no DID yet');
  t.equal(reads, 1, 'one status read for both gauges');

  status = { balance: '11', funded: true, didActive: true };
  pending = 0;
  clock.now = 4999;
  await registry.metrics();
  t.equal(reads, 1, 'scrapes within the period read no status');
  t.equal(await sample(registry, 'ledger_kyc_issuance_pending'), 0, 'pending jobs are read at each scrape');
  clock.now = 5000;
  t.equal(await sample(registry, 'ledger_kyc_issuer_ready'), 1);
  t.equal(await sample(registry, 'ledger_kyc_issuer_balance_tokens'), 11);
  t.equal(reads, 2);

  status = new Error('chain unavailable');
  clock.now = 10_000;
  t.equal(await sample(registry, 'ledger_kyc_issuer_ready'), 0, 'a failed read: not ready, and the scrape still answers');
  t.equal(await sample(registry, 'ledger_kyc_issuer_balance_tokens'), 11, 'the balance as last read');

  stop();
  t.equal(await sample(registry, 'ledger_kyc_issuer_ready'), undefined, 'stopped: the gauges are gone');
  const again = m.collect({ pendingJobs: async () => 7, issuerStatus: async () => ({ balance: '1', funded: true, didActive: true }) });
  t.equal(await sample(registry, 'ledger_kyc_issuance_pending'), 7, 'a new start collects from its own parts');
  t.equal(await sample(registry, 'ledger_kyc_issuer_ready'), 1);
  again();
});

t.test('the plugin: wired on the node registry, restarted in one process', async (t) => {
  const node = await setup(t, { blocks: true });
  const db = await openDatabase('memory');
  t.teardown(() => db.close());
  const metrics = new Registry();
  const host = new PluginHost({ chainId: CHAIN, network: 'testnet', store: node.store, db, mempool: node.mempool, head: new HeadSignal(), metrics, log: createLogger({ level: 'silent' }) });
  t.teardown(() => host.stop());
  const start = async () => {
    const [state] = await host.start([createKyc()], { kyc: { enabled: true, host: '127.0.0.1', port: 0 } });
    if (state?.state !== 'running') throw new Error(`kyc did not start: ${JSON.stringify(state)}`);
    return new KycClient(state.url);
  };

  let api = await start();
  await api.register('metrics@example.org', 'correct horse battery staple', 'Metrics Owner');
  await api.call('POST', '/v1/auth/login', { body: { email: 'metrics@example.org', password: 'wrong password' }, expect: 401 });
  await api.createKey('sandbox');
  const { session } = await api.createSession({ level: 1, sandbox: true, sandboxOutcome: 'fail' });
  await api.uploadDocument(session.id, testJpeg(), { type: 'passport', side: 'front', final: true });
  t.equal((await api.getSession(session.id)).session.status, 'failed');
  t.equal(await sample(metrics, 'ledger_kyc_login_failures_total{reason="credentials"}'), 1);
  t.equal(await sample(metrics, 'ledger_kyc_sessions_created_total{mode="sandbox"}'), 1);
  t.equal(await sample(metrics, 'ledger_kyc_sessions_created_total{mode="live"}'), 0);
  t.equal(await sample(metrics, 'ledger_kyc_session_outcomes_total{status="failed"}'), 1);
  t.equal(await sample(metrics, 'ledger_kyc_events_total{type="verification.failed"}'), 1);
  t.equal(await sample(metrics, 'ledger_kyc_issuance_pending'), 0);
  t.equal(await sample(metrics, 'ledger_kyc_issuer_ready'), 0, 'a new issuer without funds is not ready');
  t.equal(await sample(metrics, 'ledger_kyc_issuer_balance_tokens'), 0);

  await host.stop();
  t.equal(await sample(metrics, 'ledger_kyc_issuer_ready'), undefined, 'stopped: no gauges reading stopped parts');
  api = await start();
  t.equal(await sample(metrics, 'ledger_kyc_sessions_created_total{mode="sandbox"}'), 1, 'restarted without a duplicate registration; counters kept');
  t.equal(await sample(metrics, 'ledger_kyc_issuer_ready'), 0, 'the gauges are back');
  const text = await metrics.metrics();
  t.equal(text.match(/^# TYPE ledger_kyc_issuer_ready gauge$/gm)?.length, 1, 'once');
  t.equal(text.match(/^# TYPE ledger_kyc_credential_issue_seconds histogram$/gm)?.length, 1);
});
