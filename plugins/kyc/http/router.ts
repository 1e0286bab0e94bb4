import type { HttpServer } from '../../../node/http/server.js';
import type { Logger } from '../../../node/logging.js';
import { RestRouter, type Authenticator, type RestRequest } from '../../common/http/router.js';
import type { KycCaller, KycLevel } from './auth-levels.js';

/** The KYC surface's router: Problem Details under `plugins.kyc.errorsBase`, realm `kyc`. */

/** the largest JSON body a KYC route reads (413 above); uploads are multipart and have their own limit */
export const MAX_JSON_BODY = 64 * 1024;

export class KycRouter extends RestRouter<KycLevel, KycCaller> {}

export type KycRequest<L extends KycLevel = KycLevel> = RestRequest<L extends 'none' ? null : KycCaller>;

export function createKycRouter(http: Pick<HttpServer, 'route'>, auth: Authenticator<KycLevel, KycCaller>, opts: { errorsBase: string; log: Logger }): KycRouter {
  return new KycRouter(http, auth, { errorsBase: opts.errorsBase, realm: 'kyc', maxBodyBytes: MAX_JSON_BODY, log: opts.log, tenantOf: (c) => c.organizationId });
}
