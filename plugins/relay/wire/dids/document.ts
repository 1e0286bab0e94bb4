import type { DIDDoc } from 'didcomm-node';
import { ed25519 } from '@noble/curves/ed25519.js';
import { base58Decode, base58Encode } from '../../../../node/crypto/base58.js';
import { LedgerError, type ErrorKind } from '../../../../node/errors.js';

/**
 * The DID document shape handed to didcomm-node (0.4.1) through `DIDResolver.resolve`, and the
 * pieces every DID method here shares: typed errors, multikey decoding, OKP JWKs and the
 * DIDCommMessaging service.
 *
 * Shape, as the WASM side reads it (didcomm-rust `src/did/did_doc.rs` at v0.4.1, serde):
 * - every id and every reference is an absolute DID URL (`did:...#frag`): didcomm-rust finds a
 *   key by comparing `vm.id == kid` as strings, so `#key-1` alone would never match a `skid`;
 * - every verification method is `JsonWebKey2020` with a public OKP JWK (`crv` Ed25519 or
 *   X25519), the representation the library round-trips without surprises;
 * - a DIDCommMessaging service endpoint is `{uri, accept, routingKeys}`. The library's
 *   index.d.ts says `routing_keys`, but the Rust struct is `rename_all = "camelCase"` with
 *   `#[serde(default)]`, so `routing_keys` is silently ignored and no Forward wrapping happens
 *   (checked: `pack_encrypted` reports a messaging service only with `routingKeys`). We write both
 *   names with the same array: `routingKeys` for the library, `routing_keys` for the declared
 *   type and for readers that follow it.
 * Documents are plain JSON (no class instances), so they can be structured-cloned into the
 * codec's worker threads.
 */

export type DidErrorCode =
  /** malformed DID, key or embedded document */
  | 'DID_INVALID'
  /** a DID method, peer numalgo or key type this resolver does not handle */
  | 'DID_UNSUPPORTED'
  /** the DID string is over the size cap */
  | 'DID_TOO_LONG'
  /** no such DID (on chain), or a short-form did:peer:4 whose long form was never seen */
  | 'DID_NOT_FOUND'
  /** the on-chain DID is deactivated */
  | 'DID_DEACTIVATED'
  /** a did:ledger of another network */
  | 'DID_WRONG_NETWORK'
  /** the chain read failed (not the DID's fault; not cached) */
  | 'DID_RESOLUTION_FAILED';

const KIND: Record<DidErrorCode, ErrorKind> = {
  DID_INVALID: 'invalid',
  DID_UNSUPPORTED: 'invalid',
  DID_TOO_LONG: 'limit',
  DID_NOT_FOUND: 'not_found',
  DID_DEACTIVATED: 'not_found',
  DID_WRONG_NETWORK: 'invalid',
  DID_RESOLUTION_FAILED: 'internal',
};

export function didError(code: DidErrorCode, message: string, data: Record<string, unknown> = {}): LedgerError {
  return new LedgerError(code, message, KIND[code], data);
}

export type OkpCurve = 'Ed25519' | 'X25519';

export interface OkpJwk {
  kty: 'OKP';
  crv: OkpCurve;
  /** base64url (no padding) of the 32-byte public key */
  x: string;
}

export interface JwkVerificationMethod {
  id: string;
  type: 'JsonWebKey2020';
  controller: string;
  publicKeyJwk: OkpJwk;
}

export interface DidcommServiceEndpoint {
  uri: string;
  accept: string[];
  /** what didcomm-node 0.4.1 actually reads */
  routingKeys: string[];
  /** what its index.d.ts declares; the same array */
  routing_keys: string[];
}

export interface DidcommService {
  id: string;
  type: 'DIDCommMessaging';
  serviceEndpoint: DidcommServiceEndpoint;
}

/** A DID document in the shape didcomm-node's `DIDResolver.resolve` returns. */
export interface DidcommDidDoc {
  id: string;
  verificationMethod: JwkVerificationMethod[];
  authentication: string[];
  keyAgreement: string[];
  /** not read by didcomm-node; kept where the method defines it (did:key) */
  assertionMethod?: string[];
  service: DidcommService[];
}

// Compile-time check that our shape is what didcomm-node declares.
const asDidcomm = (doc: DidcommDidDoc): DIDDoc => doc;
void asDidcomm;

// ---- multikey (multibase base58btc of multicodec varint || key) ----

export const MULTICODEC_ED25519_PUB = 0xed;
export const MULTICODEC_X25519_PUB = 0xec;

const CURVE_OF_CODEC = new Map<number, OkpCurve>([
  [MULTICODEC_ED25519_PUB, 'Ed25519'],
  [MULTICODEC_X25519_PUB, 'X25519'],
]);

/** key multicodecs we recognize but do not handle, named in the DID_UNSUPPORTED error */
const UNSUPPORTED_CODECS = new Map<number, string>([
  [0xe7, 'secp256k1-pub'],
  [0xea, 'bls12_381-g1-pub'],
  [0xeb, 'bls12_381-g2-pub'],
  [0x1200, 'p256-pub'],
  [0x1201, 'p384-pub'],
  [0x1202, 'p521-pub'],
  [0x1203, 'ed448-pub'],
  [0x1204, 'x448-pub'],
  [0x1205, 'rsa-pub'],
]);

function varint(code: number): Uint8Array {
  const out: number[] = [];
  let v = code;
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return Uint8Array.from(out);
}

/** Reads an unsigned varint (at most 3 bytes, enough for every multicodec we meet). */
export function readVarint(bytes: Uint8Array, what: string): { code: number; length: number } {
  let code = 0;
  for (let i = 0; i < 3 && i < bytes.length; i++) {
    const b = bytes[i]!;
    code |= (b & 0x7f) << (7 * i);
    if ((b & 0x80) === 0) return { code, length: i + 1 };
  }
  throw didError('DID_INVALID', `${what}: bad multicodec prefix`);
}

export function fromBase58btc(value: string, what: string): Uint8Array {
  if (typeof value !== 'string' || !value.startsWith('z') || value.length < 2) {
    throw didError('DID_INVALID', `${what} must be multibase base58btc (starting with z)`);
  }
  try {
    return base58Decode(value.slice(1));
  } catch {
    throw didError('DID_INVALID', `${what} is not valid base58btc`);
  }
}

export function toBase58btc(bytes: Uint8Array): string {
  return 'z' + base58Encode(bytes);
}

/** `z` + base58btc(multicodec varint || 32-byte key): the did:key / Multikey form. */
export function encodeMultikey(curve: OkpCurve, publicKey: Uint8Array): string {
  checkKeyLength(publicKey, curve);
  const prefix = varint(curve === 'Ed25519' ? MULTICODEC_ED25519_PUB : MULTICODEC_X25519_PUB);
  const bytes = new Uint8Array(prefix.length + publicKey.length);
  bytes.set(prefix);
  bytes.set(publicKey, prefix.length);
  return toBase58btc(bytes);
}

/** Decodes a multikey; other key types are DID_UNSUPPORTED, a bad encoding or key DID_INVALID. */
export function decodeMultikey(value: string, what = 'key'): { curve: OkpCurve; publicKey: Uint8Array } {
  const bytes = fromBase58btc(value, what);
  const { code, length } = readVarint(bytes, what);
  const curve = CURVE_OF_CODEC.get(code);
  if (!curve) {
    const name = UNSUPPORTED_CODECS.get(code);
    throw didError('DID_UNSUPPORTED', `${what}: multicodec 0x${code.toString(16)}${name ? ` (${name})` : ''} is not supported; only Ed25519 (0xed) and X25519 (0xec) keys are`, {
      multicodec: `0x${code.toString(16)}`,
    });
  }
  const publicKey = bytes.slice(length);
  checkPublicKey(curve, publicKey, what);
  return { curve, publicKey };
}

function checkKeyLength(publicKey: Uint8Array, curve: OkpCurve, what = 'key'): void {
  if (!(publicKey instanceof Uint8Array) || publicKey.length !== 32) {
    throw didError('DID_INVALID', `${what}: an ${curve} public key is 32 bytes`);
  }
}

/**
 * Length for both curves; for Ed25519 also that the bytes decode to a curve point of large
 * order, since an X25519 key is derived from it and a small-order point gives a known secret.
 */
export function checkPublicKey(curve: OkpCurve, publicKey: Uint8Array, what = 'key'): void {
  checkKeyLength(publicKey, curve, what);
  if (curve === 'X25519') {
    if (publicKey.every((b) => b === 0)) throw didError('DID_INVALID', `${what}: the all-zero X25519 key is not allowed`);
    return;
  }
  let ok = false;
  try {
    ok = !ed25519.Point.fromBytes(publicKey).isSmallOrder();
  } catch {
    ok = false;
  }
  if (!ok) throw didError('DID_INVALID', `${what}: not a valid Ed25519 public key`);
}

/** The Ed25519 → X25519 birational map of a public key (RFC 7748 §4.1, libsodium's pk_to_curve25519). */
export function ed25519ToX25519PublicKey(publicKey: Uint8Array): Uint8Array {
  checkPublicKey('Ed25519', publicKey);
  return Uint8Array.from(ed25519.utils.toMontgomery(publicKey));
}

// ---- JWK ----

export function okpJwk(curve: OkpCurve, publicKey: Uint8Array): OkpJwk {
  return { kty: 'OKP', crv: curve, x: Buffer.from(publicKey).toString('base64url') };
}

/** Reads a public OKP JWK (Ed25519 / X25519); private members are never copied. */
export function publicKeyFromJwk(jwk: unknown, what = 'publicKeyJwk'): { curve: OkpCurve; publicKey: Uint8Array } {
  if (jwk === null || typeof jwk !== 'object' || Array.isArray(jwk)) throw didError('DID_INVALID', `${what} must be an object`);
  const j = jwk as Record<string, unknown>;
  if (j.kty !== 'OKP' || (j.crv !== 'Ed25519' && j.crv !== 'X25519')) {
    throw didError('DID_UNSUPPORTED', `${what}: only OKP Ed25519 and X25519 keys are supported`, { kty: String(j.kty), crv: String(j.crv) });
  }
  if (typeof j.x !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(j.x)) throw didError('DID_INVALID', `${what}.x must be base64url of 32 bytes`);
  const publicKey = Uint8Array.from(Buffer.from(j.x, 'base64url'));
  checkPublicKey(j.crv, publicKey, what);
  return { curve: j.crv, publicKey };
}

export function jwkMethod(id: string, controller: string, curve: OkpCurve, publicKey: Uint8Array): JwkVerificationMethod {
  return { id, type: 'JsonWebKey2020', controller, publicKeyJwk: okpJwk(curve, publicKey) };
}

// ---- ids and services ----

/** `#frag` → `<did>#frag`; an absolute DID URL stays; a bare fragment gets `<did>#`. */
export function absoluteId(did: string, ref: string): string {
  if (ref.startsWith('#')) return did + ref;
  if (ref.startsWith('did:')) return ref;
  return `${did}#${ref}`;
}

const MAX_URI = 2048;
const MAX_LIST = 16;
const MAX_ROUTING_KEY = 4096;

function stringList(value: unknown, what: string, maxItem: number): string[] {
  if (!Array.isArray(value) || value.length > MAX_LIST) throw didError('DID_INVALID', `${what} must be an array of at most ${MAX_LIST} strings`);
  for (const v of value) {
    if (typeof v !== 'string' || v.length === 0 || v.length > maxItem) throw didError('DID_INVALID', `${what} must hold non-empty strings of at most ${maxItem} characters`);
  }
  return [...(value as string[])];
}

export interface ServiceEndpointInput {
  uri: unknown;
  accept?: unknown;
  routingKeys?: unknown;
}

/**
 * A DIDCommMessaging service, checked. `uri` is any non-empty URI without whitespace (an URL, a
 * mediator's DID, or `didcomm:transport/queue`). A missing `accept` becomes `['didcomm/v2']`: the
 * type DIDCommMessaging is the DIDComm v2 service, and didcomm-node treats a missing list as
 * "accepts v2" anyway.
 */
export function didcommService(id: string, ep: ServiceEndpointInput, what = 'service'): DidcommService {
  const uri = ep.uri;
  if (typeof uri !== 'string' || uri.length === 0 || uri.length > MAX_URI || /\s/.test(uri)) {
    throw didError('DID_INVALID', `${what}: serviceEndpoint uri must be a non-empty URI of at most ${MAX_URI} characters`);
  }
  const accept = ep.accept === undefined || ep.accept === null ? ['didcomm/v2'] : stringList(ep.accept, `${what}: accept`, 128);
  const routingKeys = ep.routingKeys === undefined || ep.routingKeys === null ? [] : stringList(ep.routingKeys, `${what}: routingKeys`, MAX_ROUTING_KEY);
  return { id, type: 'DIDCommMessaging', serviceEndpoint: { uri, accept, routingKeys, routing_keys: [...routingKeys] } };
}

/** Freezes a document and everything in it; resolvers hand out one shared object per DID. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as object)) deepFreeze(v);
  }
  return value;
}
