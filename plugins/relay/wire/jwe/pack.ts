import { randomBytes } from 'node:crypto';
import type { DIDDoc } from 'didcomm-node';
import { b64u, CONTENT, concatKdf, encryptContent, sha256, wrapKey, x25519, x25519Ephemeral, type ContentAlg } from './primitives.js';
import { didOf, x25519KeyOf, type OwnKeys } from './unpack.js';

/**
 * The fast path of packing, the mirror of unpack.ts: a message encrypted to every X25519 key
 * agreement key of `to` (or the one its fragment names), authcrypt (ECDH-1PU+A256KW,
 * A256CBC-HS512) from our first X25519 key agreement key when `from` is set, else anoncrypt
 * (ECDH-ES+A256KW, XC20P: the reference library's default). The envelope is the one the
 * reference library writes. `null` when the keys are not all X25519 JsonWebKey2020 or the message
 * needs the library (a from_prior to sign): the caller then packs with the library.
 */

export interface FastPackRequest {
  message: Record<string, unknown>;
  to: string;
  from: string | null;
}

const fragmentOf = (url: string) => (url.includes('#') ? url : null);

function keysOf(doc: DIDDoc, only: string | null) {
  const kids = doc.keyAgreement.filter((k) => only === null || k === only);
  const keys = kids.map((kid) => ({ kid, key: x25519KeyOf(doc, kid) }));
  return keys.length > 0 && keys.every((k) => k.key !== null) ? (keys as Array<{ kid: string; key: NonNullable<(typeof keys)[number]['key']> }>) : null;
}

export function fastPack(req: FastPackRequest, lookup: (did: string) => DIDDoc | null, own: OwnKeys): string | null {
  const { message, to, from } = req;
  if (message.from_prior !== undefined) return null;
  if (Array.isArray(message.to) && !message.to.includes(didOf(to))) return null;
  if (from && message.from !== undefined && message.from !== didOf(from)) return null;
  const toDoc = lookup(didOf(to));
  const recipients = toDoc && keysOf(toDoc, fragmentOf(to));
  if (!recipients) return null;

  let sender: { kid: string; key: ReturnType<OwnKeys['privateKey']> & object } | undefined;
  if (from) {
    const fromDoc = lookup(didOf(from));
    const kid = fromDoc?.keyAgreement.find((k) => (fragmentOf(from) === null || k === from) && own.secret(k) !== null);
    const secret = kid === undefined ? null : own.secret(kid);
    const key = secret && own.privateKey(secret);
    if (!kid || !key || !x25519KeyOf(fromDoc!, kid)) return null;
    sender = { kid, key };
  }
  const alg = sender ? 'ECDH-1PU+A256KW' : 'ECDH-ES+A256KW';
  const enc: ContentAlg = sender ? 'A256CBC-HS512' : 'XC20P';
  const apvBytes = sha256(recipients.map((r) => r.kid).sort().join('.'));
  const apuBytes = sender ? Buffer.from(sender.kid) : Buffer.alloc(0);
  const epk = x25519Ephemeral();
  const header = {
    typ: 'application/didcomm-encrypted+json',
    alg,
    enc,
    ...(sender ? { skid: sender.kid, apu: b64u(apuBytes) } : {}),
    apv: b64u(apvBytes),
    epk: { crv: 'X25519', kty: 'OKP', x: epk.x },
  };
  const protectedText = b64u(Buffer.from(JSON.stringify(header)));
  const cek = randomBytes(CONTENT[enc].keyBytes);
  const { iv, ciphertext, tag } = encryptContent(enc, cek, Buffer.from(JSON.stringify(message)), Buffer.from(protectedText, 'latin1'));
  const wrapped = recipients.map(({ kid, key }) => {
    const z = sender ? Buffer.concat([x25519(epk.privateKey, key), x25519(sender.key, key)]) : x25519(epk.privateKey, key);
    const kek = concatKdf(z, alg, apuBytes, apvBytes, sender ? tag : undefined);
    return { header: { kid }, encrypted_key: b64u(wrapKey(kek, cek)) };
  });
  return JSON.stringify({ protected: protectedText, recipients: wrapped, iv: b64u(iv), ciphertext: b64u(ciphertext), tag: b64u(tag) });
}
