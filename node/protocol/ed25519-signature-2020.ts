import { sign, SIGNATURE_LENGTH, verify } from '../crypto/ed25519.js';
import { sha256 } from '../crypto/hash.js';
import { base58btcMultibase, fromBase58btcMultibase } from '../crypto/multibase.js';
import { concatBytes, utf8 } from './bytes.js';
import { ED25519_SIGNATURE_2020 } from './credential-context.js';
import { canonicalNQuads, documentLoader, type DocumentLoader } from './jsonld-loader.js';

export { ED25519_SIGNATURE_2020 } from './credential-context.js';

/**
 * The Ed25519Signature2020 Data Integrity suite (W3C CCG di-eddsa-2020, the suite of
 * digitalbazaar/ed25519-signature-2020), for any JSON-LD document:
 *
 *   hashData   = SHA-256(canonical proof options) ‖ SHA-256(canonical document without `proof`)
 *   proofValue = "z" + base58btc(Ed25519(hashData))
 *
 * The proof options are the proof without `proofValue`, under the document's `@context`;
 * canonical means RDFC-1.0 N-Quads (canonicalNQuads). Which key may sign is the caller's
 * business: this module only checks a signature against the key it is given.
 */


export interface ProofOptions {
  type: typeof ED25519_SIGNATURE_2020;
  created: string;
  verificationMethod: string;
  proofPurpose: string;
}

export interface Ed25519Signature2020Proof extends ProofOptions {
  proofValue: string;
}

export type ProofCheck = { ok: true } | { ok: false; reason: string };

type JsonObject = Record<string, unknown>;

export async function proofHashData(document: JsonObject, options: JsonObject, loader: DocumentLoader = documentLoader): Promise<Uint8Array> {
  const { proof: _proof, ...unsecured } = document;
  const { proofValue: _value, ...config } = options;
  const [canonicalConfig, canonicalDocument] = await Promise.all([
    canonicalNQuads({ '@context': document['@context'], ...config }, loader),
    canonicalNQuads(unsecured, loader),
  ]);
  return concatBytes(sha256(utf8(canonicalConfig)), sha256(utf8(canonicalDocument)));
}

/** `document` with `proof` set to a new Ed25519Signature2020 proof made with `seed`. */
export async function addProof<T extends object>(
  document: T,
  seed: Uint8Array,
  options: ProofOptions,
  loader: DocumentLoader = documentLoader,
): Promise<Omit<T, 'proof'> & { proof: Ed25519Signature2020Proof }> {
  const signature = sign(seed, await proofHashData(document as JsonObject, { ...options }, loader));
  const { proof: _old, ...unsecured } = document as T & { proof?: unknown };
  return { ...unsecured, proof: { ...options, proofValue: base58btcMultibase(signature) } };
}

/** Whether `document.proof` is an Ed25519Signature2020 signature by `publicKey`; never throws. */
export async function verifyProof(document: unknown, publicKey: Uint8Array, loader: DocumentLoader = documentLoader): Promise<ProofCheck> {
  if (!isObject(document)) return { ok: false, reason: 'the document is not a JSON object' };
  const proof = document.proof;
  if (!isObject(proof)) return { ok: false, reason: 'the document has no proof object' };
  if (proof.type !== ED25519_SIGNATURE_2020) return { ok: false, reason: `proof.type is not ${ED25519_SIGNATURE_2020}` };
  let signature: Uint8Array;
  try {
    signature = fromBase58btcMultibase(proof.proofValue as string, 'proofValue');
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
  if (signature.length !== SIGNATURE_LENGTH) return { ok: false, reason: `proofValue must hold a ${SIGNATURE_LENGTH}-byte signature, got ${signature.length} bytes` };
  let data: Uint8Array;
  try {
    data = await proofHashData(document, proof, loader);
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
  return verify(publicKey, data, signature) ? { ok: true } : { ok: false, reason: 'the signature does not verify under this key' };
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
