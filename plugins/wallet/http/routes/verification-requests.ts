import { validation } from '../../../common/http/problems.js';
import { onlyQuery, queryEnum, queryInt, queryString } from '../../../common/http/validate.js';
import { DEFAULT_LIMIT, MAX_LIMIT, MAX_REQUEST_ID, REQUEST_STATUSES, type VerificationRequests } from '../../verification/requests.js';
import type { WalletRouter } from '../router.js';
import { refuseSecretParams } from '../secrets.js';

/**
 * The signed-in user's verification requests (issue 27): what relying parties ask of the user's
 * DID, read from committed state (verification/requests.ts).
 *   GET /v1/verification-requests              `?status=pending|final|expired|all` (default
 *                                              pending), `limit`, `cursor`: `{items, nextCursor}`
 *   GET /v1/verification-requests/<requestId>  one of them; 404 for a request about another DID
 * Presenting is the device's: the wallet never holds the key that signs a presentation.
 */

export function mountVerificationRequests(router: WalletRouter, d: { requests: VerificationRequests }): void {
  router.add('GET', '/v1/verification-requests', 'session', async (req) => {
    refuseSecretParams(req.query);
    onlyQuery(req.query, ['status', 'limit', 'cursor']);
    const cursor = queryString(req.query, 'cursor', 1024);
    return d.requests.list(req.caller.did, {
      status: queryEnum(req.query, 'status', REQUEST_STATUSES) ?? 'pending',
      limit: queryInt(req.query, 'limit', DEFAULT_LIMIT, 1, MAX_LIMIT),
      ...(cursor !== undefined ? { cursor } : {}),
    });
  });

  // one path segment, percent-encoded: a request id may hold any character
  router.add('GET', /^\/v1\/verification-requests\/([^/]{1,800})$/, 'session', async (req) => {
    refuseSecretParams(req.query);
    onlyQuery(req.query, []);
    const id = req.params[0]!;
    if (id.length > MAX_REQUEST_ID) throw validation(`a request id is at most ${MAX_REQUEST_ID} characters`, 'requestId');
    return d.requests.get(req.caller.did, id);
  });
}
