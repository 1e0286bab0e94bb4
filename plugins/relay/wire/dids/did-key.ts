import type { Secret } from 'didcomm-node';
import { ed25519 } from '@noble/curves/ed25519.js';
import {
  decodeMultikey,
  didError,
  ed25519ToX25519PublicKey,
  encodeMultikey,
  jwkMethod,
  okpJwk,
  type DidcommDidDoc,
  type OkpCurve,
} from './document.js';

/**
 * did:key (W3C CCG "The did:key Method") for Ed25519 (`z6Mk…`, multicodec 0xed01) and X25519
 * (`z6LS…`, 0xec01), in the DIDComm shape (document.ts).
 *
 * Ed25519: one Ed25519 method `<did>#<mb>` under `authentication` and `assertionMethod`, and the
 * X25519 key derived from it by the birational map, `<did>#<mb of ec01||x25519>`, under
 * `keyAgreement`. X25519: one method `<did>#<mb>`, `keyAgreement` only. The ids are the spec's,
 * whatever the representation (we use JsonWebKey2020).
 */

export const DID_KEY_PREFIX = 'did:key:';
/** a did:key is `did:key:z` + about 47 base58 characters; anything this long is not one */
const MAX_DID_KEY = 128;

export interface ParsedDidKey {
  did: string;
  /** the method-specific id, `z6Mk…` or `z6LS…` */
  multibase: string;
  curve: OkpCurve;
  publicKey: Uint8Array;
}

export function parseDidKey(did: string): ParsedDidKey {
  if (typeof did !== 'string' || !did.startsWith(DID_KEY_PREFIX)) throw didError('DID_INVALID', 'not a did:key');
  if (did.length > MAX_DID_KEY) throw didError('DID_TOO_LONG', `a did:key is at most ${MAX_DID_KEY} characters`);
  const multibase = did.slice(DID_KEY_PREFIX.length);
  if (!/^z[1-9A-HJ-NP-Za-km-z]+$/.test(multibase)) throw didError('DID_INVALID', `${did} is not did:key:z<base58btc>`);
  const { curve, publicKey } = decodeMultikey(multibase, did);
  return { did, multibase, curve, publicKey };
}

/**
 * The document of a key identified by `multibase`, under the DID `controllerDid` (a did:key, or a
 * did:peer:0, which resolves the same way with its own DID).
 */
export function keyDocument(controllerDid: string, multibase: string): DidcommDidDoc {
  const { curve, publicKey } = decodeMultikey(multibase, controllerDid);
  const keyId = `${controllerDid}#${multibase}`;
  if (curve === 'X25519') {
    return { id: controllerDid, verificationMethod: [jwkMethod(keyId, controllerDid, 'X25519', publicKey)], authentication: [], keyAgreement: [keyId], service: [] };
  }
  const x = ed25519ToX25519PublicKey(publicKey);
  const agreementId = `${controllerDid}#${encodeMultikey('X25519', x)}`;
  return {
    id: controllerDid,
    verificationMethod: [jwkMethod(keyId, controllerDid, 'Ed25519', publicKey), jwkMethod(agreementId, controllerDid, 'X25519', x)],
    authentication: [keyId],
    assertionMethod: [keyId],
    keyAgreement: [agreementId],
    service: [],
  };
}

export function didKeyDocument(did: string): DidcommDidDoc {
  const parsed = parseDidKey(did);
  return keyDocument(parsed.did, parsed.multibase);
}

export function didKeyFromEd25519(publicKey: Uint8Array): string {
  return DID_KEY_PREFIX + encodeMultikey('Ed25519', publicKey);
}

export function didKeyFromX25519(publicKey: Uint8Array): string {
  return DID_KEY_PREFIX + encodeMultikey('X25519', publicKey);
}

function checkSeed(seed: Uint8Array): void {
  if (!(seed instanceof Uint8Array) || seed.length !== 32) throw didError('DID_INVALID', 'an Ed25519 seed (secret key) is 32 bytes');
}

/**
 * The X25519 private key matching `ed25519ToX25519PublicKey(publicKey(seed))`: the clamped first
 * half of SHA-512(seed) (libsodium crypto_sign_ed25519_sk_to_curve25519).
 */
export function x25519SecretFromEd25519Seed(seed: Uint8Array): Uint8Array {
  checkSeed(seed);
  return Uint8Array.from(ed25519.utils.toMontgomerySecret(seed));
}

export interface DidKeyIdentity {
  did: string;
  ed25519PublicKey: Uint8Array;
  x25519PublicKey: Uint8Array;
  /** `<did>#z6Mk…`: authentication / signing */
  signingKeyId: string;
  /** `<did>#z6LS…`: key agreement / decryption */
  keyAgreementKeyId: string;
  /**
   * What a didcomm-node SecretsResolver returns for this DID: JsonWebKey2020 with the private
   * `d` (X25519 for key agreement first, then Ed25519 for signing, d = the seed, RFC 8037).
   */
  secrets: Secret[];
}

/** The mediator's own did:key, keys and DIDComm secrets, from its 32-byte Ed25519 seed. */
export function didKeyFromSeed(seed: Uint8Array): DidKeyIdentity {
  checkSeed(seed);
  const ed25519PublicKey = Uint8Array.from(ed25519.getPublicKey(seed));
  const x25519PublicKey = ed25519ToX25519PublicKey(ed25519PublicKey);
  const did = didKeyFromEd25519(ed25519PublicKey);
  const signingKeyId = `${did}#${did.slice(DID_KEY_PREFIX.length)}`;
  const keyAgreementKeyId = `${did}#${encodeMultikey('X25519', x25519PublicKey)}`;
  const d = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
  const secrets: Secret[] = [
    { id: keyAgreementKeyId, type: 'JsonWebKey2020', privateKeyJwk: { ...okpJwk('X25519', x25519PublicKey), d: d(x25519SecretFromEd25519Seed(seed)) } },
    { id: signingKeyId, type: 'JsonWebKey2020', privateKeyJwk: { ...okpJwk('Ed25519', ed25519PublicKey), d: d(seed) } },
  ];
  return { did, ed25519PublicKey, x25519PublicKey, signingKeyId, keyAgreementKeyId, secrets };
}

/** The secrets of `didKeyFromSeed(seed)`. */
export function didKeySecrets(seed: Uint8Array): Secret[] {
  return didKeyFromSeed(seed).secrets;
}
