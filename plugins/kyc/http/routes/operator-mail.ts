import { onlyQuery, queryInt } from '../../../common/http/validate.js';
import type { Mailer } from '../../../common/mail/index.js';
import type { KycRouter } from '../router.js';

/**
 * `GET /v1/operator/mail` (operator token): the mail outbox, newest first, when no SMTP server is
 * configured. Query `limit` (default 20, at most 100). Answers `{mails[], via}`; `via` says where
 * mail goes now (`smtp`: the outbox holds only what was written before SMTP was configured).
 */
export function mountOperatorMail(router: KycRouter, deps: { mailer: Mailer }): void {
  router.add('GET', '/v1/operator/mail', 'operator', async (req) => {
    onlyQuery(req.query, ['limit']);
    const limit = queryInt(req.query, 'limit', 20, 1, 100);
    return { mails: await deps.mailer.outbox(limit), via: deps.mailer.via };
  });
}
