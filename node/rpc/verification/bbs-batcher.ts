import type { BbsProofInput } from '../../crypto/bbs.js';

/** the most proofs one batch holds: past it, a batch's pairing saving is small and a failed batch's recheck large */
export const MAX_BBS_BATCH = 16;

/**
 * How long a proof that finds a thread free waits for others to share its pairing check (config
 * `rpc.bbsBatchWindowMs`). The pairing check is about 3.7 ms of a proof's 5.5 alone (12 messages);
 * presentations come in bursts, one per committed block of requests, so the first of a burst used
 * to leave alone and the rest together. 20 ms is a small part of a response's time.
 */
export const BBS_BATCH_WINDOW_MS = 20;

interface Waiting {
  input: BbsProofInput;
  resolve(verdict: boolean): void;
  reject(err: unknown): void;
}

/**
 * Gathers BBS verifications for the pool's threads (crypto/bbs.ts verifyBbsProofs): each free
 * thread takes everything waiting, up to MAX_BBS_BATCH, as one batch, sharing one pairing check.
 * A proof that finds a thread free waits up to `windowMs` for others (or until a batch is full);
 * proofs that queued behind busy threads have waited already and leave as soon as one is free.
 */
export class BbsBatcher {
  private readonly waiting: Waiting[] = [];
  private running = 0;
  private window: NodeJS.Timeout | undefined;
  /** batches sent and the proofs in them, since start: their ratio is the mean batch */
  batches = 0;
  proofs = 0;

  constructor(
    private readonly run: (inputs: BbsProofInput[]) => Promise<boolean[]>,
    private readonly slots: number,
    private readonly windowMs = 0,
  ) {}

  verify(input: BbsProofInput): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ input, resolve, reject });
      if (this.windowMs === 0 || this.waiting.length >= MAX_BBS_BATCH) return this.pump();
      this.window ??= setTimeout(() => this.pump(), this.windowMs);
    });
  }

  private pump(): void {
    clearTimeout(this.window);
    this.window = undefined;
    while (this.running < this.slots && this.waiting.length > 0) {
      const batch = this.waiting.splice(0, MAX_BBS_BATCH);
      this.running++;
      this.batches++;
      this.proofs += batch.length;
      this.run(batch.map((w) => w.input))
        .then(
          (verdicts) => batch.forEach((w, i) => w.resolve(verdicts[i] === true)),
          (err: unknown) => batch.forEach((w) => w.reject(err)),
        )
        .finally(() => {
          this.running--;
          this.pump();
        });
    }
  }
}
