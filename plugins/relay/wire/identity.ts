import { didKeyDocument, didKeyFromSeed, type DidKeyIdentity } from './dids/did-key.js';
import { encodePeerDid2, peerDid2Document } from './dids/did-peer.js';
import { encodeMultikey, type DidcommDidDoc } from './dids/document.js';
import type { Secret } from './didcomm.js';

/**
 * The mediator's identity: one Ed25519 key, and the X25519 key derived from it for key agreement,
 * under two DIDs (docs/relay.md, "The mediator's identity"):
 *
 * - the did:key of the seed (000): the invitation's `from` and the grant's `routing_did` for
 *   agents that used it. A did:key document has no services, so the relay's own resolution of its
 *   did:key adds the DIDCommMessaging services of the public endpoint (GET /did-document): HTTP
 *   first, then the WebSocket URL of live mode, where clients such as Identus look for it.
 * - a did:peer:2 of the same keys, `.E<x25519>.V<ed25519>` then one `.S` per service (the same
 *   two), so that stock resolvers find the endpoint in the DID itself (GET /invite?did=peer). It
 *   changes with the endpoint; every did:peer:2 of these keys stays ours (secrets.ts).
 *
 * The seed comes from configuration (plugins.relay.keys / keysFile) or the relay's store.
 */

export interface MediatorIdentity {
  readonly did: string;
  readonly keyAgreementKid: string;
  readonly secrets: Secret[];
  /** the did:key document with the relay's services: POST `endpoint` first, then its ws(s) URL */
  document(endpoint: string): DidcommDidDoc;
  /** the did:peer:2 of the same keys carrying the services of `endpoint` */
  peerDid(endpoint: string): string;
  /** the document of one of our DIDs (the did:key with `endpoint`'s services, or a did:peer:2 of ours) */
  documentOf(did: string, endpoint: string): DidcommDidDoc | undefined;
  /** which of our DIDs the recipient key id `kid` belongs to, or undefined when it is not ours */
  ownerOf(kid: string): string | undefined;
}

const services = (did: string, endpoint: string) => {
  const service = (fragment: string, uri: string) => ({ id: `${did}#${fragment}`, type: 'DIDCommMessaging' as const, serviceEndpoint: { uri, accept: ['didcomm/v2'], routingKeys: [], routing_keys: [] } });
  return [service('didcomm', endpoint), service('didcomm-live', endpoint.replace(/^http/, 'ws'))];
};

export function mediatorIdentity(seed: Uint8Array): MediatorIdentity {
  const id: DidKeyIdentity = didKeyFromSeed(seed);
  // built once: deriving it checks curve points, which cost a third of the event loop per envelope
  const base = didKeyDocument(id.did);
  const peerPrefix = `did:peer:2.E${encodeMultikey('X25519', id.x25519PublicKey)}.V${encodeMultikey('Ed25519', id.ed25519PublicKey)}`;
  let cached: { endpoint: string; doc: DidcommDidDoc } | undefined;
  // the peer DID of the current endpoint and its document, and the last few others asked about
  const peers = new Map<string, DidcommDidDoc>();
  const peerDid = (endpoint: string) =>
    encodePeerDid2(
      [
        { purpose: 'E', publicKeyMultibase: encodeMultikey('X25519', id.x25519PublicKey) },
        { purpose: 'V', publicKeyMultibase: encodeMultikey('Ed25519', id.ed25519PublicKey) },
      ],
      [endpoint, endpoint.replace(/^http/, 'ws')].map((uri) => ({ type: 'DIDCommMessaging', serviceEndpoint: { uri, accept: ['didcomm/v2'] } })),
    );
  const isOurPeer = (did: string) => did.startsWith(`${peerPrefix}.`) || did === peerPrefix;
  return {
    did: id.did,
    keyAgreementKid: id.keyAgreementKeyId,
    secrets: id.secrets,
    document(endpoint: string): DidcommDidDoc {
      if (cached?.endpoint === endpoint) return cached.doc;
      const doc = { ...base, service: services(id.did, endpoint) };
      cached = { endpoint, doc };
      return doc;
    },
    peerDid,
    documentOf(did: string, endpoint: string): DidcommDidDoc | undefined {
      if (did === id.did) return this.document(endpoint);
      if (!isOurPeer(did)) return undefined;
      let doc = peers.get(did);
      if (!doc) {
        doc = peerDid2Document(did);
        if (peers.size >= 8) peers.delete(peers.keys().next().value!);
        peers.set(did, doc);
      }
      return doc;
    },
    ownerOf(kid: string): string | undefined {
      if (kid === id.keyAgreementKeyId) return id.did;
      const hash = kid.indexOf('#');
      const did = hash === -1 ? kid : kid.slice(0, hash);
      return isOurPeer(did) && kid.slice(hash) === '#key-1' ? did : undefined;
    },
  };
}
