import { didDocument, type DidDocument } from '../protocol/did-document.js';
import { parseDid } from '../protocol/did.js';
import type { DidRecord } from '../protocol/records.js';

/**
 * DID Resolution (W3C DID Resolution, HTTP binding) for `GET /1.0/identifiers/<did>`.
 * Errors: `invalidDid` (400), `notFound` (404), `representationNotSupported` (406).
 * A deactivated DID resolves with `deactivated: true` and HTTP 410, as the binding specifies.
 */

export const DID_LD_JSON = 'application/did+ld+json';
export const RESOLUTION_CONTENT_TYPE = 'application/ld+json;profile="https://w3id.org/did-resolution"';
const ACCEPTABLE = ['*/*', 'application/*', 'application/json', 'application/ld+json', DID_LD_JSON];

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

export interface ResolverDeps {
  network: string;
  lookup(identifier: Uint8Array): Promise<DidRecord | undefined>;
  now?: () => number;
}

function acceptable(accept: string | undefined): boolean {
  if (!accept) return true;
  return accept.split(',').some((part) => ACCEPTABLE.includes(part.split(';')[0]!.trim().toLowerCase()));
}

export async function resolveDid(deps: ResolverDeps, didText: string, accept?: string): Promise<{ status: number; body: ResolutionResult }> {
  const now = deps.now ?? Date.now;
  const started = now();
  const done = (status: number, body: Omit<ResolutionResult, 'didResolutionMetadata'>, meta: Partial<ResolutionResult['didResolutionMetadata']>) => ({
    status,
    body: { ...body, didResolutionMetadata: { ...meta, duration: now() - started, retrieved: new Date(started).toISOString() } },
  });
  const failure = (status: number, error: NonNullable<ResolutionResult['didResolutionMetadata']['error']>, errorMessage: string) =>
    done(status, { didDocument: null, didDocumentMetadata: {} }, { error, errorMessage });

  if (!acceptable(accept)) return failure(406, 'representationNotSupported', `cannot produce ${accept}; ask for ${DID_LD_JSON}`);
  let parsed;
  try {
    parsed = parseDid(didText);
  } catch (err) {
    return failure(400, 'invalidDid', (err as Error).message);
  }
  if (parsed.network !== deps.network) return failure(404, 'notFound', `this node serves network ${deps.network}, not ${parsed.network}`);
  const record = await deps.lookup(parsed.identifier);
  if (!record) return failure(404, 'notFound', `${parsed.did} does not exist`);
  return done(
    record.active ? 200 : 410,
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
}
