import SDK from '@hyperledger/identus-sdk';
import { ed25519 } from '@noble/curves/ed25519.js';
import { base58 } from '@scure/base';

/**
 * did:key resolution for the Identus SDK's Castor, which resolves only did:peer:2 and did:prism.
 * A did:key has no services, so an agent cannot derive the relay's endpoints from its DID; the
 * relay publishes its did:key document with its DIDComm services at GET /did-document (first the
 * HTTP POST URL, then the live-mode ws URL), next to the endpoint the invitation names. The
 * resolver fetches that document (once per agent), checks that it is the document of the DID
 * asked for (same id, the Ed25519 key of the did:key, the X25519 key derived from it) and hands
 * it to Castor as a Domain.DIDDocument. Nothing here knows a URL other than the one given.
 */

const { Domain } = SDK;
type DIDDocument = InstanceType<typeof Domain.DIDDocument>;
type VerificationMethod = InstanceType<typeof Domain.DIDDocument.VerificationMethod>;

interface JsonVerificationMethod {
  id: string;
  type: string;
  controller: string;
  publicKeyJwk?: { kty?: string; crv?: string; x?: string; kid?: string };
  publicKeyMultibase?: string;
}
interface JsonService {
  id: string;
  type: string | string[];
  serviceEndpoint: string | { uri: string; accept?: string[]; routingKeys?: string[]; routing_keys?: string[] };
}
export interface JsonDidDocument {
  id: string;
  verificationMethod?: JsonVerificationMethod[];
  authentication?: Array<string | JsonVerificationMethod>;
  keyAgreement?: Array<string | JsonVerificationMethod>;
  service?: JsonService[];
}

/** The URL of the relay's DID document, next to the DIDComm endpoint of the invitation. */
export function didDocumentUrl(invitationEndpoint: string): string {
  return new URL('did-document', invitationEndpoint).toString();
}

const b64u = (b: Uint8Array) => Buffer.from(b).toString('base64url');

/** What is wrong with `doc` as the did:key document of `did` (empty: nothing). */
export function didKeyDocumentProblems(did: string, doc: JsonDidDocument): string[] {
  const problems: string[] = [];
  if (doc.id !== did) problems.push(`the document is for ${doc.id}, not ${did}`);
  if (!did.startsWith('did:key:z6Mk')) return [...problems, `${did} is not an Ed25519 did:key`];
  const bytes = base58.decode(did.slice('did:key:z'.length));
  const ed = bytes.slice(2);
  const x = ed25519.utils.toMontgomery(ed);
  const methods = doc.verificationMethod ?? [];
  const refs = (list: Array<string | JsonVerificationMethod> | undefined) => (list ?? []).map((r) => (typeof r === 'string' ? r : r.id));
  const byId = (id: string) => methods.find((m) => m.id === id);
  const auth = refs(doc.authentication).map(byId);
  const agree = refs(doc.keyAgreement).map(byId);
  if (!auth.some((m) => m?.publicKeyJwk?.crv === 'Ed25519' && m.publicKeyJwk.x === b64u(ed))) problems.push('no authentication method holds the Ed25519 key of the did:key');
  if (!agree.some((m) => m?.publicKeyJwk?.crv === 'X25519' && m.publicKeyJwk.x === b64u(x))) problems.push('no keyAgreement method holds the X25519 key derived from the did:key');
  for (const m of methods) if (!m.id.startsWith(`${did}#`)) problems.push(`verification method ${m.id} is not an absolute DID URL of ${did}`);
  return problems;
}

/** The SDK's Domain.DIDDocument of a JSON DID document (JWK or multibase keys, DIDComm services). */
export function toSdkDocument(doc: JsonDidDocument): DIDDocument {
  const did = Domain.DID.fromString(doc.id);
  const methods: VerificationMethod[] = (doc.verificationMethod ?? []).map(
    (m) => new Domain.DIDDocument.VerificationMethod(m.id, m.controller, m.type as SDK.Domain.DIDDocument.VerificationMethod.Type, m.publicKeyJwk ? ({ kid: m.id, ...m.publicKeyJwk } as never) : undefined, m.publicKeyMultibase),
  );
  const pick = (list: Array<string | JsonVerificationMethod> | undefined) => {
    const ids = (list ?? []).map((r) => (typeof r === 'string' ? r : r.id));
    return { ids, methods: methods.filter((m) => ids.includes(m.id)) };
  };
  const auth = pick(doc.authentication);
  const agree = pick(doc.keyAgreement);
  const services = (doc.service ?? []).map((s) => {
    const ep = typeof s.serviceEndpoint === 'string' ? { uri: s.serviceEndpoint } : s.serviceEndpoint;
    return new Domain.DIDDocument.Service(s.id, Array.isArray(s.type) ? s.type : [s.type], new Domain.DIDDocument.ServiceEndpoint(ep.uri, ep.accept ?? [], ep.routingKeys ?? ep.routing_keys ?? []));
  });
  return new Domain.DIDDocument(did, [
    new Domain.DIDDocument.VerificationMethods(methods),
    new Domain.DIDDocument.Authentication(auth.ids, auth.methods),
    new Domain.DIDDocument.KeyAgreement(agree.ids, agree.methods),
    new Domain.DIDDocument.Services(services),
  ]);
}

export interface RelayDidKeyResolver {
  /** the class to give Castor: `new SDK.Castor(apollo, [resolver.Resolver])` */
  Resolver: SDK.ExtraResolver;
  /** GET /did-document requests made */
  fetches: number;
  /** why a resolution failed (Castor only says that no resolver could resolve the DID) */
  errors: string[];
}

/**
 * A Castor resolver for the relay's did:key: `url` is the relay's GET /did-document
 * (didDocumentUrl(invitation endpoint)). Other did:keys do not resolve.
 */
export function relayDidKeyResolver(url: string): RelayDidKeyResolver {
  let cached: Promise<JsonDidDocument> | undefined;
  const state: RelayDidKeyResolver = {
    fetches: 0,
    errors: [],
    Resolver: class RelayDidKeyResolverClass implements SDK.Domain.DIDResolver {
      method = 'key';
      constructor(_apollo: SDK.Domain.Apollo) {}
      async resolve(didString: string): Promise<DIDDocument> {
        const did = didString.split('#')[0]!;
        try {
          cached ??= (async () => {
            state.fetches++;
            const res = await fetch(url, { headers: { accept: 'application/json' } });
            if (!res.ok) throw new Error(`GET ${url}: HTTP ${res.status}`);
            return (await res.json()) as JsonDidDocument;
          })();
          const doc = await cached.catch((err: unknown) => {
            cached = undefined;
            throw err;
          });
          if (doc.id !== did) throw new Error(`${did} is not the relay's DID (${doc.id}); this resolver knows only the relay`);
          const problems = didKeyDocumentProblems(did, doc);
          if (problems.length > 0) throw new Error(`the relay's document for ${did} is wrong: ${problems.join('; ')}`);
          return toSdkDocument(doc);
        } catch (err) {
          state.errors.push((err as Error).message);
          throw err;
        }
      }
    },
  };
  return state;
}
