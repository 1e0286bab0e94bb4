import { didKeyDocument, didKeyFromSeed, type DidKeyIdentity } from './dids/did-key.js';
import type { DidcommDidDoc } from './dids/document.js';
import type { Secret } from './didcomm.js';

/**
 * The mediator's identity: one Ed25519 did:key, its seed kept in the relay's store (created on
 * first start, never rotated by the relay). Key agreement uses the X25519 key derived from it, as
 * did:key defines. A did:key document has no services, so the relay's own resolution of its
 * did:key adds the DIDCommMessaging service of the public endpoint: that is what agents find when
 * they resolve the invitation's `from` through the relay (and GET /did-document), and the
 * invitation carries the same HTTP service. A second service gives the WebSocket URL of live
 * mode, where clients such as Identus look for it (docs/relay.md, "The mediator's DID").
 */

export interface MediatorIdentity {
  readonly did: string;
  readonly keyAgreementKid: string;
  readonly secrets: Secret[];
  /** the did:key document with the relay's services: POST `endpoint` first, then its ws(s) URL */
  document(endpoint: string): DidcommDidDoc;
}

export function mediatorIdentity(seed: Uint8Array): MediatorIdentity {
  const id: DidKeyIdentity = didKeyFromSeed(seed);
  // built once: deriving it checks curve points, which cost a third of the event loop per envelope
  const base = didKeyDocument(id.did);
  let cached: { endpoint: string; doc: DidcommDidDoc } | undefined;
  return {
    did: id.did,
    keyAgreementKid: id.keyAgreementKeyId,
    secrets: id.secrets,
    document(endpoint: string): DidcommDidDoc {
      if (cached?.endpoint === endpoint) return cached.doc;
      const service = (fragment: string, uri: string) => ({ id: `${id.did}#${fragment}`, type: 'DIDCommMessaging' as const, serviceEndpoint: { uri, accept: ['didcomm/v2'], routingKeys: [], routing_keys: [] } });
      const doc = { ...base, service: [service('didcomm', endpoint), service('didcomm-live', endpoint.replace(/^http/, 'ws'))] };
      cached = { endpoint, doc };
      return doc;
    },
  };
}
