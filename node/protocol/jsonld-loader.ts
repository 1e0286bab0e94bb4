import jsonld from 'jsonld';
import { contexts as credentialsContexts } from '@digitalbazaar/credentials-context';
import ed25519Context from 'ed25519-signature-2020-context';
import revocationListContext from 'vc-revocation-list-context';
import { invalid, isLedgerError, LedgerError } from '../errors.js';
import { CREDENTIAL_TYPES } from './credential-types.js';
import { CREDENTIALS_V1_URL, ED25519_2020_URL, LEDGER_CONTEXT_URL, REVOCATION_LIST_2020_URL } from './credential-context.js';
import { deepFreeze } from './deep-freeze.js';

/**
 * JSON-LD for credentials, offline: the contexts a credential may name are bundled, and the
 * document loader serves those and refuses every other URL, so canonicalizing never touches the
 * network and a document cannot change meaning because a remote context changed.
 */

export { CREDENTIAL_CONTEXT, CREDENTIALS_V1_URL, ED25519_2020_URL, LEDGER_CONTEXT_URL, REVOCATION_LIST_2020_URL } from './credential-context.js';
const VOCAB = 'https://ledger.network/vocab#';
const XSD_INTEGER = 'http://www.w3.org/2001/XMLSchema#integer';

/** Our terms: the credential types, the subject claims and the ledgerExtensions object. */
export const LEDGER_CONTEXT = deepFreeze({
  '@context': {
    '@version': 1.1,
    '@protected': true,
    ...Object.fromEntries(CREDENTIAL_TYPES.map((t) => [t, `${VOCAB}${t}`])),
    name: 'https://schema.org/name',
    kycLevel: { '@id': `${VOCAB}kycLevel`, '@type': XSD_INTEGER },
    verifiedAttributes: { '@id': `${VOCAB}verifiedAttributes`, '@container': '@set' },
    jurisdiction: `${VOCAB}jurisdiction`,
    ledgerExtensions: `${VOCAB}ledgerExtensions`,
    onChainHash: `${VOCAB}onChainHash`,
    validatorSignatures: { '@id': `${VOCAB}validatorSignatures`, '@container': '@set' },
    validator: `${VOCAB}validator`,
    signature: `${VOCAB}signature`,
    consensusRound: { '@id': `${VOCAB}consensusRound`, '@type': XSD_INTEGER },
  },
});


export interface RemoteDocument {
  contextUrl: null;
  documentUrl: string;
  document: unknown;
}
export type DocumentLoader = (url: string) => Promise<RemoteDocument>;

function packaged(map: Map<string, unknown>, url: string): unknown {
  const doc = map.get(url);
  if (typeof doc !== 'object' || doc === null) throw new LedgerError('MISSING_CONTEXT', `the installed context package has no ${url}`, 'internal');
  return doc;
}

/**
 * Copies, frozen: the packages export mutable maps, and a change to one made elsewhere in the
 * process must not change what our signatures cover.
 */
export const BUNDLED_CONTEXTS: ReadonlyMap<string, unknown> = new Map(
  [
    [CREDENTIALS_V1_URL, packaged(credentialsContexts, CREDENTIALS_V1_URL)],
    [ED25519_2020_URL, packaged(ed25519Context.contexts, ED25519_2020_URL)],
    [REVOCATION_LIST_2020_URL, packaged(revocationListContext.contexts, REVOCATION_LIST_2020_URL)],
    [LEDGER_CONTEXT_URL, LEDGER_CONTEXT],
  ].map(([url, doc]) => [url as string, deepFreeze(structuredClone(doc))]),
);

/**
 * A loader that serves `contexts` and refuses anything else; it never fetches. Its answers carry
 * no `tag`: jsonld shares contexts a loader tags 'static' across every later call in the process,
 * whatever loader that call brings, so an untagged answer keeps each loader's set its own.
 */
export function staticDocumentLoader(contexts: ReadonlyMap<string, unknown>): DocumentLoader {
  return async (url) => {
    const document = contexts.get(url);
    if (document === undefined) {
      throw invalid('UNKNOWN_CONTEXT', `JSON-LD context ${url} is not bundled; documents are never fetched, only ${[...contexts.keys()].join(', ')} are served`, { url });
    }
    return { contextUrl: null, documentUrl: url, document };
  };
}

export const documentLoader = staticDocumentLoader(BUNDLED_CONTEXTS);

/** The options of jsonld 9's canonize that we set (@types/jsonld describes an older API). */
interface CanonizeOptions {
  documentLoader: DocumentLoader;
  safe: boolean;
  base: null;
  format: 'application/n-quads';
  canonizeOptions: { algorithm: 'RDFC-1.0'; maxWorkFactor: number };
}
const canonize = jsonld.canonize as unknown as (input: object, options: CanonizeOptions) => Promise<string>;

/**
 * RDF Dataset Canonicalization (RDFC-1.0, the W3C standard form of URDNA2015: the same output)
 * as N-Quads. Safe mode turns what JSON-LD would otherwise drop silently (a term no context
 * defines, a relative type) into an error, so nothing in the JSON escapes the signature.
 * maxWorkFactor 1 bounds the work a crafted blank-node graph can cause.
 */
export async function canonicalNQuads(document: object, loader: DocumentLoader = documentLoader): Promise<string> {
  try {
    return await canonize(document, {
      documentLoader: loader,
      safe: true,
      base: null,
      format: 'application/n-quads',
      canonizeOptions: { algorithm: 'RDFC-1.0', maxWorkFactor: 1 },
    });
  } catch (err) {
    throw jsonldError(err);
  }
}

interface JsonLdFailure {
  message?: string;
  details?: { cause?: unknown; event?: { message?: string; details?: unknown } };
}

/** Our loader's error when it is the cause, else BAD_JSONLD with what jsonld reported. */
function jsonldError(err: unknown): LedgerError {
  if (isLedgerError(err)) return err;
  const e = (err ?? {}) as JsonLdFailure;
  const cause = e.details?.cause;
  if (isLedgerError(cause)) return cause;
  const event = e.details?.event;
  if (event?.message) return invalid('BAD_JSONLD', `JSON-LD safe mode: ${event.message} ${JSON.stringify(event.details ?? {})}`);
  return invalid('BAD_JSONLD', `JSON-LD canonicalization failed: ${e.message ?? String(err)}`);
}
