import type { DIDDoc } from 'didcomm-node';
import { base58 } from '@scure/base';

/**
 * did:peer:2 (https://identity.foundation/peer-did-method-spec/, numalgo 2) resolved into the
 * DID document shape didcomm-node reads, so that a didcomm-node agent can talk to the Identus
 * agents' DIDs. Written from the spec, independent of both the SDK and the relay:
 * - `.E<multikey>` is a keyAgreement key, `.V<multikey>` an authentication key (`.A`, `.I`, `.D`
 *   are verification methods too, under no relationship didcomm uses); keys are `#key-1`,
 *   `#key-2`, … in the order they appear in the DID;
 * - `.S<base64url(JSON)>` holds one service or a list of them, abbreviated (`t`: type, `dm`:
 *   DIDCommMessaging, `s`: serviceEndpoint, `r`: routingKeys, `a`: accept); the first service is
 *   `#service`, the next ones `#service-1`, `#service-2`, …; the legacy form has a string `s` with
 *   `r` and `a` beside it.
 */

const CURVES: Record<string, 'X25519' | 'Ed25519'> = { ec01: 'X25519', ed01: 'Ed25519' };

function decodeMultikey(mb: string, did: string): { crv: 'X25519' | 'Ed25519'; x: string } {
  if (!mb.startsWith('z')) throw new Error(`${did}: ${mb} is not base58btc multibase`);
  const bytes = base58.decode(mb.slice(1));
  const crv = CURVES[Buffer.from(bytes.slice(0, 2)).toString('hex')];
  if (!crv || bytes.length !== 34) throw new Error(`${did}: ${mb} is not an X25519 or Ed25519 multikey`);
  return { crv, x: Buffer.from(bytes.slice(2)).toString('base64url') };
}

type Abbreviated = { t?: string; type?: string; s?: unknown; serviceEndpoint?: unknown; r?: string[]; a?: string[]; id?: string };

function expandService(raw: Abbreviated, id: string): DIDDoc['service'][number] {
  const type = raw.t ?? raw.type;
  const ep = (raw.s ?? raw.serviceEndpoint) as string | { uri?: string; a?: string[]; r?: string[]; accept?: string[]; routingKeys?: string[] } | undefined;
  let uri: string | undefined;
  let accept: string[] | undefined;
  let routingKeys: string[] | undefined;
  if (typeof ep === 'string') {
    uri = ep;
    accept = raw.a;
    routingKeys = raw.r;
  } else if (ep && typeof ep === 'object') {
    uri = ep.uri;
    accept = ep.a ?? ep.accept;
    routingKeys = ep.r ?? ep.routingKeys;
  }
  if ((type !== 'dm' && type !== 'DIDCommMessaging') || typeof uri !== 'string') throw new Error(`a did:peer:2 service must be DIDCommMessaging with a uri: ${JSON.stringify(raw)}`);
  // routingKeys for didcomm-node (its Rust struct is camelCase), routing_keys for its declared type
  return { id, type: 'DIDCommMessaging', serviceEndpoint: { uri, accept: accept ?? [], routingKeys: routingKeys ?? [], routing_keys: routingKeys ?? [] } };
}

export function resolvePeer2(did: string): DIDDoc {
  if (!did.startsWith('did:peer:2.')) throw new Error(`${did} is not a did:peer:2`);
  const doc: DIDDoc = { id: did, verificationMethod: [], authentication: [], keyAgreement: [], service: [] };
  let n = 0;
  for (const element of did.slice('did:peer:2.'.length).split('.')) {
    const purpose = element[0];
    const value = element.slice(1);
    if (purpose === 'S') {
      const json = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as Abbreviated | Abbreviated[];
      for (const raw of Array.isArray(json) ? json : [json]) {
        const at = doc.service.length;
        doc.service.push(expandService(raw, `${did}#service${at === 0 ? '' : `-${at}`}`));
      }
      continue;
    }
    if (!purpose || !'AEVID'.includes(purpose)) throw new Error(`${did}: unknown element purpose ${purpose}`);
    const id = `${did}#key-${++n}`;
    const { crv, x } = decodeMultikey(value, did);
    doc.verificationMethod.push({ id, type: 'JsonWebKey2020', controller: did, publicKeyJwk: { kty: 'OKP', crv, x } });
    if (purpose === 'E') {
      if (crv !== 'X25519') throw new Error(`${did}: an .E key must be X25519`);
      doc.keyAgreement.push(id);
    }
    if (purpose === 'V') doc.authentication.push(id);
  }
  return doc;
}
