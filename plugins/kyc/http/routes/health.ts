import type { Mailer } from '../../../common/mail/index.js';
import type { IssuerDid } from '../../issuance/issuer-did.js';
import type { KycRouter } from '../router.js';

/**
 * `GET /health` and `GET /v1/health` (no auth): whether the service can do its job, and what an
 * operator must fix when it cannot. `status` is `ok`, or `degraded` with `warnings` saying why:
 * an issuer without funds or without its DID, mail going to the outbox, live sessions that
 * nobody can decide.
 */

export interface HealthDeps {
  router: KycRouter;
  issuer: Pick<IssuerDid, 'status'>;
  mailer: Pick<Mailer, 'via'>;
  /** who decides live sessions */
  decisions: 'provider' | 'review-queue' | 'none';
  version: string;
  now(): number;
}

export function mountHealth(d: HealthDeps): void {
  const answer = async () => {
    const issuer = await d.issuer.status();
    const warnings: string[] = [];
    if (!issuer.funded) warnings.push(`the issuer ${issuer.address} has no funds: send it tokens so it can create its DID and pay credential fees`);
    else if (!issuer.didActive) warnings.push(`the issuer DID ${issuer.did} is not on chain yet`);
    if (d.mailer.via === 'outbox') warnings.push('no SMTP configured (plugins.kyc.email.smtpUrl): mail goes to the outbox at GET /v1/operator/mail');
    if (d.decisions === 'none') warnings.push('live sessions cannot be decided: set plugins.kyc.operatorToken (review queue) or plugins.kyc.verificationProvider');
    return {
      status: warnings.length === 0 ? 'ok' : 'degraded',
      service: 'kyc',
      version: d.version,
      issuer,
      mail: d.mailer.via,
      decisions: d.decisions,
      warnings,
      timestamp: new Date(d.now()).toISOString(),
    };
  };
  d.router.add('GET', '/health', 'none', answer);
  d.router.add('GET', '/v1/health', 'none', answer);
}
