import { bls12_381 } from '@noble/curves/bls12-381.js';

/**
 * BLS12-381 "min-pk" (48-byte G1 public keys, 96-byte G2 signatures) as pure functions, for the
 * checks execution makes: a validator's proof of possession and equivocation evidence. Nothing here
 * caches or reads a clock, so every node gets the same answer. The consensus engine's own signer
 * and aggregate verifier (node/consensus/crypto.ts) use native blst with the same curve and vote
 * ciphersuite, byte for byte. These checks stay on the JavaScript curve because blst's binding has
 * the vote DST built in and cannot take the proof-of-possession one, and both checks are rare (a
 * validator registration, an equivocation report), so one implementation serves them.
 */

const bls = bls12_381.longSignatures;

/** The IETF BLS ciphersuite that consensus signs votes with (node/consensus/crypto.ts). */
export const VOTE_DST = 'BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_';
/**
 * The IETF proof-of-possession ciphersuite: a different hash-to-curve tag, so a proof of possession
 * can never be taken for a vote signature, nor a vote signature for a proof.
 */
export const POP_DST = 'BLS_POP_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_';

type G1 = ReturnType<typeof bls.getPublicKey>;

/** The decoded key, or undefined unless it is a 48-byte compressed G1 point in the subgroup and not the identity. */
export function decodeBlsPublicKey(bytes: Uint8Array): G1 | undefined {
  if (bytes.length !== 48) return undefined;
  try {
    const point = bls12_381.G1.Point.fromBytes(bytes);
    if (point.is0()) return undefined;
    point.assertValidity();
    return point;
  } catch {
    return undefined;
  }
}

export function isValidBlsPublicKey(bytes: Uint8Array): boolean {
  return decodeBlsPublicKey(bytes) !== undefined;
}

/** The public key of a 32-byte secret key. */
export function blsPublicKey(secretKey: Uint8Array): Uint8Array {
  return bls.getPublicKey(secretKey).toBytes();
}

/** Deterministic (BLS signatures have no nonce). */
export function blsSign(secretKey: Uint8Array, message: Uint8Array, dst: string): Uint8Array {
  return bls.Signature.toBytes(bls.sign(bls.hash(message, dst), secretKey));
}

/** False on any malformed input: a bad key, a signature that is no G2 point of the subgroup, or a wrong signature. */
export function blsVerify(publicKey: Uint8Array | G1, message: Uint8Array, signature: Uint8Array, dst: string): boolean {
  const key = publicKey instanceof Uint8Array ? decodeBlsPublicKey(publicKey) : publicKey;
  if (!key || signature.length !== 96) return false;
  try {
    const sig = bls.Signature.fromBytes(signature);
    sig.assertValidity();
    return bls.verify(sig, bls.hash(message, dst), key);
  } catch {
    return false;
  }
}
