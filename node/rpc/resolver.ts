import type { RouteHandler } from '../http/server.js';
import { didDocument, type DidDocument } from '../protocol/did-document.js';
import { parseDid } from '../protocol/did.js';
import type { DidRecord } from '../protocol/records.js';
import { DEFAULT_REPRESENTATION, negotiate, REPRESENTATIONS, type Representation } from './resolver-negotiation.js';

/**
 * DID Resolution (W3C DID Resolution, HTTP(S) binding) for `GET /1.0/identifiers/<did>`.
 * Errors: `invalidDid` (400), `notFound` (404), `representationNotSupported` (406). A
 * deactivated DID resolves with `deactivated: true` and HTTP 410. The bare DID document is sent
 * only with 200; every other status sends the resolution result, so the error or the
 * deactivation travels in its metadata (what Universal Resolver drivers do).
 */

export const RESOLVER_PATH = /^\/1\.0\/identifiers\/(.+)$/;
/** the content type of the document this node produces (it carries `@context`) */
export const DID_LD_JSON = REPRESENTATIONS['did-ld-json'].contentType;
export const RESOLUTION_CONTENT_TYPE = REPRESENTATIONS['resolution-ld'].contentType;

export interface ResolutionResult {
  didDocument: DidDocument | null;
  didDocumentMetadata: {
    created?: string;
    updated?: string;
    deactivated?: boolean;
    versionId?: string;
    equivalentId?: string[];
  };
  didResolutionMetadata: {
    contentType?: string;
    duration: number;
    retrieved: string;
    error?: 'invalidDid' | 'notFound' | 'representationNotSupported';
    errorMessage?: string;
  };
}

/** The JSON representation (`application/did+json`): the same entries without the JSON-LD `@context`. */
export type DidDocumentJson = Omit<DidDocument, '@context'>;

export interface ResolverDeps {
  network: string;
  lookup(identifier: Uint8Array): Promise<DidRecord | undefined>;
  now?: () => number;
}

type ResolutionError = NonNullable<ResolutionResult['didResolutionMetadata']['error']>;

/** What the route sends: `contentType` always names the representation in `body`. */
export interface ResolverAnswer {
  status: number;
  representation: Representation;
  contentType: string;
  body: ResolutionResult | DidDocument | DidDocumentJson;
}

function clock(deps: ResolverDeps) {
  const now = deps.now ?? Date.now;
  const started = now();
  return {
    result(body: Omit<ResolutionResult, 'didResolutionMetadata'>, meta: Partial<ResolutionResult['didResolutionMetadata']>): ResolutionResult {
      return { ...body, didResolutionMetadata: { ...meta, duration: now() - started, retrieved: new Date(started).toISOString() } };
    },
    failure(error: ResolutionError, errorMessage: string): ResolutionResult {
      return this.result({ didDocument: null, didDocumentMetadata: {} }, { error, errorMessage });
    },
  };
}

/** Resolution without negotiation: the HTTP status the binding gives it, and the resolution result. */
export async function resolve(deps: ResolverDeps, didText: string): Promise<{ status: number; result: ResolutionResult }> {
  const c = clock(deps);
  let parsed;
  try {
    parsed = parseDid(didText);
  } catch (err) {
    return { status: 400, result: c.failure('invalidDid', (err as Error).message) };
  }
  if (parsed.network !== deps.network) return { status: 404, result: c.failure('notFound', `this node serves network ${deps.network}, not ${parsed.network}`) };
  const record = await deps.lookup(parsed.identifier);
  if (!record) return { status: 404, result: c.failure('notFound', `${parsed.did} does not exist`) };
  const result = c.result(
    {
      didDocument: didDocument(record),
      didDocumentMetadata: {
        created: new Date(record.createdMs).toISOString(),
        updated: new Date(record.updatedMs).toISOString(),
        deactivated: !record.active,
        versionId: String(record.versionId),
        equivalentId: [],
      },
    },
    { contentType: DID_LD_JSON },
  );
  return { status: record.active ? 200 : 410, result };
}

/** Resolution with content negotiation on `accept` (the request's Accept header). */
export async function resolveDid(deps: ResolverDeps, didText: string, accept?: string): Promise<ResolverAnswer> {
  const { acceptable } = negotiate(accept);
  // an error, a deactivation or a 406 is told in a resolution result: the best one the client takes, else the default
  const resultRep = acceptable.find((r) => REPRESENTATIONS[r].result) ?? DEFAULT_REPRESENTATION;
  const asResult = (status: number, body: ResolutionResult): ResolverAnswer => ({ status, representation: resultRep, contentType: REPRESENTATIONS[resultRep].contentType, body });
  const chosen = acceptable[0];
  if (chosen === undefined) {
    const offered = Object.values(REPRESENTATIONS).map((r) => r.contentType).join(', ');
    return asResult(406, clock(deps).failure('representationNotSupported', `cannot produce any of ${JSON.stringify(accept)}; this resolver produces ${offered}`));
  }
  const { status, result } = await resolve(deps, didText);
  if (status !== 200 || REPRESENTATIONS[chosen].result || !result.didDocument) return asResult(status, result);
  const document = result.didDocument;
  if (chosen === 'did-json') {
    const { '@context': _context, ...plain } = document;
    return { status, representation: chosen, contentType: REPRESENTATIONS[chosen].contentType, body: plain };
  }
  return { status, representation: chosen, contentType: REPRESENTATIONS[chosen].contentType, body: document };
}

/** The route handler for RESOLVER_PATH; every answer varies with Accept, so it says so to caches. */
export function resolverRoute(deps: ResolverDeps): RouteHandler {
  return async (ctx) => {
    const answer = await resolveDid(deps, ctx.params[0]!, ctx.req.headers.accept);
    ctx.send(answer.status, JSON.stringify(answer.body), answer.contentType, { vary: 'Accept' });
  };
}
