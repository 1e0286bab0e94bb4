/**
 * Writes operations in batches of at most `size`, for sweeps (pruning, purging) whose total is
 * unbounded: a week of records is not one write, nor held in memory at once.
 */
export class ChunkedBatch<Op> {
  private ops: Op[] = [];

  constructor(
    private readonly write: (ops: Op[]) => Promise<void>,
    private readonly size = 1000,
  ) {}

  async add(...ops: Op[]): Promise<void> {
    this.ops.push(...ops);
    if (this.ops.length >= this.size) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.ops.length === 0) return;
    const ops = this.ops;
    this.ops = [];
    await this.write(ops);
  }
}
