import t, { type Test } from 'tap';
import { HttpServer } from '../../../../../node/http/server.js';
import { createLogger } from '../../../../../node/logging.js';
import type { IssuerStatus } from '../../../../../plugins/kyc/issuance/issuer-did.js';
import { createKycRouter } from '../../../../../plugins/kyc/http/router.js';
import { mountHealth, type HealthDeps } from '../../../../../plugins/kyc/http/routes/health.js';
import { httpCall } from '../../../common/http-call.js';
import { TestAuthenticator } from '../../verification/harness.js';

/**
 * GET /health and /v1/health: ok on a fresh node with the defaults (no SMTP, no operator token,
 * no verification provider: warnings and not_configured checks), degraded only when the issuer,
 * which is always on, cannot work.
 */

const ACTIVE: IssuerStatus = { did: 'did:ledger:testnet:Iss', address: 'Iss', balance: '10', didActive: true, funded: true, pendingJobs: 0 };

async function serve(t: Test, deps: Omit<HealthDeps, 'router' | 'issuer' | 'version' | 'now'>) {
  let issuer = ACTIVE;
  const http = new HttpServer({ host: '127.0.0.1', port: 0, maxBodyBytes: 1024 });
  const router = createKycRouter(http, new TestAuthenticator(), { errorsBase: 'https://errors.test/kyc', log: createLogger({ level: 'silent' }) });
  mountHealth({ router, issuer: { status: async () => issuer }, version: '1.2.3', now: () => Date.parse('2025-06-01T00:00:00Z'), ...deps });
  const { port } = await http.listen();
  t.teardown(() => http.close());
  return {
    get: async (path = '/v1/health') => httpCall(`http://127.0.0.1:${port}`, 'GET', path),
    setIssuer: (s: IssuerStatus) => (issuer = s),
  };
}

t.test('the defaults are healthy: what is not configured is a warning', async (t) => {
  const h = await serve(t, { mailer: { via: 'outbox' }, reviewQueue: false, provider: undefined });
  for (const path of ['/health', '/v1/health']) {
    const res = await h.get(path);
    t.equal(res.status, 200);
    t.match(res.body, { status: 'ok', service: 'kyc', version: '1.2.3', issuer: ACTIVE, mail: 'outbox', decisions: 'review-queue', timestamp: '2025-06-01T00:00:00.000Z' });
  }
  const { body } = await h.get();
  t.same(Object.keys(body.checks), ['issuer', 'mail', 'reviewQueue', 'verificationProvider']);
  t.match(body.checks, {
    issuer: { status: 'ok', detail: /did:ledger:testnet:Iss is active/ },
    mail: { status: 'not_configured', detail: /plugins\.kyc\.email\.smtpUrl/ },
    reviewQueue: { status: 'ok', detail: /owners, admins and reviewers decide its live sessions on the dashboard's review desk \(no operator token, plugins\.kyc\.operatorToken/ },
    verificationProvider: { status: 'not_configured', detail: /plugins\.kyc\.verificationProvider\): the review desk decides live sessions/ },
  });
  t.same(body.warnings, [body.checks.mail.detail, body.checks.verificationProvider.detail], 'a live session can always be decided: the review desk is no warning');

  h.setIssuer({ ...ACTIVE, didActive: false });
  t.match((await h.get()).body, { status: 'ok', checks: { issuer: { status: 'ok', detail: /is being created/ } } }, 'an issuer DID on its way is not a fault');
});

t.test('degraded when the issuer cannot work', async (t) => {
  const h = await serve(t, { mailer: { via: 'smtp' }, reviewQueue: true, provider: 'idv.example' });
  const all = (await h.get()).body;
  t.match(all, { status: 'ok', decisions: 'provider', warnings: [] });
  t.match(all.checks, { mail: { status: 'ok' }, reviewQueue: { status: 'ok', detail: /the operator token also reviews across organizations/ }, verificationProvider: { status: 'ok', detail: /idv\.example/ } });

  h.setIssuer({ ...ACTIVE, didActive: false, funded: false, balance: '0' });
  const poor = (await h.get()).body;
  t.match(poor, { status: 'degraded', checks: { issuer: { status: 'failing', detail: /the issuer Iss has no funds/ } } });
  t.same(poor.warnings, [poor.checks.issuer.detail]);
  h.setIssuer({ ...ACTIVE, didActive: false, lastError: 'DidCreate 0xab failed: invalid_nonce' });
  t.match((await h.get()).body, { status: 'degraded', checks: { issuer: { status: 'failing', detail: /not on chain: DidCreate 0xab failed: invalid_nonce/ } } });
});
