import type { Mailer } from '../../../common/mail/index.js';
import { failing, notConfigured, ok, summarize, type HealthChecks } from '../../../common/health.js';
import type { IssuerDid, IssuerStatus } from '../../issuance/issuer-did.js';
import type { KycRouter } from '../router.js';

/**
 * `GET /health` and `GET /v1/health` (no auth): whether the service can do its job. `status` is
 * `degraded` only when a part that is set up fails (an issuer without funds, or whose DID cannot
 * be created); optional parts that are not configured (SMTP, a verification provider) are
 * `not_configured` checks and warnings, and leave it `ok`. The review desk is always there: an
 * organization's owners, admins and reviewers decide its live sessions, and the operator token
 * only adds the queue across organizations.
 */

export interface HealthDeps {
  router: KycRouter;
  issuer: Pick<IssuerDid, 'status'>;
  mailer: Pick<Mailer, 'via'>;
  /** whether plugins.kyc.operatorToken is set (the review queue across organizations) */
  reviewQueue: boolean;
  /** the verification provider's host, when one is configured */
  provider: string | undefined;
  version: string;
  now(): number;
}

export function issuerCheck(issuer: IssuerStatus) {
  if (!issuer.funded) return failing(`the issuer ${issuer.address} has no funds: send it tokens so it can create its DID and pay credential fees`);
  if (issuer.didActive) return ok(`the issuer DID ${issuer.did} is active`);
  if (issuer.lastError) return failing(`the issuer DID ${issuer.did} is not on chain: ${issuer.lastError}`);
  return ok(`the issuer DID ${issuer.did} is being created`);
}

export function kycChecks(d: Omit<HealthDeps, 'router' | 'issuer' | 'version' | 'now'>, issuer: IssuerStatus): HealthChecks {
  return {
    issuer: issuerCheck(issuer),
    mail: d.mailer.via === 'smtp' ? ok('mail goes out over SMTP') : notConfigured('no SMTP configured (plugins.kyc.email.smtpUrl): mail goes to the outbox at GET /v1/operator/mail'),
    reviewQueue: ok(
      `each organization's owners, admins and reviewers decide its live sessions on the dashboard's review desk${d.reviewQueue ? '; the operator token also reviews across organizations' : ' (no operator token, plugins.kyc.operatorToken: no queue across organizations)'}`,
    ),
    verificationProvider: d.provider
      ? ok(`the verification provider at ${d.provider} decides live sessions`)
      : notConfigured('no verification provider (plugins.kyc.verificationProvider): the review desk decides live sessions'),
  };
}

export function mountHealth(d: HealthDeps): void {
  const answer = async () => {
    const issuer = await d.issuer.status();
    const { status, checks, warnings } = summarize(kycChecks(d, issuer));
    return {
      status,
      service: 'kyc',
      version: d.version,
      issuer,
      mail: d.mailer.via,
      decisions: d.provider ? 'provider' : 'review-queue',
      checks,
      warnings,
      timestamp: new Date(d.now()).toISOString(),
    };
  };
  d.router.add('GET', '/health', 'none', answer);
  d.router.add('GET', '/v1/health', 'none', answer);
}
