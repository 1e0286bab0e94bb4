import type { DidDocumentRpc } from '../../../../node/protocol/did-document.js';
import { ed25519PublicKeyFromMultibase } from '../../../../node/crypto/multibase.js';
import {
  absoluteId,
  checkPublicKey,
  didcommService,
  didError,
  ed25519ToX25519PublicKey,
  jwkMethod,
  type DidcommDidDoc,
  type DidcommService,
  type JwkVerificationMethod,
  type ServiceEndpointInput,
} from './document.js';

/**
 * did:ledger: the on-chain DID document (`ledger_didResolve`, DidDocumentRpc) as a DIDComm
 * document (document.ts). A pure mapping; reading the chain is the resolver's business.
 *
 * - Each Ed25519VerificationKey2020 method keeps its id (`<did>#key-1`) as a JsonWebKey2020
 *   Ed25519 method, under `authentication` when the chain lists it there.
 * - For each authentication key, in order, the X25519 key derived from it by the birational map
 *   is added as `<did>#key-x25519-1`, `-2`… under `keyAgreement`. The DID's holder decrypts with
 *   `x25519SecretFromEd25519Seed(seed)` (did-key.ts) of the same seed.
 * - Services: only `type` DIDCommMessaging. On chain `serviceEndpoint` is one string of at most
 *   256 bytes, read as follows (our decision; this comment is its record):
 *     - a string starting with `{` is JSON `{"uri": "...", "routingKeys": ["..."], "accept": ["..."]}`
 *       (`routing_keys` is taken as a synonym of `routingKeys`); this is how a DID names the
 *       mediator keys a sender must wrap Forward messages for;
 *     - any other string is the `uri` itself (an URL, or a mediator's DID), with no routing keys;
 *       it must start with a URI scheme;
 *     - `accept` defaults to `['didcomm/v2']`.
 *   A service whose endpoint does not parse is left out of the DIDComm view (the DID's keys stay
 *   usable); it is still on chain for whoever reads the raw document.
 * - `active: false` (deactivated): DID_DEACTIVATED is thrown; the resolver turns it into null
 *   with that reason.
 */

export const LEDGER_X25519_FRAGMENT = 'key-x25519';

/** an absolute URI starts with its scheme (`https:`, `did:`, `ws:`, `didcomm:`) */
const URI_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/** Reads an on-chain DIDCommMessaging `serviceEndpoint` string; null when it does not parse. */
export function parseLedgerServiceEndpoint(endpoint: string): ServiceEndpointInput | null {
  if (typeof endpoint !== 'string' || endpoint.length === 0) return null;
  const text = endpoint.trim();
  if (!text.startsWith('{') && !text.startsWith('[')) return URI_SCHEME.test(text) ? { uri: text } : null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
  const o = parsed as Record<string, unknown>;
  return { uri: o.uri, accept: o.accept, routingKeys: o.routingKeys ?? o.routing_keys };
}

export function ledgerDidDocument(doc: DidDocumentRpc): DidcommDidDoc {
  if (doc === null || typeof doc !== 'object' || typeof doc.id !== 'string') throw didError('DID_INVALID', 'not a DID document');
  const did = doc.id;
  if (doc.active === false) throw didError('DID_DEACTIVATED', `${did} is deactivated`, { did });
  const methods: JwkVerificationMethod[] = [];
  const edKeys = new Map<string, Uint8Array>();
  for (const vm of doc.verificationMethod ?? []) {
    if (vm?.type !== 'Ed25519VerificationKey2020') continue;
    const id = absoluteId(did, vm.id);
    let publicKey: Uint8Array;
    try {
      publicKey = ed25519PublicKeyFromMultibase(vm.publicKeyMultibase);
    } catch {
      throw didError('DID_INVALID', `${id}: publicKeyMultibase is not an Ed25519 multikey`);
    }
    checkPublicKey('Ed25519', publicKey, id);
    methods.push(jwkMethod(id, absoluteId(did, vm.controller ?? did), 'Ed25519', publicKey));
    edKeys.set(id, publicKey);
  }
  const authentication = (doc.authentication ?? []).map((ref) => absoluteId(did, ref)).filter((id) => edKeys.has(id));
  const keyAgreement: string[] = [];
  for (const [i, id] of authentication.entries()) {
    const x = ed25519ToX25519PublicKey(edKeys.get(id)!);
    const xid = `${did}#${LEDGER_X25519_FRAGMENT}-${i + 1}`;
    methods.push(jwkMethod(xid, did, 'X25519', x));
    keyAgreement.push(xid);
  }
  const service: DidcommService[] = [];
  for (const s of doc.service ?? []) {
    if (s?.type !== 'DIDCommMessaging') continue;
    const ep = parseLedgerServiceEndpoint(s.serviceEndpoint);
    if (!ep) continue;
    try {
      service.push(didcommService(absoluteId(did, s.id), ep, `${did} service ${s.id}`));
    } catch {
      // a malformed endpoint: left out, see above
    }
  }
  const out: DidcommDidDoc = { id: did, verificationMethod: methods, authentication, keyAgreement, service };
  const assertion = (doc.assertionMethod ?? []).map((ref) => absoluteId(did, ref)).filter((id) => edKeys.has(id));
  if (assertion.length > 0) out.assertionMethod = assertion;
  return out;
}
