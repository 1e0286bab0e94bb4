import type { Block, QuorumCertificate } from '../protocol/block.js';
import { bytesEqual } from '../protocol/bytes.js';
import { CertificateVerifier } from './certificates.js';
import type { QuorumCrypto } from './crypto.js';
import type { EpochInfo, EpochProof } from './types.js';
import { isChain } from './sync.js';
import { ValidatorSet } from './validators.js';
import { TimeoutCollector, VoteCollector } from './votes.js';

/**
 * Epoch handover (docs/consensus.md, "Epochs"). The block at an epoch's last height (the
 * boundary) computes the next set, but it only commits once two more blocks and a QC build a
 * 3-chain on it, and those are certified by the set that is ending. So the blocks above an
 * uncommitted boundary carry no transactions, and when the boundary commits the blocks above it
 * are dropped, the new set takes over and its first block extends the boundary block directly,
 * justified by a signer-less start QC that every node derives from that block alone.
 */

/** Everything that belongs to one epoch: its set, its start QC and the certificate machinery. */
export class EpochContext {
  readonly set: ValidatorSet;
  readonly startQc: QuorumCertificate;
  readonly verifier: CertificateVerifier;
  readonly votes: VoteCollector;
  readonly timeouts: TimeoutCollector;
  /** whether this node votes in the epoch: its address is in the set with this BLS key */
  readonly isValidator: boolean;

  constructor(
    readonly info: EpochInfo,
    chainId: string,
    self: { address: Uint8Array; crypto: QuorumCrypto },
  ) {
    this.set = new ValidatorSet({ validators: info.validators });
    this.startQc = startQcOf(info);
    this.verifier = new CertificateVerifier(chainId, info.epoch, this.set, self.crypto, this.startQc);
    this.votes = new VoteCollector(chainId, info.epoch, this.set, self.crypto);
    this.timeouts = new TimeoutCollector(chainId, info.epoch, this.set, self.crypto);
    const i = this.set.indexOf(self.address);
    this.isValidator = i !== undefined && bytesEqual(this.set.at(i)!.blsPublicKey, self.crypto.publicKey);
  }

  get epoch(): number {
    return this.info.epoch;
  }

  /** A block above the boundary: it may only help commit the boundary, so it carries nothing. */
  isPastBoundary(height: number): boolean {
    return this.info.lastHeight !== undefined && height > this.info.lastHeight;
  }
}

/** The QC every epoch starts from: its start block, no signers (the genesis QC for epoch 0). */
export function startQcOf(info: EpochInfo): QuorumCertificate {
  return { round: info.start.round, height: info.start.height, blockHash: info.start.hash, signers: new Uint8Array(0), signature: new Uint8Array(0) };
}

/**
 * The part of a commit that stays in the epoch: the blocks up to and including the boundary.
 * `path` is what the 3-chain rule commits, oldest first; `ends` is true when it reaches the boundary.
 */
export function clipAtBoundary(path: Block[], lastHeight: number | undefined): { blocks: Block[]; ends: boolean } {
  if (lastHeight === undefined) return { blocks: path, ends: false };
  const blocks = path.filter((b) => b.header.height <= lastHeight);
  return { blocks, ends: blocks.length > 0 && blocks[blocks.length - 1]!.header.height === lastHeight };
}

/**
 * The shape checks of an epoch proof, before its QC is verified: the boundary first, then a
 * chain of empty blocks each extending the one before and certified by the next one's justify,
 * ending at the block the QC certifies. Returns the reason to reject it, or undefined.
 */
export function epochProofError(proof: EpochProof, lastHeight: number | undefined): string | undefined {
  const [boundary] = proof.blocks;
  if (lastHeight === undefined || !boundary || boundary.header.height !== lastHeight) return 'the first block is not this epoch\'s boundary';
  if (!isChain(proof.blocks)) return 'the blocks do not form a chain';
  if (proof.blocks.slice(1).some((b) => b.transactions.length > 0)) return 'a block above the boundary carries transactions';
  const last = proof.blocks[proof.blocks.length - 1]!;
  if (!bytesEqual(proof.qc.blockHash, last.hash) || proof.qc.height !== last.header.height) return 'the QC does not certify the last block';
  if (proof.blocks.length < 3) return 'a 3-chain on the boundary needs two blocks above it';
  return undefined;
}
