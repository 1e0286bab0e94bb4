import { RestRouter, type RestRequest } from '../../common/http/router.js';
import type { RelayServices } from '../core/services.js';
import type { Authenticator, Caller, Level, OperatorAuth } from './auth.js';
import type { OperatorDirectory } from './operators.js';

/** The relay operator surface's router and what its route modules get. */

/** the largest JSON body an operator route reads (413 above) */
export const DEFAULT_MAX_OPERATOR_BODY = 64 * 1024;

export class OperatorRouter extends RestRouter<Level, Caller> {}

/** A request to an operator route; `tenantId` is the caller's tenant. */
export type OperatorRequest<L extends Level = Level> = RestRequest<L extends 'none' ? null : Caller>;

/** What every route module gets. */
export interface RouteDeps {
  readonly router: OperatorRouter;
  readonly services: RelayServices;
  readonly auth: OperatorAuth;
  readonly authenticator: Authenticator;
  /** operator records, each with a DID */
  readonly operators: OperatorDirectory;
  /** open live-mode WebSockets, when the wire reports them */
  readonly live: { readonly connections: number } | undefined;
  /** the wire's public URL of POST /didcomm as it is now */
  endpoint(): Promise<string | null>;
  readonly version: string;
  now(): number;
}
