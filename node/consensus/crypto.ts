import * as blst from '@chainsafe/blst';
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
const bls = bls12_381.longSignatures;

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

/**
 * A deterministic BLS key pair from a seed of at least 32 bytes (tests, devnets). Derived with the
 * JavaScript curve's KeyGen, whose salt differs from blst's: devnet and test keys stay what they were.
 */
export function blsKeyFromSeed(seed: Uint8Array): { secretKey: Uint8Array; publicKey: Uint8Array } {
  const ikm = new Uint8Array(48);
  ikm.set(blake3(seed));
  ikm.set(blake3(new ByteWriter().bytes(seed).u8(1).finish()).slice(0, 16), 32);
  const { secretKey, publicKey } = bls.keygen(ikm);
  return { secretKey, publicKey: publicKey.toBytes() };
}

/**
 * Votes and QCs through blst (the supranational library Lodestar uses, natively): signing and
 * verifying cost about 1/20 of the pure-JavaScript curve, and its signatures and keys are
 * byte-identical to it for the same key and DST (BLS_SIG_..._POP_, blst's built-in one).
 */
export class BlsQuorumCrypto implements QuorumCrypto {
  readonly publicKey: Uint8Array;
  private readonly secret: blst.SecretKey;
  private readonly keys = new Map<string, blst.PublicKey>();
  /** an aggregate key per signer set: the same QC is checked by every replica and again on sync */
  private readonly aggregates = new Map<string, blst.PublicKey>();

  constructor(secretKey: Uint8Array) {
    this.secret = blst.SecretKey.fromBytes(secretKey);
    this.publicKey = this.secret.toPublicKey().toBytes(true);
  }

  sign(message: Uint8Array): Uint8Array {
    return this.secret.sign(message).toBytes(true);
  }

  verify(message: Uint8Array, signature: Uint8Array, publicKey: Uint8Array): boolean {
    return this.verifyAggregate([{ message, publicKeys: [publicKey] }], signature);
  }

  aggregate(signatures: Uint8Array[]): Uint8Array {
    return blst.aggregateSerializedSignatures(signatures, true).toBytes(true);
  }

  verifyAggregate(groups: Array<{ message: Uint8Array; publicKeys: Uint8Array[] }>, signature: Uint8Array): boolean {
    if (groups.length === 0 || signature.length !== BLS_SIGNATURE_LENGTH) return false;
    try {
      const sig = blst.Signature.fromBytes(signature, true);
      if (groups.length === 1) {
        const g = groups[0]!;
        return blst.fastAggregateVerify(g.message, g.publicKeys.map((k) => this.key(k)), sig, false);
      }
      return blst.aggregateVerify(
        groups.map((g) => g.message),
        groups.map((g) => this.aggregateKey(g.publicKeys)),
        sig,
        false,
        false,
      );
    } catch {
      return false;
    }
  }

  private aggregateKey(publicKeys: Uint8Array[]): blst.PublicKey {
    if (publicKeys.length === 1) return this.key(publicKeys[0]!);
    const id = publicKeys.map(toHex).join('');
    let k = this.aggregates.get(id);
    if (!k) {
      k = blst.aggregatePublicKeys(publicKeys.map((p) => this.key(p)), false);
      if (this.aggregates.size >= 256) this.aggregates.clear();
      this.aggregates.set(id, k);
    }
    return k;
  }

  /** Decoded keys are cached: decoding with the subgroup check costs more than the aggregation. */
  private key(bytes: Uint8Array): blst.PublicKey {
    const hex = toHex(bytes);
    let k = this.keys.get(hex);
    if (!k) {
      if (bytes.length !== BLS_PUBLIC_KEY_LENGTH) throw new RangeError('bad BLS public key length');
      k = blst.PublicKey.fromBytes(bytes, true);
      if (this.keys.size > 4096) this.keys.clear();
      this.keys.set(hex, k);
    }
    return k;
  }
}
