import type { ChainView } from '../../../../node/plugins/chain-view.js';
import { notFound } from '../../../common/http/problems.js';
import type { ServiceKey } from '../../../common/chain/service-key.js';
import { revocationListCredential } from '../../issuance/revocation-list.js';
import type { KycRouter } from '../router.js';

/**
 * GET /v1/revocation-lists/<n> (no credential): the issuer's revocation list `n`, where its
 * credentials' `credentialStatus` points, as a RevocationList2020Credential read from chain state.
 * A list that positions were allocated in is served (all zero until a revocation); others are 404.
 */

const LIST_PATH = /^\/v1\/revocation-lists\/(0|[1-9]\d{0,8})$/;

export function mountRevocationLists(d: { router: KycRouter; chain: ChainView; key: ServiceKey; publicUrl(): string }): void {
  d.router.add('GET', LIST_PATH, 'none', async (req) => {
    const n = Number(req.params[0]);
    const url = `${d.publicUrl()}/v1/revocation-lists/${n}`;
    const body = await revocationListCredential(d.chain, d.key, n, url);
    if (!body) throw notFound(`the issuer has no revocation list ${n}`);
    return body;
  });
}
