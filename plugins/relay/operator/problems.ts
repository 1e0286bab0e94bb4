import { isLedgerError } from '../../../node/errors.js';
import { isBodyTooLarge } from '../../../node/http/body.js';
import type { RequestContext } from '../../../node/http/server.js';
import { stringifyJson } from '../../../node/protocol/json.js';
import { authFailure } from '../../common/auth/errors.js';

/**
 * RFC 7807 Problem Details for the operator REST under /v1 (seed 000 "Errors"): `type` is
 * `<errors_base>/<slug>` (`<errors_base>/validation` for every validation failure), `title` the
 * slug's fixed summary, `status`, `detail` (what exactly was wrong) and `instance` (the request
 * path). `code` carries the stable LedgerError code when there is one. The node's own REST
 * surfaces use `<errors_base>/<status>` (docs/rpc.md); this surface names its types instead, as
 * the relay's contract asks.
 */

export const SLUGS = {
  validation: { status: 400, title: 'Validation failed' },
  unauthorized: { status: 401, title: 'Authentication required' },
  forbidden: { status: 403, title: 'Insufficient scope' },
  'not-found': { status: 404, title: 'Not found' },
  'method-not-allowed': { status: 405, title: 'Method not allowed' },
  conflict: { status: 409, title: 'Conflict' },
  'payload-too-large': { status: 413, title: 'Payload too large' },
  'rate-limited': { status: 429, title: 'Too many requests' },
  internal: { status: 500, title: 'Internal error' },
  'bad-gateway': { status: 502, title: 'Identity provider error' },
  'not-configured': { status: 503, title: 'Not configured' },
  unavailable: { status: 503, title: 'Service unavailable' },
} as const;

export type Slug = keyof typeof SLUGS;

export interface OperatorProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  code?: string;
  /** for validation failures: the field at fault, when one is */
  field?: string;
}

/** Thrown by a handler to answer a Problem; the router turns it into the response. */
export class OperatorProblem extends Error {
  override readonly name = 'OperatorProblem';
  constructor(
    readonly slug: Slug,
    readonly detail: string,
    readonly extra: { code?: string; field?: string; headers?: Record<string, string>; status?: number } = {},
  ) {
    super(detail);
  }
}

export const validation = (detail: string, field?: string): OperatorProblem => new OperatorProblem('validation', detail, field === undefined ? {} : { field });
export const notFound = (detail: string): OperatorProblem => new OperatorProblem('not-found', detail);
export const conflict = (detail: string, code?: string): OperatorProblem => new OperatorProblem('conflict', detail, code === undefined ? {} : { code });

const WWW_AUTHENTICATE = { 'www-authenticate': 'Bearer realm="relay"' };

export const unauthorized = (detail: string, code?: string): OperatorProblem =>
  new OperatorProblem('unauthorized', detail, { headers: { 'www-authenticate': `Bearer realm="relay", error="invalid_token"` }, ...(code ? { code } : {}) });
export const noCredential = (): OperatorProblem =>
  new OperatorProblem('unauthorized', 'this route needs Authorization: Bearer <session token or slk_ API key>', { headers: WWW_AUTHENTICATE });

const SLUG_BY_STATUS: Record<number, Slug> = { 400: 'validation', 401: 'unauthorized', 403: 'forbidden', 404: 'not-found', 409: 'conflict', 413: 'payload-too-large', 429: 'rate-limited', 502: 'bad-gateway', 503: 'unavailable' };

/**
 * Maps anything a handler threw to a Problem. `internal: true` means the caller logs the error;
 * the body then says only "internal error".
 */
export function toProblem(err: unknown, errorsBase: string, instance: string): { body: OperatorProblemBody; headers: Record<string, string>; internal: boolean } {
  const make = (slug: Slug, detail: string, extra: { code?: string; field?: string; status?: number } = {}): OperatorProblemBody => {
    const status = extra.status ?? SLUGS[slug].status;
    const body: OperatorProblemBody = { type: `${errorsBase}/${slug}`, title: SLUGS[slug].title, status, detail, instance };
    if (extra.code !== undefined) body.code = extra.code;
    if (extra.field !== undefined) body.field = extra.field;
    return body;
  };
  if (err instanceof OperatorProblem) return { body: make(err.slug, err.detail, err.extra), headers: err.extra.headers ?? {}, internal: false };
  const auth = authFailure(err);
  if (auth) {
    const slug = SLUG_BY_STATUS[auth.status] ?? 'unauthorized';
    return { body: make(slug, auth.detail, { code: auth.code, status: auth.status }), headers: auth.status === 401 ? { 'www-authenticate': 'Bearer realm="relay", error="invalid_token"' } : {}, internal: false };
  }
  if (isBodyTooLarge(err)) return { body: make('payload-too-large', (err as Error).message, { code: 'BODY_TOO_LARGE' }), headers: { connection: 'close' }, internal: false };
  if (isLedgerError(err)) {
    const field = typeof err.data['field'] === 'string' ? { field: err.data['field'] } : {};
    switch (err.kind) {
      case 'invalid':
        return { body: make('validation', err.message, { code: err.code, ...field }), headers: {}, internal: false };
      case 'not_found':
        return { body: make('not-found', err.message, { code: err.code }), headers: {}, internal: false };
      case 'conflict':
        return { body: make('conflict', err.message, { code: err.code }), headers: {}, internal: false };
      case 'limit':
        return { body: make('payload-too-large', err.message, { code: err.code }), headers: {}, internal: false };
      case 'disabled':
        return { body: make('unavailable', err.message, { code: err.code }), headers: {}, internal: false };
      default:
        break;
    }
  }
  return { body: make('internal', 'internal error'), headers: {}, internal: true };
}

export function sendProblem(ctx: RequestContext, errorsBase: string, err: unknown, log?: { error(obj: object, msg?: string): void }): void {
  const { body, headers, internal } = toProblem(err, errorsBase, ctx.path.slice(0, 200));
  if (internal) log?.error({ err, method: ctx.method, path: ctx.path }, 'relay operator route failed');
  ctx.send(body.status, stringifyJson(body), 'application/problem+json', headers);
}
