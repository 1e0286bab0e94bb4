import { createHash } from 'node:crypto';
import { keyDocument } from './did-key.js';
import {
  absoluteId,
  decodeMultikey,
  didcommService,
  didError,
  fromBase58btc,
  jwkMethod,
  publicKeyFromJwk,
  readVarint,
  toBase58btc,
  checkPublicKey,
  type DidcommDidDoc,
  type DidcommService,
  type JwkVerificationMethod,
  type OkpCurve,
} from './document.js';
import { base58Decode } from '../../../../node/crypto/base58.js';
import { isLedgerError } from '../../../../node/errors.js';

/**
 * did:peer (DIF Peer DID Method Specification), numalgo 0, 2 and 4, in the DIDComm shape
 * (document.ts). All three are resolved from the DID string alone, except a short-form
 * did:peer:4, which needs its long form to have been seen before (PeerDid4Store).
 *
 * Choices:
 * - Key ids are absolute: `<did>#key-1`, `<did>#key-2`… numbered over the key elements in order of
 *   appearance (the spec's `#key-N`; stock Hyperledger Identus agents resolve their own
 *   `.E….V….S…` DIDs to the same ids, so their `skid` matches).
 * - Service ids: `<did>#service`, `<did>#service-1`… for services without an `id`, counted over
 *   every service in order (several `.S` elements, and several entries in one `.S`).
 * - `.S` may hold one service object or, in the legacy form Identus agents produce when they
 *   have more than one service, a JSON list of them; both are read. A serviceEndpoint may be a
 *   URI string (with `r`/`a` beside it, the 2021 form) or an object `{uri, a, r}`.
 * - Only DIDCommMessaging services are kept (others are counted for ids, then dropped); key
 *   types other than Ed25519 and X25519 are skipped likewise. A DID left with no usable key is
 *   DID_UNSUPPORTED. At most 16 keys and 16 services (DID_INVALID beyond): each key costs a
 *   point decompression and a method that repeats the whole DID.
 */

const PEER_PREFIX = 'did:peer:';
/** the cap on a did:peer:2 or long-form did:peer:4 string */
export const MAX_LONG_PEER_DID = 4096;
const MAX_SHORT_DID = 128;
const MAX_SERVICES = 16;
/** keys per DID: real agents use two or three; more only costs us CPU and memory */
const MAX_KEYS = 16;

type KeyRelationship = 'authentication' | 'keyAgreement' | 'assertionMethod' | 'capabilityInvocation' | 'capabilityDelegation';

const PURPOSE: Record<string, KeyRelationship | 'service'> = {
  A: 'assertionMethod',
  E: 'keyAgreement',
  V: 'authentication',
  I: 'capabilityInvocation',
  D: 'capabilityDelegation',
  S: 'service',
};

// ---- building blocks shared by numalgo 2 and 4 ----

class DocBuilder {
  readonly methods: JwkVerificationMethod[] = [];
  readonly authentication: string[] = [];
  readonly keyAgreement: string[] = [];
  readonly assertionMethod: string[] = [];
  readonly service: DidcommService[] = [];
  private unnamedServices = 0;
  private servicesSeen = 0;
  private keysSeen = 0;
  skippedKeys = 0;

  constructor(readonly did: string) {}

  /** Called once per key in the DID, usable or not. */
  countKey(): void {
    if (++this.keysSeen > MAX_KEYS) throw didError('DID_INVALID', `more than ${MAX_KEYS} keys`);
  }

  addMethod(id: string, controller: string, curve: OkpCurve, publicKey: Uint8Array): void {
    if (this.methods.some((m) => m.id === id)) throw didError('DID_INVALID', `verification method ${id.slice(id.indexOf('#'))} appears twice`);
    this.methods.push(jwkMethod(id, controller, curve, publicKey));
  }

  relate(relationship: KeyRelationship, id: string): void {
    if (!this.methods.some((m) => m.id === id)) return; // a skipped key, or a reference to nothing
    if (relationship === 'authentication' || relationship === 'keyAgreement' || relationship === 'assertionMethod') {
      if (!this[relationship].includes(id)) this[relationship].push(id);
    }
  }

  /** `raw` is a service with its names already expanded. */
  addService(raw: unknown, what: string): void {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw didError('DID_INVALID', `${what} must be a JSON object`);
    if (++this.servicesSeen > MAX_SERVICES) throw didError('DID_INVALID', `more than ${MAX_SERVICES} services`);
    const s = raw as Record<string, unknown>;
    let id: string;
    if (typeof s.id === 'string' && s.id.length > 0) id = absoluteId(this.did, s.id);
    else {
      id = `${this.did}#service${this.unnamedServices === 0 ? '' : `-${this.unnamedServices}`}`;
      this.unnamedServices++;
    }
    const isDidcomm = s.type === 'DIDCommMessaging' || (Array.isArray(s.type) && s.type.includes('DIDCommMessaging'));
    if (!isDidcomm) return;
    let ep = s.serviceEndpoint;
    if (Array.isArray(ep)) ep = ep[0];
    if (typeof ep === 'string') this.service.push(didcommService(id, { uri: ep, accept: s.accept, routingKeys: s.routingKeys }, what));
    else if (ep !== null && typeof ep === 'object') {
      const o = ep as Record<string, unknown>;
      this.service.push(didcommService(id, { uri: o.uri, accept: o.accept, routingKeys: o.routingKeys }, what));
    } else throw didError('DID_INVALID', `${what} has no serviceEndpoint`);
  }

  build(id: string): DidcommDidDoc {
    if (this.authentication.length === 0 && this.keyAgreement.length === 0) {
      throw didError('DID_UNSUPPORTED', 'the DID has no Ed25519 or X25519 key for authentication or key agreement', { skippedKeys: this.skippedKeys });
    }
    const doc: DidcommDidDoc = {
      id,
      verificationMethod: this.methods,
      authentication: this.authentication,
      keyAgreement: this.keyAgreement,
      service: this.service,
    };
    if (this.assertionMethod.length > 0) doc.assertionMethod = this.assertionMethod;
    return doc;
  }
}

/** Runs `fn`; a DID_UNSUPPORTED key is skipped (returns false), anything else is thrown. */
function skipUnsupported(b: DocBuilder, fn: () => void): boolean {
  try {
    fn();
    return true;
  } catch (err) {
    if (isLedgerError(err) && err.code === 'DID_UNSUPPORTED') {
      b.skippedKeys++;
      return false;
    }
    throw err;
  }
}

// ---- numalgo 0 ----

/** did:peer:0 is did:key with another DID: `did:peer:0z6Mk…` resolves like `did:key:z6Mk…`. */
export function peerDid0Document(did: string): DidcommDidDoc {
  if (!did.startsWith(`${PEER_PREFIX}0z`)) throw didError('DID_INVALID', 'not a did:peer:0');
  if (did.length > MAX_SHORT_DID) throw didError('DID_TOO_LONG', `a did:peer:0 is at most ${MAX_SHORT_DID} characters`);
  const multibase = did.slice(PEER_PREFIX.length + 1);
  if (!/^z[1-9A-HJ-NP-Za-km-z]+$/.test(multibase)) throw didError('DID_INVALID', `${did} is not did:peer:0z<base58btc>`);
  return keyDocument(did, multibase);
}

// ---- numalgo 2 ----

const ABBREVIATIONS: Record<string, string> = { t: 'type', s: 'serviceEndpoint', r: 'routingKeys', a: 'accept' };

function expandKeys(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[ABBREVIATIONS[k] ?? k] = v;
  return out;
}

/** Expands the spec's abbreviations in one service object and in its serviceEndpoint. */
export function expandPeerService(raw: unknown): unknown {
  const s = expandKeys(raw);
  if (s === null || typeof s !== 'object' || Array.isArray(s)) return s;
  const o = s as Record<string, unknown>;
  if (o.type === 'dm') o.type = 'DIDCommMessaging';
  if (Array.isArray(o.type)) o.type = o.type.map((t) => (t === 'dm' ? 'DIDCommMessaging' : t));
  o.serviceEndpoint = Array.isArray(o.serviceEndpoint) ? o.serviceEndpoint.map(expandKeys) : expandKeys(o.serviceEndpoint);
  return o;
}

/**
 * The services of one `.S` element: one object, or (legacy, Identus) a JSON list of them. An
 * empty list (`.SW10`) is what stock Identus agents put in the DID they mediate with.
 */
export function decodePeerServiceElement(value: string, what = 'did:peer:2 service'): unknown[] {
  if (!/^[A-Za-z0-9_-]+={0,2}$/.test(value)) throw didError('DID_INVALID', `${what} is not base64url`);
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(value.replace(/=+$/, ''), 'base64url').toString('utf8'));
  } catch {
    throw didError('DID_INVALID', `${what} is not base64url-encoded JSON`);
  }
  const list = Array.isArray(json) ? json : [json];
  if ((!Array.isArray(json) && list.length === 0) || list.length > MAX_SERVICES) throw didError('DID_INVALID', `${what} must hold at most ${MAX_SERVICES} services`);
  return list.map(expandPeerService);
}

export function peerDid2Document(did: string): DidcommDidDoc {
  const prefix = `${PEER_PREFIX}2`;
  if (typeof did !== 'string' || !did.startsWith(prefix)) throw didError('DID_INVALID', 'not a did:peer:2');
  if (did.length > MAX_LONG_PEER_DID) throw didError('DID_TOO_LONG', `a did:peer:2 is at most ${MAX_LONG_PEER_DID} characters`);
  const body = did.slice(prefix.length);
  if (!/^(\.[A-Za-z][A-Za-z0-9_=-]+)+$/.test(body)) throw didError('DID_INVALID', 'a did:peer:2 is did:peer:2 followed by .<purpose><value> elements');
  const b = new DocBuilder(did);
  let keyNumber = 0;
  for (const element of body.slice(1).split('.')) {
    const purpose = PURPOSE[element[0]!];
    const value = element.slice(1);
    if (purpose === undefined) throw didError('DID_INVALID', `did:peer:2 purpose code ${JSON.stringify(element[0])} is not one of A, E, V, I, D, S`);
    if (purpose === 'service') {
      for (const [i, s] of decodePeerServiceElement(value).entries()) b.addService(s, `did:peer:2 service element ${i}`);
      continue;
    }
    const id = `${did}#key-${++keyNumber}`;
    b.countKey();
    skipUnsupported(b, () => {
      const { curve, publicKey } = decodeMultikey(value, `did:peer:2 key ${keyNumber}`);
      b.addMethod(id, did, curve, publicKey);
      b.relate(purpose, id);
    });
  }
  return b.build(did);
}

/** Encodes a did:peer:2 from keys and (unabbreviated) services; the inverse of the above. */
export function encodePeerDid2(
  keys: Array<{ purpose: 'A' | 'E' | 'V' | 'I' | 'D'; publicKeyMultibase: string }>,
  services: Array<{ type: string; serviceEndpoint: string | { uri: string; accept?: string[]; routingKeys?: string[] } }> = [],
): string {
  const abbreviate = (s: (typeof services)[number]) => {
    const ep = s.serviceEndpoint;
    const se = typeof ep === 'string' ? ep : { uri: ep.uri, ...(ep.accept ? { a: ep.accept } : {}), ...(ep.routingKeys ? { r: ep.routingKeys } : {}) };
    return { t: s.type === 'DIDCommMessaging' ? 'dm' : s.type, s: se };
  };
  const parts = keys.map((k) => `.${k.purpose}${k.publicKeyMultibase}`);
  for (const s of services) parts.push(`.S${Buffer.from(JSON.stringify(abbreviate(s))).toString('base64url')}`);
  return `${PEER_PREFIX}2${parts.join('')}`;
}

// ---- numalgo 4 ----

/** multicodec `json` (0x0200) as a varint */
const JSON_CODEC = 0x0200;
const JSON_CODEC_VARINT = Uint8Array.of(0x80, 0x04);
/** multihash sha2-256, 32 bytes */
const SHA256_MULTIHASH = Uint8Array.of(0x12, 0x20);

function peer4Hash(encodedDocument: string): string {
  const digest = createHash('sha256').update(encodedDocument, 'utf8').digest();
  const bytes = new Uint8Array(34);
  bytes.set(SHA256_MULTIHASH);
  bytes.set(digest, 2);
  return toBase58btc(bytes);
}

/** Builds a did:peer:4 from an input document (relative ids, no `id`), as the spec's "Creating a DID". */
export function encodePeerDid4(inputDocument: Record<string, unknown>): { longForm: string; shortForm: string } {
  const json = Buffer.from(JSON.stringify(inputDocument), 'utf8');
  const bytes = new Uint8Array(JSON_CODEC_VARINT.length + json.length);
  bytes.set(JSON_CODEC_VARINT);
  bytes.set(json, JSON_CODEC_VARINT.length);
  const encoded = toBase58btc(bytes);
  const shortForm = `${PEER_PREFIX}4${peer4Hash(encoded)}`;
  return { shortForm, longForm: `${shortForm}:${encoded}` };
}

/**
 * Short form → encoded document of the long forms seen so far, bounded (least recently used out
 * first), so that a peer may switch to its short form after the first message.
 */
export class PeerDid4Store {
  private readonly map = new Map<string, string>();
  constructor(readonly maxEntries = 1000) {}

  remember(shortForm: string, encodedDocument: string): void {
    this.map.delete(shortForm);
    this.map.set(shortForm, encodedDocument);
    while (this.map.size > this.maxEntries) this.map.delete(this.map.keys().next().value!);
  }

  get(shortForm: string): string | undefined {
    const v = this.map.get(shortForm);
    if (v !== undefined) {
      this.map.delete(shortForm);
      this.map.set(shortForm, v);
    }
    return v;
  }

  get size(): number {
    return this.map.size;
  }
}

export interface ParsedPeerDid4 {
  shortForm: string;
  /** present for a long form */
  encodedDocument: string | undefined;
}

export function parsePeerDid4(did: string): ParsedPeerDid4 {
  const prefix = `${PEER_PREFIX}4`;
  if (typeof did !== 'string' || !did.startsWith(prefix)) throw didError('DID_INVALID', 'not a did:peer:4');
  const rest = did.slice(prefix.length);
  const colon = rest.indexOf(':');
  const hash = colon === -1 ? rest : rest.slice(0, colon);
  if (colon === -1 && did.length > MAX_SHORT_DID) throw didError('DID_TOO_LONG', `a short-form did:peer:4 is at most ${MAX_SHORT_DID} characters`);
  if (did.length > MAX_LONG_PEER_DID) throw didError('DID_TOO_LONG', `a did:peer:4 is at most ${MAX_LONG_PEER_DID} characters`);
  if (!/^z[1-9A-HJ-NP-Za-km-z]{40,60}$/.test(hash)) throw didError('DID_INVALID', 'a did:peer:4 hash is a base58btc multihash');
  const mh = fromBase58btc(hash, 'did:peer:4 hash');
  if (mh.length !== 34 || mh[0] !== 0x12 || mh[1] !== 0x20) throw didError('DID_INVALID', 'a did:peer:4 hash must be a sha2-256 multihash');
  const shortForm = `${prefix}${hash}`;
  if (colon === -1) return { shortForm, encodedDocument: undefined };
  const encodedDocument = rest.slice(colon + 1);
  if (!/^z[1-9A-HJ-NP-Za-km-z]+$/.test(encodedDocument)) throw didError('DID_INVALID', 'a did:peer:4 document is multibase base58btc');
  if (peer4Hash(encodedDocument) !== hash) throw didError('DID_INVALID', 'the did:peer:4 hash does not match its document', { shortForm });
  return { shortForm, encodedDocument };
}

function decodePeer4Document(encodedDocument: string): Record<string, unknown> {
  const bytes = fromBase58btc(encodedDocument, 'did:peer:4 document');
  const { code, length } = readVarint(bytes, 'did:peer:4 document');
  if (code !== JSON_CODEC) throw didError('DID_INVALID', `a did:peer:4 document must have the json multicodec (0x0200), not 0x${code.toString(16)}`);
  let doc: unknown;
  try {
    doc = JSON.parse(Buffer.from(bytes.subarray(length)).toString('utf8'));
  } catch {
    throw didError('DID_INVALID', 'the did:peer:4 document is not JSON');
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) throw didError('DID_INVALID', 'the did:peer:4 document is not a JSON object');
  return doc as Record<string, unknown>;
}

const RAW_KEY_TYPES: Record<string, OkpCurve> = {
  Ed25519VerificationKey2018: 'Ed25519',
  Ed25519VerificationKey2020: 'Ed25519',
  X25519KeyAgreementKey2019: 'X25519',
  X25519KeyAgreementKey2020: 'X25519',
};

/** The key of one verification method of a did:peer:4 document, in any of the common forms. */
function methodKey(vm: Record<string, unknown>, what: string): { curve: OkpCurve; publicKey: Uint8Array } {
  if (vm.publicKeyJwk !== undefined) return publicKeyFromJwk(vm.publicKeyJwk, `${what}.publicKeyJwk`);
  if (typeof vm.publicKeyMultibase === 'string') return decodeMultikey(vm.publicKeyMultibase, `${what}.publicKeyMultibase`);
  if (typeof vm.publicKeyBase58 === 'string') {
    const curve = RAW_KEY_TYPES[String(vm.type)];
    if (!curve) throw didError('DID_UNSUPPORTED', `${what}: publicKeyBase58 of type ${String(vm.type)} is not supported`);
    let publicKey: Uint8Array;
    try {
      publicKey = base58Decode(vm.publicKeyBase58);
    } catch {
      throw didError('DID_INVALID', `${what}.publicKeyBase58 is not base58`);
    }
    checkPublicKey(curve, publicKey, what);
    return { curve, publicKey };
  }
  throw didError('DID_UNSUPPORTED', `${what}: no publicKeyJwk, publicKeyMultibase or publicKeyBase58`);
}

/** Contextualizes a decoded input document with `did` (long or short form). */
function peer4Document(did: string, input: Record<string, unknown>): DidcommDidDoc {
  const b = new DocBuilder(did);
  const relationships: KeyRelationship[] = ['authentication', 'keyAgreement', 'assertionMethod', 'capabilityInvocation', 'capabilityDelegation'];
  const addVm = (raw: unknown, what: string): string => {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw didError('DID_INVALID', `${what} must be an object`);
    const vm = raw as Record<string, unknown>;
    if (typeof vm.id !== 'string' || vm.id.length === 0) throw didError('DID_INVALID', `${what} has no id`);
    const id = absoluteId(did, vm.id);
    const controller = typeof vm.controller === 'string' && vm.controller.length > 0 ? vm.controller : did;
    b.countKey();
    skipUnsupported(b, () => {
      const { curve, publicKey } = methodKey(vm, what);
      b.addMethod(id, controller, curve, publicKey);
    });
    return id;
  };
  const list = (v: unknown, what: string): unknown[] => {
    if (v === undefined) return [];
    if (!Array.isArray(v) || v.length > 64) throw didError('DID_INVALID', `${what} must be an array of at most 64 entries`);
    return v;
  };
  for (const [i, vm] of list(input.verificationMethod, 'verificationMethod').entries()) addVm(vm, `verificationMethod[${i}]`);
  for (const rel of relationships) {
    for (const [i, ref] of list(input[rel], rel).entries()) {
      if (typeof ref === 'string') b.relate(rel, absoluteId(did, ref));
      else b.relate(rel, addVm(ref, `${rel}[${i}]`));
    }
  }
  for (const [i, s] of list(input.service, 'service').entries()) b.addService(s, `service[${i}]`);
  return b.build(did);
}

/**
 * A did:peer:4 document. A long form is checked against its hash and remembered in `store`; a
 * short form resolves only from `store` (DID_NOT_FOUND otherwise). The document's id is the DID
 * as asked (long or short).
 */
export function peerDid4Document(did: string, store?: PeerDid4Store): DidcommDidDoc {
  const { shortForm, encodedDocument } = parsePeerDid4(did);
  let encoded = encodedDocument;
  if (encoded === undefined) {
    encoded = store?.get(shortForm);
    if (encoded === undefined) throw didError('DID_NOT_FOUND', `short-form ${shortForm} is unknown: its long form has not been seen`, { shortForm });
  }
  const doc = peer4Document(did, decodePeer4Document(encoded));
  if (encodedDocument !== undefined) store?.remember(shortForm, encodedDocument);
  return doc;
}

/** did:peer:0, :2 or :4; other numalgos are DID_UNSUPPORTED. */
export function peerDidDocument(did: string, store?: PeerDid4Store): DidcommDidDoc {
  if (typeof did !== 'string' || !did.startsWith(PEER_PREFIX)) throw didError('DID_INVALID', 'not a did:peer');
  const numalgo = did[PEER_PREFIX.length];
  switch (numalgo) {
    case '0':
      return peerDid0Document(did);
    case '2':
      return peerDid2Document(did);
    case '4':
      return peerDid4Document(did, store);
    default:
      throw didError('DID_UNSUPPORTED', `did:peer numalgo ${JSON.stringify(numalgo ?? '')} is not supported (0, 2 and 4 are)`);
  }
}
