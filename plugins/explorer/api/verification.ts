import { invalid } from '../../../node/errors.js';
import type { PluginContext } from '../../../node/plugins/types.js';
import { VERIFICATION_STATUSES, type VerificationStatus } from '../rows.js';
import type { ExplorerReader } from '../store/types.js';
import { didParam, paging } from './params.js';

/**
 * /api/v1/verifications: verification requests and their outcomes, from the explorer's index.
 * The list filters by `status`, `subject` and `requester` (DIDs), in any combination. The detail
 * adds, read live from the chain view, the required claims with their constraints, the
 * committee's size and threshold, and the response (ledger_getVerificationResponse's answer):
 * claim outcomes, hashes and signatures, never a presentation.
 */

/** seed 002 bounds a request id to 256 characters; percent-encoded, a path segment may be three times longer */
const MAX_REQUEST_ID = 256;

function statusParam(text: string | null): VerificationStatus | undefined {
  if (text === null) return undefined;
  if (!(VERIFICATION_STATUSES as readonly string[]).includes(text)) throw invalid('BAD_QUERY', `status must be one of ${VERIFICATION_STATUSES.join(', ')}`);
  return text as VerificationStatus;
}

export function mountVerificationApi(ctx: PluginContext, index: ExplorerReader): void {
  ctx.http.route('GET', '/api/v1/verifications', async (r) => {
    const status = statusParam(r.query.get('status'));
    const subject = r.query.get('subject');
    const requester = r.query.get('requester');
    const p = paging(r.query);
    const { data, total } = await index.verifications(
      {
        ...(status !== undefined ? { status } : {}),
        ...(subject !== null ? { subject: didParam(subject, ctx.network) } : {}),
        ...(requester !== null ? { requester: didParam(requester, ctx.network) } : {}),
      },
      p,
    );
    r.json(200, { data, total, page: p.page, limit: p.limit });
  });

  ctx.http.route('GET', /^\/api\/v1\/verifications\/([^/]{1,800})$/, async (r) => {
    const id = r.params[0]!;
    if (id.length > MAX_REQUEST_ID) throw invalid('BAD_REQUEST_ID', `a request id is at most ${MAX_REQUEST_ID} characters`);
    const row = await index.verification(id);
    if (!row) return r.problem(404, `no verification request ${JSON.stringify(id.slice(0, 64))} is indexed`);
    const [live, response] = await Promise.all([ctx.chain.verificationRequest(id).catch(() => null), ctx.chain.verificationResponse(id).catch(() => null)]);
    r.json(200, {
      ...row,
      required_claims: live?.request.requiredClaims ?? null,
      live: live && { status: live.status, answers: live.answers, threshold: live.threshold, committee_size: live.committee_size, deadline_height: live.deadline_height },
      response,
    });
  });
}
