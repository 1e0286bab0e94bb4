import type { ReceiptEvent } from '../protocol/receipt.js';

/** What a transaction executes in, and what a payload handler returns: shared by apply.ts and the payload modules. */

export interface BlockContext {
  network: string;
  height: number;
  /** the consensus round of the block's proposal: a registered credential records it */
  round: number;
  /** fixed before the block is built: credential committees are drawn from it */
  parentHash: Uint8Array;
  timestampMs: number;
  proposer: Uint8Array;
}

/** What one transaction executes in: its block, and the chain id (proofs of possession and evidence bind it). */
export interface TxContext extends BlockContext {
  chainId: string;
}

export type PayloadResult = { events: ReceiptEvent[] } | { failure: string };
