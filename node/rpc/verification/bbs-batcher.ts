import type { BbsProofInput } from '../../crypto/bbs.js';

/** the most proofs one batch holds: past it, a batch's pairing saving is small and a failed batch's recheck large */
export const MAX_BBS_BATCH = 16;

interface Waiting {
  input: BbsProofInput;
  resolve(verdict: boolean): void;
  reject(err: unknown): void;
}

/**
 * Gathers BBS verifications for the pool's threads (crypto/bbs.ts verifyBbsProofs): each free
 * thread takes everything waiting, up to MAX_BBS_BATCH, as one batch. On an idle pool a proof is
 * sent alone and at once, so a batch never waits to fill; under load proofs queue behind busy
 * threads and leave together, sharing one pairing check, which is where the load needs it.
 */
export class BbsBatcher {
  private readonly waiting: Waiting[] = [];
  private running = 0;
  /** batches sent and the proofs in them, since start: their ratio is the mean batch */
  batches = 0;
  proofs = 0;

  constructor(
    private readonly run: (inputs: BbsProofInput[]) => Promise<boolean[]>,
    private readonly slots: number,
  ) {}

  verify(input: BbsProofInput): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ input, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
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
