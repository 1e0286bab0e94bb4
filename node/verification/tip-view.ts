import type { StateReader } from '../execution/overlay.js';
import { readVerification } from '../execution/verification.js';
import { requestKeyOf, type VerificationRecord } from '../protocol/verification-records.js';

/**
 * The verification requests a validator answers from: the state after the newest block this node
 * has validated or proposed (its tip), not after its committed head. The next leader builds on that
 * block as soon as it is certified, which on a healthy network is within the round, so an answer
 * sent from the tip lands a block or two above its request, and the answer's three rounds to commit
 * run beside the request's own instead of after them (docs/protocol.md, "When a validator
 * answers"). Should the tip be abandoned, an answer to a request only it held fails on chain like
 * any answer to an unknown request, and the standby members answer in its place.
 *
 * Pending blocks never change, so the reader of a block is built once.
 */
export class TipView {
  private tip: { hash: Uint8Array; height: number } | undefined;
  private reader: StateReader | undefined;
  private move = moveSignal();

  constructor(
    private readonly d: {
      /** the state after a block pending here, or the committed state when the block is not pending */
      stateAfter(hash: Uint8Array): StateReader;
      committed(): StateReader;
      /** the committed head's height, or -1 before genesis */
      committedHeight(): number;
    },
  ) {}

  /** A block this node validated or proposed. */
  onBlock(hash: Uint8Array, height: number): void {
    if (this.tip && height <= this.tip.height) return;
    this.tip = { hash, height };
    this.reader = undefined;
    const moved = this.move;
    this.move = moveSignal();
    moved.resolve();
  }

  /** Resolves when the view next moves to a newer block (one promise shared by every waiter). */
  moved(): Promise<void> {
    return this.move.promise;
  }

  /** The state after the tip; the committed state once the tip is committed (or left behind on a dead branch). */
  state(): StateReader {
    if (!this.tip || this.tip.height <= this.d.committedHeight()) return this.d.committed();
    this.reader ??= this.d.stateAfter(this.tip.hash);
    return this.reader;
  }

  verification(requestId: string): Promise<VerificationRecord | undefined> {
    return readVerification(this.state(), requestKeyOf(requestId));
  }
}

function moveSignal(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
