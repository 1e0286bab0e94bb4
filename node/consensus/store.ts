import { decodeBlock, encodeBlock, type Block } from '../protocol/block.js';
import { toHex } from '../protocol/bytes.js';
import { decodeEpochProof, decodeEvidence, decodeSafety, encodeEpochProof, encodeEvidence, encodeSafety } from './codec.js';
import type { EpochProof, Evidence, SafetyState } from './types.js';

/**
 * What consensus keeps across a crash: the safety state (saved, and awaited, before any vote or
 * timeout leaves the node) and the uncommitted blocks of the tree (saved before they are voted
 * for or proposed, deleted once committed or orphaned). It also keeps the equivocation evidence
 * this node saw, oldest first, because a validator's slashing history outlives restarts.
 */
export interface ConsensusStore {
  loadSafety(): Promise<SafetyState | undefined>;
  saveSafety(state: SafetyState): Promise<void>;
  putPendingBlock(block: Block): Promise<void>;
  pendingBlocks(): Promise<Block[]>;
  deletePendingBlocks(hashes: Uint8Array[]): Promise<void>;
  putEvidence(e: Evidence): Promise<void>;
  loadEvidence(): Promise<Evidence[]>;
  /** how epoch `epoch` ended, kept for the nodes that have yet to cross it */
  putEpochProof(epoch: number, proof: EpochProof): Promise<void>;
  loadEpochProof(epoch: number): Promise<EpochProof | undefined>;
}

/** In memory, stored encoded so that callers never share objects with it (as on disk). */
export class MemoryConsensusStore implements ConsensusStore {
  private safety: Uint8Array | undefined;
  private readonly blocks = new Map<string, Uint8Array>();
  private readonly evidence: Uint8Array[] = [];
  private readonly proofs = new Map<number, Uint8Array>();

  async loadSafety(): Promise<SafetyState | undefined> {
    return this.safety ? decodeSafety(this.safety) : undefined;
  }

  async saveSafety(state: SafetyState): Promise<void> {
    this.safety = encodeSafety(state);
  }

  async putPendingBlock(block: Block): Promise<void> {
    this.blocks.set(toHex(block.hash), encodeBlock(block));
  }

  async pendingBlocks(): Promise<Block[]> {
    return [...this.blocks.values()].map(decodeBlock);
  }

  async deletePendingBlocks(hashes: Uint8Array[]): Promise<void> {
    for (const h of hashes) this.blocks.delete(toHex(h));
  }

  async putEvidence(e: Evidence): Promise<void> {
    this.evidence.push(encodeEvidence(e));
  }

  async loadEvidence(): Promise<Evidence[]> {
    return this.evidence.map(decodeEvidence);
  }

  async putEpochProof(epoch: number, proof: EpochProof): Promise<void> {
    this.proofs.set(epoch, encodeEpochProof(epoch, proof));
  }

  async loadEpochProof(epoch: number): Promise<EpochProof | undefined> {
    const bytes = this.proofs.get(epoch);
    return bytes && decodeEpochProof(bytes);
  }
}
