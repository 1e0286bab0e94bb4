/**
 * DID resolution for the relay's DIDComm v2 mediator: did:key, did:peer (0, 2, 4) and
 * did:ledger, as the documents didcomm-node's DIDResolver returns. See resolver.ts.
 */
export {
  DidResolver,
  type DidResolverOptions,
  type DidResolverStats,
  type ResolveOptions,
} from './resolver.js';
export {
  DID_KEY_PREFIX,
  didKeyDocument,
  didKeyFromEd25519,
  didKeyFromSeed,
  didKeyFromX25519,
  didKeySecrets,
  keyDocument,
  parseDidKey,
  x25519SecretFromEd25519Seed,
  type DidKeyIdentity,
  type ParsedDidKey,
} from './did-key.js';
export {
  MAX_LONG_PEER_DID,
  PeerDid4Store,
  decodePeerServiceElement,
  encodePeerDid2,
  encodePeerDid4,
  expandPeerService,
  parsePeerDid4,
  peerDid0Document,
  peerDid2Document,
  peerDid4Document,
  peerDidDocument,
  type ParsedPeerDid4,
} from './did-peer.js';
export { LEDGER_X25519_FRAGMENT, ledgerDidDocument, parseLedgerServiceEndpoint } from './did-ledger.js';
export { staticSecretsResolver } from './secrets.js';
export {
  absoluteId,
  decodeMultikey,
  didError,
  didcommService,
  ed25519ToX25519PublicKey,
  encodeMultikey,
  okpJwk,
  publicKeyFromJwk,
  type DidErrorCode,
  type DidcommDidDoc,
  type DidcommService,
  type DidcommServiceEndpoint,
  type JwkVerificationMethod,
  type OkpCurve,
  type OkpJwk,
} from './document.js';
