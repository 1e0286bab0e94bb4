import { isLedgerError } from '../../../node/errors.js';
import { isBodyTooLarge } from '../../../node/http/body.js';
import type { RequestContext } from '../../../node/http/server.js';
import { stringifyJson } from '../../../node/protocol/json.js';
import { retryAfterHeader, retryAfterMsOf } from '../../../node/rpc/errors.js';
import { authFailure } from '../auth/errors.js';

/**
 * RFC 7807 Problem Details for the plugins' REST surfaces (the relay operator API, KYC): `type`
 * is `<errors_base>/<slug>` (`<errors_base>/validation` for every validation failure), `title`
 * the slug's fixed summary, `status`, `detail` (what exactly was wrong) and `instance` (the
 * request path). `code` carries the stable LedgerError code when there is one. The node's own
 * REST surfaces use `<errors_base>/<status>` (docs/rpc.md); the relay and KYC name their types
 * instead, as the relay's contract asks, and the wallet's contract asks for the status
 * (`typeBy: 'status'`).
 */

export const SLUGS = {
  validation: { status: 400, title: 'Validation failed' },
  unauthorized: { status: 401, title: 'Authentication required' },
  forbidden: { status: 403, title: 'Insufficient scope' },
  'not-found': { status: 404, title: 'Not found' },
  'method-not-allowed': { status: 405, title: 'Method not allowed' },
  conflict: { status: 409, title: 'Conflict' },
  gone: { status: 410, title: 'Gone' },
  'payload-too-large': { status: 413, title: 'Payload too large' },
  'rate-limited': { status: 429, title: 'Too many requests' },
  internal: { status: 500, title: 'Internal error' },
  'bad-gateway': { status: 502, title: 'Bad gateway' },
  'not-configured': { status: 503, title: 'Not configured' },
  unavailable: { status: 503, title: 'Service unavailable' },
} as const;

export type Slug = keyof typeof SLUGS;

export interface ProblemBody {
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
export class HttpProblem extends Error {
  override readonly name = 'HttpProblem';
  constructor(
    readonly slug: Slug,
    readonly detail: string,
    readonly extra: { code?: string; field?: string; headers?: Record<string, string>; status?: number } = {},
  ) {
    super(detail);
  }
}

export const validation = (detail: string, field?: string): HttpProblem => new HttpProblem('validation', detail, field === undefined ? {} : { field });
export const notFound = (detail: string): HttpProblem => new HttpProblem('not-found', detail);
export const conflict = (detail: string, code?: string): HttpProblem => new HttpProblem('conflict', detail, code === undefined ? {} : { code });

/** A 401 for a credential that was given and is wrong; `realm` names the surface (relay, kyc). */
export const unauthorized = (realm: string, detail: string, code?: string): HttpProblem =>
  new HttpProblem('unauthorized', detail, { headers: { 'www-authenticate': `Bearer realm="${realm}", error="invalid_token"` }, ...(code ? { code } : {}) });
/** A 401 for a missing credential: `detail` says which one the route takes. */
export const noCredential = (realm: string, detail: string): HttpProblem =>
  new HttpProblem('unauthorized', detail, { headers: { 'www-authenticate': `Bearer realm="${realm}"` } });

const SLUG_BY_STATUS: Record<number, Slug> = { 400: 'validation', 401: 'unauthorized', 403: 'forbidden', 404: 'not-found', 409: 'conflict', 413: 'payload-too-large', 429: 'rate-limited', 502: 'bad-gateway', 503: 'unavailable' };

/**
 * Maps anything a handler threw to a Problem. `internal: true` means the caller logs the error;
 * the body then says only "internal error".
 */
export function toProblem(err: unknown, errorsBase: string, instance: string, realm: string, typeBy: TypeBy = 'slug'): { body: ProblemBody; headers: Record<string, string>; internal: boolean } {
  const make = (slug: Slug, detail: string, extra: { code?: string; field?: string; status?: number } = {}): ProblemBody => {
    const status = extra.status ?? SLUGS[slug].status;
    const body: ProblemBody = { type: `${errorsBase}/${typeBy === 'status' ? status : slug}`, title: SLUGS[slug].title, status, detail, instance };
    if (extra.code !== undefined) body.code = extra.code;
    if (extra.field !== undefined) body.field = extra.field;
    return body;
  };
  if (err instanceof HttpProblem) return { body: make(err.slug, err.detail, err.extra), headers: err.extra.headers ?? {}, internal: false };
  const auth = authFailure(err);
  if (auth) {
    const slug = SLUG_BY_STATUS[auth.status] ?? 'unauthorized';
    return { body: make(slug, auth.detail, { code: auth.code, status: auth.status }), headers: auth.status === 401 ? { 'www-authenticate': `Bearer realm="${realm}", error="invalid_token"` } : {}, internal: false };
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
      case 'unavailable':
        return { body: make('unavailable', err.message, { code: err.code }), headers: { 'retry-after': retryAfterHeader(retryAfterMsOf(err)) }, internal: false };
      default:
        break;
    }
  }
  return { body: make('internal', 'internal error'), headers: {}, internal: true };
}

/** what follows `<errors_base>/` in a Problem's `type`: the slug (`validation`) or the status (`400`) */
export type TypeBy = 'slug' | 'status';

export interface ProblemOptions {
  errorsBase: string;
  /** `slug` unless said */
  typeBy?: TypeBy;
  /** the WWW-Authenticate realm of 401s */
  realm: string;
  /** where an internal error is logged */
  log?: { error(obj: object, msg?: string): void };
}

export function sendProblem(ctx: RequestContext, opts: ProblemOptions, err: unknown): void {
  const { body, headers, internal } = toProblem(err, opts.errorsBase, ctx.path.slice(0, 200), opts.realm, opts.typeBy);
  if (internal) opts.log?.error({ err, method: ctx.method, path: ctx.path }, `${opts.realm} route failed`);
  ctx.send(body.status, stringifyJson(body), 'application/problem+json', headers);
}
