import { blake3 } from '../crypto/hash.js';
import { writeQc, type QuorumCertificate } from '../protocol/block.js';
import { ByteWriter, bytesEqual, toHex } from '../protocol/bytes.js';
import { writeTc } from './codec.js';
import { timeoutDigest, voteDigest, type QuorumCrypto } from './crypto.js';
import type { TimeoutCertificate } from './types.js';
import type { ValidatorSet } from './validators.js';

const CACHE_LIMIT = 4096;

/**
 * Checks QCs and TCs: signer bitmap within the set, more than 2/3 of the weight, and one
 * aggregate signature check. A certificate that verified is remembered by the hash of its bytes,
 * so the same QC arriving in a proposal, a timeout and a TC costs one pairing check in all.
 */
export class CertificateVerifier {
  private readonly verified = new Set<string>();
  /** pairing checks actually run (for tests and metrics) */
  checks = 0;

  constructor(
    private readonly chainId: string,
    private readonly epoch: number,
    private readonly set: ValidatorSet,
    private readonly crypto: QuorumCrypto,
    private readonly genesisQc: QuorumCertificate,
  ) {}

  isGenesisQc(qc: QuorumCertificate): boolean {
    const g = this.genesisQc;
    return qc.round === g.round && qc.height === g.height && bytesEqual(qc.blockHash, g.blockHash) && qc.signers.length === 0 && qc.signature.length === 0;
  }

  verifyQc(qc: QuorumCertificate): boolean {
    if (this.isGenesisQc(qc)) return true;
    if (qc.round === 0) return false;
    const key = toHex(blake3(writeQc(new ByteWriter().u8(1), qc).finish()));
    if (this.verified.has(key)) return true;
    const signers = this.set.signersOf(qc.signers);
    if (!signers || !this.set.isQuorum(this.set.weightOf(signers))) return false;
    const message = voteDigest(this.chainId, this.epoch, qc.round, qc.height, qc.blockHash);
    this.checks++;
    if (!this.crypto.verifyAggregate([{ message, publicKeys: signers.map((i) => this.set.at(i)!.blsPublicKey) }], qc.signature)) return false;
    this.remember(key);
    return true;
  }

  verifyTc(tc: TimeoutCertificate): boolean {
    const key = toHex(blake3(writeTc(new ByteWriter().u8(2), tc).finish()));
    if (this.verified.has(key)) return true;
    const signers = this.set.signersOf(tc.signers);
    if (!signers || signers.length !== tc.highQcRounds.length || !this.set.isQuorum(this.set.weightOf(signers))) return false;
    if (Math.max(...tc.highQcRounds) !== tc.highQc.round || tc.highQc.round >= tc.round) return false;
    if (!this.verifyQc(tc.highQc)) return false;
    const groups = new Map<number, Uint8Array[]>();
    signers.forEach((i, k) => {
      const r = tc.highQcRounds[k]!;
      groups.set(r, [...(groups.get(r) ?? []), this.set.at(i)!.blsPublicKey]);
    });
    this.checks++;
    const ok = this.crypto.verifyAggregate(
      [...groups].map(([r, publicKeys]) => ({ message: timeoutDigest(this.chainId, this.epoch, tc.round, r), publicKeys })),
      tc.signature,
    );
    if (ok) this.remember(key);
    return ok;
  }

  /** For certificates this node aggregated and checked itself. */
  rememberQc(qc: QuorumCertificate): void {
    this.remember(toHex(blake3(writeQc(new ByteWriter().u8(1), qc).finish())));
  }

  rememberTc(tc: TimeoutCertificate): void {
    this.remember(toHex(blake3(writeTc(new ByteWriter().u8(2), tc).finish())));
  }

  private remember(key: string): void {
    if (this.verified.size >= CACHE_LIMIT) this.verified.clear();
    this.verified.add(key);
  }
}
