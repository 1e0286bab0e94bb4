import { LedgerError } from '../errors.js';
import type { Block } from '../protocol/block.js';
import { toHex } from '../protocol/bytes.js';

/** A block the app found at odds with this node's state. */
export interface RefusedBlock {
  height: number;
  hash: string;
  code: string;
  error: string;
}

export type HaltReport = { reason: string } & Record<string, unknown>;

/** Drop reasons by what the app's refusal says about a block (ConsensusApp.validateBlock). */
const REFUSAL_REASONS: Partial<Record<string, string>> = {
  invalid: 'invalid-block',
  conflict: 'block-state-mismatch',
  limit: 'block-timestamp-ahead',
};

export function errorCode(err: unknown): string {
  return err instanceof LedgerError ? err.code : 'ERROR';
}

/**
 * Whether this node's state still agrees with the quorum (docs/consensus.md, "A node that stops
 * signing"). It remembers the blocks the app refused as disagreeing with the state computed here;
 * if a quorum certifies one of them, or a certified block fails to commit, the wrong state is
 * this node's own, and it halts: the engine then signs nothing.
 */
export class Divergence {
  private readonly refused = new Map<string, RefusedBlock>();
  private report: HaltReport | undefined;

  constructor(private readonly onHalt: (report: HaltReport) => void) {}

  get halted(): HaltReport | undefined {
    return this.report;
  }

  /**
   * A refusal: returns the drop reason and whether the sender is to blame (only for a block wrong
   * by itself); a state disagreement is remembered, and `certified` says a quorum already vouched
   * for the block.
   */
  refusal(b: Block, err: unknown, certified: boolean): { reason: string; senderAtFault: boolean } {
    const kind = err instanceof LedgerError ? err.kind : 'internal';
    if (kind === 'conflict') {
      const r: RefusedBlock = { height: b.header.height, hash: toHex(b.hash), code: errorCode(err), error: (err as Error).message };
      this.refused.set(r.hash, r);
      if (certified) this.halt('certified-block-refused', r);
    }
    return { reason: REFUSAL_REASONS[kind] ?? 'block-unverifiable', senderAtFault: kind === 'invalid' };
  }

  /** A quorum certified block `hash` (a verified QC names it, or an authenticated block's justify does). */
  certified(hash: Uint8Array): void {
    const r = this.refused.get(toHex(hash));
    if (r) this.halt('certified-block-refused', r);
  }

  halt(reason: string, details: RefusedBlock | Record<string, unknown>): void {
    if (this.report) return;
    this.report = { reason, ...details };
    this.onHalt(this.report);
  }

  /** Forgets refusals at or below a committed height: no QC can name them any more. */
  pruneTo(height: number): void {
    for (const [k, r] of this.refused) if (r.height <= height) this.refused.delete(k);
  }
}
