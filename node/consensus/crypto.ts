import { bls12_381 } from '@noble/curves/bls12-381.js';
import { blake3 } from '../crypto/hash.js';
import { ByteWriter, toHex, utf8 } from '../protocol/bytes.js';

/**
 * BLS12-381 vote crypto, "min-pk": 48-byte G1 public keys, 96-byte G2 signatures. Every signer of
 * a QC signs the same digest, so a QC verifies with one pairing check against the sum of the
 * signers' keys. That is only sound against rogue keys when each key came with a proof of
 * possession: the validator registration that admits a BLS key must check one (PoP ciphersuite).
 */

export const BLS_PUBLIC_KEY_LENGTH = 48;
export const BLS_SIGNATURE_LENGTH = 96;
export const VOTE_DOMAIN = 'ledger-vote-v1';
export const TIMEOUT_DOMAIN = 'ledger-timeout-v1';
const DST = 'BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_';
const bls = bls12_381.longSignatures;
type G1 = ReturnType<typeof bls.getPublicKey>;

/** The signature primitives consensus needs; tests and the node both use the BLS one. */
export interface QuorumCrypto {
  /** this validator's own public key */
  readonly publicKey: Uint8Array;
  sign(message: Uint8Array): Uint8Array;
  verify(message: Uint8Array, signature: Uint8Array, publicKey: Uint8Array): boolean;
  aggregate(signatures: Uint8Array[]): Uint8Array;
  /** One aggregate signature over groups of (message, keys that signed it): one pairing per group. */
  verifyAggregate(groups: Array<{ message: Uint8Array; publicKeys: Uint8Array[] }>, signature: Uint8Array): boolean;
}

/**
 * BLAKE3(domain || u16 len chain_id || chain_id || u64 epoch || u64 round || u64 height || block hash).
 * The epoch keeps a vote of one epoch from counting in another, where rounds start over.
 */
export function voteDigest(chainId: string, epoch: number, round: number, height: number, blockHash: Uint8Array): Uint8Array {
  return blake3(new ByteWriter().bytes(utf8(VOTE_DOMAIN)).str(chainId).u64(BigInt(epoch)).u64(BigInt(round)).u64(BigInt(height)).bytes(blockHash).finish());
}

/** BLAKE3(domain || u16 len chain_id || chain_id || u64 epoch || u64 round || u64 high_qc_round). */
export function timeoutDigest(chainId: string, epoch: number, round: number, highQcRound: number): Uint8Array {
  return blake3(new ByteWriter().bytes(utf8(TIMEOUT_DOMAIN)).str(chainId).u64(BigInt(epoch)).u64(BigInt(round)).u64(BigInt(highQcRound)).finish());
}

/** A deterministic BLS key pair from a seed of at least 32 bytes (tests, devnets). */
export function blsKeyFromSeed(seed: Uint8Array): { secretKey: Uint8Array; publicKey: Uint8Array } {
  const ikm = new Uint8Array(48);
  ikm.set(blake3(seed));
  ikm.set(blake3(new ByteWriter().bytes(seed).u8(1).finish()).slice(0, 16), 32);
  const { secretKey, publicKey } = bls.keygen(ikm);
  return { secretKey, publicKey: publicKey.toBytes() };
}

export class BlsQuorumCrypto implements QuorumCrypto {
  readonly publicKey: Uint8Array;
  private readonly keys = new Map<string, G1>();
  /** hash-to-curve costs about 8 ms: a vote digest is hashed to sign it and again to check its QC */
  private readonly hashed = new Map<string, ReturnType<typeof bls.hash>>();

  constructor(private readonly secretKey: Uint8Array) {
    this.publicKey = bls.getPublicKey(secretKey).toBytes();
  }

  sign(message: Uint8Array): Uint8Array {
    return bls.Signature.toBytes(bls.sign(this.hashToCurve(message), this.secretKey));
  }

  verify(message: Uint8Array, signature: Uint8Array, publicKey: Uint8Array): boolean {
    return this.verifyAggregate([{ message, publicKeys: [publicKey] }], signature);
  }

  aggregate(signatures: Uint8Array[]): Uint8Array {
    return bls.Signature.toBytes(bls.aggregateSignatures(signatures.map((s) => bls.Signature.fromBytes(s))));
  }

  verifyAggregate(groups: Array<{ message: Uint8Array; publicKeys: Uint8Array[] }>, signature: Uint8Array): boolean {
    if (groups.length === 0 || signature.length !== BLS_SIGNATURE_LENGTH) return false;
    try {
      const sig = bls.Signature.fromBytes(signature);
      const items = groups.map((g) => ({ message: this.hashToCurve(g.message), publicKey: bls.aggregatePublicKeys(g.publicKeys.map((k) => this.key(k))) }));
      const first = items[0]!;
      return items.length === 1 ? bls.verify(sig, first.message, first.publicKey) : bls.verifyBatch(sig, items);
    } catch {
      return false;
    }
  }

  private hashToCurve(message: Uint8Array): ReturnType<typeof bls.hash> {
    const hex = toHex(message);
    let point = this.hashed.get(hex);
    if (!point) {
      point = bls.hash(message, DST);
      if (this.hashed.size >= 256) this.hashed.clear();
      this.hashed.set(hex, point);
    }
    return point;
  }

  /** Decoded (and subgroup-checked) keys are cached: decoding costs more than the additions. */
  private key(bytes: Uint8Array): G1 {
    const hex = toHex(bytes);
    let k = this.keys.get(hex);
    if (!k) {
      if (bytes.length !== BLS_PUBLIC_KEY_LENGTH) throw new RangeError('bad BLS public key length');
      k = bls12_381.G1.Point.fromBytes(bytes);
      k.assertValidity();
      if (this.keys.size > 4096) this.keys.clear();
      this.keys.set(hex, k);
    }
    return k;
  }
}
