import { invalid } from '../../node/errors.js';
import type { RequestContext } from '../../node/http/server.js';
import type { PluginContext } from '../../node/plugins/types.js';
import { paging } from './api.js';
import { didParam } from './identity-api.js';
import { getJson, getNumber, listNewest, scan } from './store.js';
import { VERIFICATION_STATUSES, verificationRow, type VerificationRow, type VerificationStatus } from './verification-index.js';

/**
 * /api/v1/verifications: verification requests and their outcomes, from the explorer's index
 * (verification-index.ts). The list filters by `status`, `subject` and `requester` (DIDs); one
 * filter reads its own index and stored total, several read the DID's index and count the matches.
 * The detail adds, read live from the chain view, the required claims with their constraints, the
 * committee's size and threshold, and the response (ledger_getVerificationResponse's answer): claim
 * outcomes, hashes and signatures, never a presentation.
 */

/** seed 002 bounds a request id to 256 characters; percent-encoded, a path segment may be three times longer */
const MAX_REQUEST_ID = 256;

function statusParam(text: string | null): VerificationStatus | null {
  if (text === null) return null;
  if (!(VERIFICATION_STATUSES as readonly string[]).includes(text)) throw invalid('BAD_QUERY', `status must be one of ${VERIFICATION_STATUSES.join(', ')}`);
  return text as VerificationStatus;
}

export function mountVerificationApi(ctx: PluginContext): void {
  const store = ctx.store;
  const rows = async (ids: string[]) => (await Promise.all(ids.map((id) => getJson<VerificationRow>(store, `ver:${id}`)))).filter((v) => v !== undefined).map(verificationRow);

  /** One DID's requests, newest first, kept by `keep`; `total` counts the matches. */
  const filtered = async (r: RequestContext, prefix: string, keep: (row: VerificationRow) => boolean) => {
    const p = paging(r.query);
    const data: VerificationRow[] = [];
    let total = 0;
    for await (const [, id] of scan(store, prefix, `${prefix}\xff`, true)) {
      const row = await getJson<VerificationRow>(store, `ver:${id}`);
      if (!row || !keep(row)) continue;
      if (total++ >= p.offset && data.length < p.limit) data.push(verificationRow(row));
    }
    r.json(200, { data, total, page: p.page, limit: p.limit });
  };

  ctx.http.route('GET', '/api/v1/verifications', async (r) => {
    const status = statusParam(r.query.get('status'));
    const subjectText = r.query.get('subject');
    const requesterText = r.query.get('requester');
    const subject = subjectText === null ? null : didParam(subjectText, ctx.network);
    const requester = requesterText === null ? null : didParam(requesterText, ctx.network);
    const given = [status, subject, requester].filter((v) => v !== null).length;
    if (given > 1) {
      // with two filters one is a DID: its index holds few rows
      const prefix = subject !== null ? `versubject:${subject}:` : `verrequester:${requester}:`;
      return filtered(r, prefix, (v) => (status === null || v.status === status) && (subject === null || v.subject_did === subject) && (requester === null || v.requester_did === requester));
    }
    const [prefix, countKey] =
      subject !== null ? [`versubject:${subject}:`, `versubject:${subject}`]
      : requester !== null ? [`verrequester:${requester}:`, `verrequester:${requester}`]
      : status !== null ? [`verstatus:${status}:`, `verstatus:${status}`]
      : ['verseq:', 'verifications'];
    const p = paging(r.query);
    const data = await rows(await listNewest(store, prefix, p.offset, p.limit));
    r.json(200, { data, total: await getNumber(store, `count:${countKey}`), page: p.page, limit: p.limit });
  });

  ctx.http.route('GET', /^\/api\/v1\/verifications\/([^/]{1,800})$/, async (r) => {
    const id = r.params[0]!;
    if (id.length > MAX_REQUEST_ID) throw invalid('BAD_REQUEST_ID', `a request id is at most ${MAX_REQUEST_ID} characters`);
    const row = await getJson<VerificationRow>(store, `ver:${id}`);
    if (!row) return r.problem(404, `no verification request ${JSON.stringify(id.slice(0, 64))} is indexed`);
    const [live, response] = await Promise.all([ctx.chain.verificationRequest(id).catch(() => null), ctx.chain.verificationResponse(id).catch(() => null)]);
    r.json(200, {
      ...verificationRow(row),
      required_claims: live?.request.requiredClaims ?? null,
      live: live && { status: live.status, answers: live.answers, threshold: live.threshold, committee_size: live.committee_size, deadline_height: live.deadline_height },
      response,
    });
  });
}

/** The counts of /stats/network: requests, final ones by outcome, expired. */
export async function verificationStats(ctx: PluginContext) {
  const n = (name: string) => getNumber(ctx.store, `count:${name}`);
  const [total, pending, final, verified, expired] = await Promise.all([n('verifications'), n('verstatus:pending'), n('verstatus:final'), n('verified'), n('verstatus:expired')]);
  return { total_requests: total, pending, final_verified: verified, final_not_verified: final - verified, expired };
}
