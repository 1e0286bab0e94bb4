import { decodeBlock, encodeBlock, type Block } from '../protocol/block.js';
import { toHex } from '../protocol/bytes.js';
import { decodeSafety, encodeSafety } from './codec.js';
import type { SafetyState } from './types.js';

/**
 * What consensus keeps across a crash: the safety state (saved, and awaited, before any vote or
 * timeout leaves the node) and the uncommitted blocks of the tree (saved before they are voted
 * for or proposed, deleted once committed or orphaned).
 */
export interface ConsensusStore {
  loadSafety(): Promise<SafetyState | undefined>;
  saveSafety(state: SafetyState): Promise<void>;
  putPendingBlock(block: Block): Promise<void>;
  pendingBlocks(): Promise<Block[]>;
  deletePendingBlocks(hashes: Uint8Array[]): Promise<void>;
}

/** In memory, stored encoded so that callers never share objects with it (as on disk). */
export class MemoryConsensusStore implements ConsensusStore {
  private safety: Uint8Array | undefined;
  private readonly blocks = new Map<string, Uint8Array>();

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
}
