import type { RouteTable } from '../../../node/http/server.js';
import type { Logger } from '../../../node/logging.js';
import { MAX_IMAGE_BYTES } from '../verification/checks/image.js';
import { RestRouter, type Authenticator, type RestRequest } from '../../common/http/router.js';
import type { KycCaller, KycLevel } from './auth-levels.js';
import { multipartCap } from './multipart.js';

/** The KYC surface's router: Problem Details under `plugins.kyc.errorsBase`, realm `kyc`. */

/** the largest JSON body a KYC route reads (413 above); uploads are multipart and have their own limit */
export const MAX_JSON_BODY = 64 * 1024;

export class KycRouter extends RestRouter<KycLevel, KycCaller> {}

export type KycRequest<L extends KycLevel = KycLevel> = RestRequest<L extends 'none' ? null : KycCaller>;

export function createKycRouter(http: RouteTable, auth: Authenticator<KycLevel, KycCaller>, opts: { errorsBase: string; log: Logger }): KycRouter {
  // document and liveness uploads (routes/verifications.ts) are larger than the server's 1 MiB
  http.raiseBodyLimit?.(multipartCap({ maxTotalBytes: MAX_IMAGE_BYTES }));
  return new KycRouter(http, auth, { errorsBase: opts.errorsBase, realm: 'kyc', maxBodyBytes: MAX_JSON_BODY, log: opts.log, tenantOf: (c) => c.organizationId });
}
