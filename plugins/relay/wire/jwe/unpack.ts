import type { KeyObject } from 'node:crypto';
import type { DIDDoc, Secret } from 'didcomm-node';
import { CONTENT, concatKdf, decryptContent, fromB64u, sha256, unwrapKey, x25519, x25519Public, type ContentAlg } from './primitives.js';
import { isObject, plainMessage } from './plaintext.js';

/**
 * The fast path of unpacking: one X25519 envelope (anoncrypt ECDH-ES+A256KW, or authcrypt
 * ECDH-1PU+A256KW with A256CBC-HS512) holding a plaintext message, decrypted on Node's crypto
 * instead of the reference library's WASM, about five times cheaper. It follows the reference
 * (didcomm-rust's unpack): the same header checks (apv is the hash of the sorted recipient kids,
 * apu is the sender's kid, every recipient key of one DID), the sender's key found in its
 * document's keyAgreement, the same KDF inputs.
 *
 * It answers only for what it is sure of. `null` means "not mine": another algorithm or curve,
 * a nested or signed payload, a forward re-wrapped for ourselves, any check that fails. The
 * caller then asks the reference library, which accepts or refuses and words the error, so the
 * fast path never accepts what the library would refuse.
 */

export interface FastUnpacked {
  message: Record<string, unknown>;
  fromKid: string | undefined;
  authenticated: boolean;
  encrypted: true;
  toKids: string[];
}

export interface OwnKeys {
  /** our secret for a key id, or null */
  secret(kid: string): Secret | null;
  /** the X25519 private key object of a secret (cached by the caller) */
  privateKey(secret: Secret): KeyObject | null;
  /** whether a DID is one of ours (a forward to it would be unwrapped by the library) */
  isOwnDid(did: string): boolean;
}

const ES = 'ECDH-ES+A256KW';
const ONE_PU = 'ECDH-1PU+A256KW';
const FORWARD = 'https://didcomm.org/routing/2.0/forward';
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** the DID of a key id as didcomm-rust's did_or_url reads it (before `#` only, unlike envelope.ts's didOf) */
export const didOf = (kid: string) => kid.split('#')[0]!;

/** an X25519 verification method's public key, as the relay's resolver writes them (JsonWebKey2020) */
export function x25519KeyOf(doc: DIDDoc, kid: string): KeyObject | null {
  const vm = doc.verificationMethod.find((m) => m.id === kid) as { type?: string; publicKeyJwk?: Record<string, unknown> } | undefined;
  const jwk = vm?.type === 'JsonWebKey2020' ? vm.publicKeyJwk : undefined;
  if (!jwk || jwk.kty !== 'OKP' || jwk.crv !== 'X25519' || typeof jwk.x !== 'string') return null;
  return x25519Public(jwk.x);
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function fastUnpack(envelope: string, lookup: (did: string) => DIDDoc | null, own: OwnKeys): FastUnpacked | null {
  try {
    return unpack(envelope, lookup, own);
  } catch {
    // a key OpenSSL refuses, a wrap or tag that does not verify: the library words the error
    return null;
  }
}

function unpack(envelope: string, lookup: (did: string) => DIDDoc | null, own: OwnKeys): FastUnpacked | null {
  const jwe = parse(envelope);
  if (!isObject(jwe) || typeof jwe.protected !== 'string' || !Array.isArray(jwe.recipients) || jwe.recipients.length === 0) return null;
  const recipients = jwe.recipients as unknown[];
  if (!recipients.every((r) => isObject(r) && isObject(r.header) && typeof r.header.kid === 'string' && typeof r.encrypted_key === 'string')) return null;
  const kids = (recipients as Array<{ header: { kid: string }; encrypted_key: string }>).map((r) => r.header.kid);
  const protectedBytes = fromB64u(jwe.protected);
  const iv = fromB64u(jwe.iv);
  const ciphertext = fromB64u(jwe.ciphertext);
  const tag = fromB64u(jwe.tag);
  if (!protectedBytes || !iv || !ciphertext || !tag) return null;
  const header = parse(protectedBytes.toString('utf8'));
  if (!isObject(header) || !isObject(header.epk)) return null;
  const { alg, enc, epk } = header;
  if ((alg !== ES && alg !== ONE_PU) || typeof enc !== 'string' || !(enc in CONTENT)) return null;
  if (alg === ONE_PU && enc !== 'A256CBC-HS512') return null;
  if (epk.kty !== 'OKP' || epk.crv !== 'X25519' || typeof epk.x !== 'string') return null;

  // didcomm's header rules: apv names the recipients, apu the sender
  const apv = fromB64u(header.apv);
  if (!apv || !apv.equals(sha256([...kids].sort().join('.')))) return null;
  const apu = header.apu === undefined ? undefined : fromB64u(header.apu);
  if (apu === null) return null;
  const fromKid = apu === undefined ? undefined : utf8.decode(apu);
  if (header.skid !== undefined && header.skid !== fromKid) return null;
  if ((alg === ES) !== (fromKid === undefined)) return null;
  const toDid = didOf(kids[0]!);
  if (kids.some((k) => !k.includes('#') || didOf(k) !== toDid)) return null;

  const secrets = kids.map((k) => own.secret(k));
  const mine = secrets.findIndex((s) => s !== null);
  if (mine < 0) return null;
  const ourKey = own.privateKey(secrets[mine]!);
  const epkKey = x25519Public(epk.x);
  if (!ourKey || !epkKey) return null;
  let z = x25519(ourKey, epkKey);
  if (fromKid !== undefined) {
    if (!fromKid.includes('#')) return null;
    const senderDoc = lookup(didOf(fromKid));
    if (!senderDoc || !senderDoc.keyAgreement.includes(fromKid)) return null;
    const senderKey = x25519KeyOf(senderDoc, fromKid);
    if (!senderKey) return null;
    z = Buffer.concat([z, x25519(ourKey, senderKey)]);
  }
  const encryptedKey = fromB64u((recipients[mine] as { encrypted_key: string }).encrypted_key);
  if (!encryptedKey) return null;
  const kek = concatKdf(z, alg, apu ?? Buffer.alloc(0), apv, alg === ONE_PU ? tag : undefined);
  const cek = unwrapKey(kek, encryptedKey);
  const plaintext = decryptContent(enc as ContentAlg, cek, iv, ciphertext, tag, Buffer.from(jwe.protected, 'latin1'));
  const message = plainMessage(parse(utf8.decode(plaintext)));
  if (!message) return null;
  // the library unwraps an anoncrypted forward addressed to ourselves; leave that to it
  if (alg === ES && message.type === FORWARD && isObject(message.body) && typeof message.body.next === 'string' && own.isOwnDid(didOf(message.body.next))) return null;
  return { message, fromKid, authenticated: alg === ONE_PU, encrypted: true, toKids: kids };
}
